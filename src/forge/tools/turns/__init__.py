"""One turn of a tool loop: the model's turn rebuilt for the next request.

`read_turn` reads a response (the SDK's object, a dict or JSON text) into an
`AssistantTurn`: the model's turn exactly as the provider takes it back, its calls and its
text. `TurnBuilder` does the same for a stream, one chunk or event at a time.
`AssistantTurn.answer` adds the results and gives the `Turn` to append to the
conversation. The executor and the registry run the calls in between
(`ToolExecutor.run_turn`, `ToolRegistry.run_turn`); nothing here calls a model.

================  ======================================================================
provider          `Turn.assistant`
================  ======================================================================
openai            the assistant message: ``content``, ``refusal``, ``tool_calls``
                  (arguments as the model wrote them), and the ``reasoning_content``
                  and ``extra_content`` OpenAI-compatible servers ask back
openai-responses  the output items: reasoning, ``function_call``, messages
anthropic         the assistant message, every block kept (thinking and its signature)
gemini            the model content, every part kept (``thoughtSignature``)
bedrock           the assistant message (``reasoningContent`` kept)
mistral           the assistant message, as for openai
ollama            the assistant message: ``content``, ``thinking``, ``tool_calls``
================  ======================================================================

A provider's own tool search (deferred loading) is not a call for the client: its blocks or
items stay in the turn, sent back unchanged, and `AssistantTurn.revealed` names the tools
it loaded.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from forge.core.errors import ForgeError, UnsupportedProviderError
from forge.tools.parsing import (
    ToolCallFormatError,
    detect_provider,
    parse_tool_calls,
    resolve_provider,
    revealed_tools,
)
from forge.tools.streaming import ToolCallAccumulator
from forge.tools.turns import anthropic, bedrock, chat, gemini, responses
from forge.tools.turns._plain import plain, unwrap
from forge.tools.turns._stream import RunAll, RunOne, TurnStream
from forge.tools.turns._values import AssistantTurn, Delta, Turn
from forge.tools.values.calls import ToolCall

__all__ = [
    "AssistantTurn",
    "Delta",
    "RunAll",
    "RunOne",
    "TURN_PROVIDERS",
    "Turn",
    "TurnBuilder",
    "TurnStream",
    "aread_finished",
    "read_finished",
    "read_turn",
    "turn_provider",
]

#: The providers whose turns are rebuilt (MCP has no assistant turn to send back).
TURN_PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini", "bedrock", "mistral",
                  "ollama")  # fmt: skip


class _Builder(Protocol):
    def add(self, event: Any) -> str: ...
    def items(self, calls: Iterable[ToolCall]) -> list[dict[str, Any]]: ...


class _ChatItems:
    """Chat-shaped providers: the message rebuilt from the joined chunks."""

    def __init__(self, provider: str) -> None:
        self._provider = provider
        self._builder = chat.ChatBuilder(provider)

    def add(self, event: Any) -> str:
        return self._builder.add(event)

    def items(self, calls: Iterable[ToolCall]) -> list[dict[str, Any]]:
        message = chat.assistant_message(self._builder.message(), self._provider)
        return [chat.with_call_ids(message, calls) if self._provider != "ollama" else message]


_BUILDERS: dict[str, Callable[[str], _Builder]] = {
    "openai": _ChatItems,
    "mistral": _ChatItems,
    "ollama": _ChatItems,
    "openai-responses": lambda _: responses.ResponsesBuilder(),
    "anthropic": lambda _: anthropic.AnthropicBuilder(),
    "gemini": lambda _: gemini.GeminiBuilder(),
    "bedrock": lambda _: bedrock.BedrockBuilder(),
}


def _chat_items(response: Any, provider: str) -> list[dict[str, Any]]:
    message = plain(chat.chat_message(response), "the completion's message")
    return [chat.assistant_message(message, provider)]


_READERS: dict[str, Callable[[Any, str], list[dict[str, Any]]]] = {
    "openai": _chat_items,
    "mistral": _chat_items,
    "ollama": _chat_items,
    "openai-responses": lambda response, _: responses.items(response),
    "anthropic": lambda response, _: anthropic.items(response),
    "gemini": lambda response, _: gemini.items(response),
    "bedrock": lambda response, _: bedrock.items(response),
}

_TEXTS: dict[str, Callable[[list[dict[str, Any]]], str]] = {
    "openai": lambda turn: chat.content_text(turn[0].get("content")),
    "mistral": lambda turn: chat.content_text(turn[0].get("content")),
    "ollama": lambda turn: chat.content_text(turn[0].get("content")),
    "openai-responses": responses.text,
    "anthropic": anthropic.text,
    "gemini": gemini.text,
    "bedrock": bedrock.text,
}


def turn_provider(provider: str) -> str:
    """The canonical name of a provider whose turns can be rebuilt.

    Raises:
        UnsupportedProviderError: Not such a provider (MCP has no assistant turn).
    """
    name = resolve_provider(provider)
    if name not in _READERS:
        raise UnsupportedProviderError(provider, TURN_PROVIDERS)
    return name


def read_turn(response: Any, provider: str | None = None) -> AssistantTurn:
    """Read the model's turn out of a whole response.

    Args:
        response: The response (or the assistant message, content or output items) as
            the SDK returns it, a dict, or JSON text.
        provider: One of `TURN_PROVIDERS`; detected from the shape when ``None``.

    Raises:
        UnsupportedProviderError: ``provider`` is not one of `TURN_PROVIDERS`.
        ToolCallFormatError: The response is not in the provider's shape.
    """
    if isinstance(response, str | bytes | bytearray):
        try:
            response = json.loads(response)
        except (ValueError, RecursionError) as exc:
            raise ToolCallFormatError(f"the response text is not JSON: {exc}") from exc
    name = turn_provider(provider if provider is not None else detect_provider(response))
    calls = parse_tool_calls(response, name)
    with _shape_errors(f"the {name} response is not in a shape forge-tools reads",
                       "; pass the response as the SDK returns it"):  # fmt: skip
        found = _READERS[name](response, name)
        if name in ("openai", "mistral"):
            found = [chat.with_call_ids(found[0], calls)]
        text, revealed = _TEXTS[name](found), _revealed(found, name)
    return AssistantTurn(provider=name, items=tuple(found), calls=tuple(calls),
                         text=text, revealed=revealed)  # fmt: skip


class TurnBuilder:
    """Reads a streamed response into the model's turn, one chunk or event at a time.

    Args:
        provider: One of `TURN_PROVIDERS`; detected from the first chunk when ``None``.

    `add` takes each chunk or event (the SDK's objects, dicts or JSON text) and returns
    the text and the calls it added; `finish` returns the `AssistantTurn`.
    """

    __slots__ = ("_builder", "_calls", "provider")

    def __init__(self, provider: str | None = None) -> None:
        self.provider: str | None = None if provider is None else turn_provider(provider)
        self._calls = ToolCallAccumulator(self.provider)
        self._builder: _Builder | None = None
        if self.provider is not None:
            self._builder = _BUILDERS[self.provider](self.provider)

    def add(self, event: Any) -> Delta:
        """Take the next chunk or event.

        Raises:
            ToolCallFormatError: It is not in the provider's shape (or, for the first one
                without a provider given, in no provider's shape).
        """
        event = unwrap(event)
        builder = self._builder
        if builder is None:
            self.provider = turn_provider(detect_provider(event))
            self._calls = ToolCallAccumulator(self.provider)
            builder = self._builder = _BUILDERS[self.provider](self.provider)
        try:
            return Delta(builder.add(event), self._calls.add(event))
        except ForgeError:
            raise
        except (TypeError, ValueError, LookupError, AttributeError) as exc:
            raise ToolCallFormatError(
                f"a {self.provider} stream event is not in a shape forge-tools reads "
                f"({type(exc).__name__}: {str(exc)[:200]})"
            ) from exc

    def finish(self) -> AssistantTurn:
        """The model's turn, from everything added.

        Raises:
            ToolCallFormatError: Nothing was added and no provider was given, or what was
                added does not make a turn.
        """
        calls = self._calls.finish()
        if self._builder is None or self.provider is None:
            raise ToolCallFormatError(
                "the stream ended before its first event: there is no turn to read; "
                "pass the stream the SDK returned with stream=True"
            )
        with _shape_errors(f"the {self.provider} stream's events do not make a turn forge-tools "
                           "reads"):  # fmt: skip
            found = self._builder.items(calls)
            text, revealed = _TEXTS[self.provider](found), _revealed(found, self.provider)
        return AssistantTurn(provider=self.provider, items=tuple(found), calls=tuple(calls),
                             text=text, revealed=revealed)  # fmt: skip


@contextmanager
def _shape_errors(what: str, hint: str = "") -> Iterator[None]:
    """A reader's stumble on a shape it does not expect, as a `ToolCallFormatError` saying
    ``what`` went wrong (with the stumble) and ``hint``; our own errors pass through."""
    try:
        yield
    except ForgeError:
        raise
    except (TypeError, ValueError, LookupError, AttributeError) as exc:
        raise ToolCallFormatError(f"{what} ({type(exc).__name__}: {str(exc)[:200]}){hint}") from exc


def _revealed(found: list[dict[str, Any]], provider: str) -> tuple[str, ...]:
    """The tools the provider's tool search revealed, read from the rebuilt turn."""
    if provider == "anthropic":
        return tuple(name for message in found for name in revealed_tools(message, provider))
    return tuple(revealed_tools(found, provider))


def read_finished(response: Any, provider: str | None = None) -> AssistantTurn:
    """`read_turn`, also taking a stream to read to its end or a `TurnBuilder` to finish."""
    if isinstance(response, TurnBuilder):
        return response.finish()
    if isinstance(response, ToolCallAccumulator):
        raise TypeError(
            "a ToolCallAccumulator keeps only the calls, not the text and blocks the model's "
            "turn must send back: feed the stream to a TurnBuilder (the same add()) instead"
        )
    if _is_stream(response):
        builder = TurnBuilder(provider)
        for event in response:
            builder.add(event)
        return builder.finish()
    return read_turn(response, provider)


async def aread_finished(response: Any, provider: str | None = None) -> AssistantTurn:
    """`read_finished` for async code, also taking an async stream."""
    if hasattr(response, "__anext__"):
        builder = TurnBuilder(provider)
        async for event in response:
            builder.add(event)
        return builder.finish()
    return read_finished(response, provider)


def _is_stream(obj: Any) -> bool:
    """An SDK stream or generator of events (an SDK model iterates its fields: not one)."""
    if isinstance(obj, Iterator):
        return True
    return type(obj).__name__ == "EventStream" and hasattr(obj, "__iter__")  # botocore's
