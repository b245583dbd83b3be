"""Delivering a tool's progress, logs and questions to the context's callbacks (internal).

Async tools await the callback. Sync tools call the ``*_sync`` forms, which work from any
thread: a coroutine callback runs on the event loop the context was made on (the MCP
server's, for its calls), the worker thread waiting for it; on that loop's own thread (a
sync tool placed ``inline``) a notification is scheduled instead of awaited, and a question,
which needs its answer, is refused with a clear error.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from forge.core.errors import ClientCapabilityError
from forge.tools.values.channel import (
    LOG_LEVELS,
    Elicitation,
    ElicitRequest,
    LogMessage,
    Sampled,
    SampleRequest,
)

if TYPE_CHECKING:
    import asyncio

Callback = Callable[[Any], Any]

_PENDING: set[Any] = set()
"""Notifications scheduled from a sync tool on the loop's thread, kept until sent."""


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, if any."""
    import asyncio

    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


async def deliver(callback: Callback, event: Any) -> Any:
    """Call ``callback(event)`` from async code, awaiting it when it is a coroutine."""
    out = callback(event)
    if inspect.isawaitable(out):
        out = await out
    return out


def deliver_sync(
    callback: Callback, event: Any, home: asyncio.AbstractEventLoop | None, *, answer: str | None
) -> Any:
    """Call ``callback(event)`` from sync code on any thread.

    ``answer`` names the method when the caller needs the result (a question); ``None``
    for a notification, which may then be sent after this returns.
    """
    out = callback(event)
    if not inspect.isawaitable(out):
        return out
    import asyncio

    here = running_loop()
    if here is not None:  # a sync tool running on the event loop's own thread
        if answer is not None:
            _close(out)
            raise RuntimeError(
                f"ctx.{answer}_sync() cannot wait for the answer on the event loop's thread: "
                f"make the tool async and use 'await ctx.{answer}(...)', or do not place it "
                "inline, so it runs on a worker thread"
            )
        task = here.create_task(_awaited(out))
        _PENDING.add(task)
        task.add_done_callback(_PENDING.discard)
        return None
    if home is not None and home.is_running():
        return asyncio.run_coroutine_threadsafe(_awaited(out), home).result()
    return asyncio.run(_awaited(out))


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _close(awaitable: Any) -> None:
    close = getattr(awaitable, "close", None)
    if close is not None:
        close()


# -- building the events and reading the answers -------------------------------------------


def log_message(level: str, message: Any, logger: str | None) -> LogMessage:
    """Check the level and build the event."""
    if level not in LOG_LEVELS:
        raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
    return LogMessage(level=level, message=message, logger=logger)


def no_callback(capability: str, method: str, field: str) -> ClientCapabilityError:
    """The error for a question asked where nobody can answer it."""
    return ClientCapabilityError(
        capability,
        f"this call's context has no {field} callback. Over MCP, the client must declare the "
        f"{capability} capability; in Python, give the ExecutionContext an {field} "
        f"(ExecutionContext({field}=...)). A tool can catch this error to go on without "
        f"ctx.{method}()",
    )


def elicit_request(message: str, schema: Any) -> tuple[ElicitRequest, Any]:
    """The request for ``schema`` (a pydantic model class or a JSON schema), and the model."""
    if isinstance(schema, Mapping):
        return ElicitRequest(message=message, schema=dict(schema)), None
    from pydantic import BaseModel

    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return ElicitRequest(message=message, schema=schema.model_json_schema()), schema
    raise TypeError(
        f"elicit() takes a pydantic model class or a JSON schema (a mapping) for the answer, "
        f"got {schema!r}"
    )


def elicitation(answer: Any, model: Any) -> Elicitation[Any]:
    """The callback's answer as an `Elicitation`, validated as ``model`` when accepted."""
    if isinstance(answer, Mapping):
        answer = Elicitation(action="accept", content=dict(answer))
    if not isinstance(answer, Elicitation):
        raise TypeError(
            "an on_elicit callback must return an Elicitation or the answer as a mapping, "
            f"got {type(answer).__name__}"
        )
    if model is None or not answer.accepted:
        return answer
    data = model.model_validate(answer.content or {})
    return Elicitation(action="accept", content=answer.content, data=data)


def sample_request(
    prompt: str | Sequence[Mapping[str, str]], options: Mapping[str, Any]
) -> SampleRequest:
    """The request for a prompt (one user message) or a conversation."""
    if isinstance(prompt, str):
        messages: tuple[Mapping[str, str], ...] = ({"role": "user", "content": prompt},)
    else:
        messages = tuple(dict(m) for m in prompt)
        for m in messages:
            if m.get("role") not in ("user", "assistant") or not isinstance(m.get("content"), str):
                raise ValueError(
                    "sample() messages are {'role': 'user' | 'assistant', 'content': text}, "
                    f"got {m!r}"
                )
    if not messages:
        raise ValueError("sample() needs a prompt or at least one message")
    return SampleRequest(
        messages=messages, system=options.get("system"),
        max_tokens=options.get("max_tokens", 512), temperature=options.get("temperature"),
        stop=tuple(options.get("stop", ())), model_hints=tuple(options.get("model_hints", ())),
    )  # fmt: skip


def sampled(answer: Any) -> Sampled:
    """The callback's answer as a `Sampled`."""
    if isinstance(answer, str):
        return Sampled(text=answer)
    if not isinstance(answer, Sampled):
        raise TypeError(
            f"an on_sample callback must return a Sampled or a string, got {type(answer).__name__}"
        )
    return answer
