"""`ExecutionContext`: what a running tool may know about its call."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, overload

if TYPE_CHECKING:
    import asyncio

    from pydantic import BaseModel

    from forge.tools.values.channel import (
        Elicitation,
        ElicitRequest,
        LogLevel,
        LogMessage,
        Progress,
        Sampled,
        SampleRequest,
    )

__all__ = ["ExecutionContext"]

M = TypeVar("M", bound="BaseModel")

PermissionPolicy: TypeAlias = Callable[..., Any]
"""A `forge.tools.execution.permissions.PermissionPolicy`.

Typed loosely here: a policy's request (`forge.tools.execution.permissions.PermissionRequest`)
holds a context and a tool, so the precise type lives in a layer above this one.
"""
Approver: TypeAlias = Callable[..., Any]
"""A `forge.tools.execution.permissions.Approver` (typed loosely, as `PermissionPolicy`)."""
ProgressCallback: TypeAlias = "Callable[[Progress], Any]"
LogCallback: TypeAlias = "Callable[[LogMessage], Any]"
ElicitCallback: TypeAlias = "Callable[[ElicitRequest], Any]"
"""Returns an `Elicitation` (or the answer as a mapping), or an awaitable of one."""
SampleCallback: TypeAlias = "Callable[[SampleRequest], Any]"
"""Returns a `Sampled` (or the text), or an awaitable of one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutionContext:
    """Context passed to tools that ask for it (a parameter annotated with this type).

    It is never part of a tool's parameters schema, so the model never sees it.

    ``timeout``, ``dry_run``, ``permissions`` and ``approve`` are not data for
    tools but per-call overrides of the engine's own settings (`ToolExecutor`'s
    ``dry_run``, ``permissions`` and ``approve``, and the timeout of its default
    ``context``) for the calls made with this context, one session's say. They
    are not a second mechanism: the engine applies them in the same steps. Each
    field says how it combines with the engine's setting.
    """

    working_dir: str = field(default_factory=os.getcwd)
    """The directory relative paths are resolved against."""
    session_id: str | None = None
    """The conversation or session the call belongs to."""
    dry_run: bool = False
    """Make these calls dry runs (the engine's ``dry_run``, per call): validate and check
    permissions, but do not run the handler. ``False`` keeps the engine's setting."""
    timeout: float = 120
    """Seconds a call may take when neither the call nor the tool sets a timeout."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Application data for tools."""
    permissions: PermissionPolicy | None = None
    """A policy for these calls, checked as well as the engine's ``permissions``
    (the stricter answer wins, so it can only restrict)."""
    approve: Approver | None = None
    """Answers the policies' ``ask`` for these calls, instead of the engine's ``approve``."""
    on_progress: ProgressCallback | None = None
    """Receives the tool's `report_progress` (the MCP server: ``notifications/progress``)."""
    on_log: LogCallback | None = None
    """Receives the tool's `log` messages (the MCP server: ``notifications/message``)."""
    on_elicit: ElicitCallback | None = None
    """Answers the tool's `elicit` questions (the MCP server: ``elicitation/create``)."""
    on_sample: SampleCallback | None = None
    """Answers the tool's `sample` requests (the MCP server: ``sampling/createMessage``)."""
    _loop: asyncio.AbstractEventLoop | None = field(
        default=None, init=False, repr=False, compare=False
    )
    """Where coroutine callbacks run when a sync tool calls them from a worker thread."""

    def __post_init__(self) -> None:
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, int | float):
            raise TypeError(f"timeout must be a number of seconds, got {self.timeout!r}")
        if not self.timeout > 0:
            raise ValueError(f"timeout must be positive, got {self.timeout!r}")
        if self.on_progress or self.on_log or self.on_elicit or self.on_sample:
            from forge.tools.values._channel import running_loop

            object.__setattr__(self, "_loop", running_loop())

    def replace(self, **changes: Any) -> ExecutionContext:
        """Return a copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    # -- talking to the caller while the tool runs -------------------------------------------

    async def report_progress(
        self, done: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Report progress to the caller (nothing happens when nobody listens)."""
        if self.on_progress is not None:
            from forge.tools.values._channel import deliver
            from forge.tools.values.channel import Progress

            await deliver(self.on_progress, Progress(done=done, total=total, message=message))

    def report_progress_sync(
        self, done: float, total: float | None = None, message: str | None = None
    ) -> None:
        """`report_progress` for sync tools (from any thread)."""
        if self.on_progress is not None:
            from forge.tools.values._channel import deliver_sync
            from forge.tools.values.channel import Progress

            event = Progress(done=done, total=total, message=message)
            deliver_sync(self.on_progress, event, self._loop, answer=None)

    async def log(self, level: LogLevel, message: Any, *, logger: str | None = None) -> None:
        """Send a log message to the caller (nothing happens when nobody listens).

        Raises:
            ValueError: ``level`` is not one of `forge.tools.values.channel.LOG_LEVELS`.
        """
        from forge.tools.values._channel import deliver, log_message

        event = log_message(level, message, logger)
        if self.on_log is not None:
            await deliver(self.on_log, event)

    def log_sync(self, level: LogLevel, message: Any, *, logger: str | None = None) -> None:
        """`log` for sync tools (from any thread)."""
        from forge.tools.values._channel import deliver_sync, log_message

        event = log_message(level, message, logger)
        if self.on_log is not None:
            deliver_sync(self.on_log, event, self._loop, answer=None)

    @overload
    async def elicit(self, message: str, schema: type[M]) -> Elicitation[M]: ...
    @overload
    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicitation[Any]: ...
    async def elicit(self, message: str, schema: Any) -> Elicitation[Any]:
        """Ask the user for input shaped by ``schema`` (a pydantic model class or a JSON schema).

        Returns:
            The answer: check ``accepted``; ``data`` is the model instance when a model was given.

        Raises:
            ClientCapabilityError: Nobody can answer (an MCP client without the elicitation
                capability, or no ``on_elicit`` callback).
            pydantic.ValidationError: The answer does not fit the model.
        """
        from forge.tools.values._channel import deliver, elicit_request, elicitation, no_callback

        request, model = elicit_request(message, schema)
        if self.on_elicit is None:
            raise no_callback("elicitation", "elicit", "on_elicit")
        return elicitation(await deliver(self.on_elicit, request), model)

    @overload
    def elicit_sync(self, message: str, schema: type[M]) -> Elicitation[M]: ...
    @overload
    def elicit_sync(self, message: str, schema: Mapping[str, Any]) -> Elicitation[Any]: ...
    def elicit_sync(self, message: str, schema: Any) -> Elicitation[Any]:
        """`elicit` for sync tools running on a worker thread."""
        from forge.tools.values._channel import (
            deliver_sync,
            elicit_request,
            elicitation,
            no_callback,
        )

        request, model = elicit_request(message, schema)
        if self.on_elicit is None:
            raise no_callback("elicitation", "elicit", "on_elicit")
        answer = deliver_sync(self.on_elicit, request, self._loop, answer="elicit")
        return elicitation(answer, model)

    async def sample(
        self, prompt: str | Sequence[Mapping[str, str]], *, system: str | None = None,
        max_tokens: int = 512, temperature: float | None = None, stop: Sequence[str] = (),
        model_hints: Sequence[str] = (),
    ) -> Sampled:  # fmt: skip
        """Ask the caller's model for a completion of ``prompt`` (text, or a conversation).

        Raises:
            ClientCapabilityError: Nobody can answer (an MCP client without the sampling
                capability, or no ``on_sample`` callback).
        """
        from forge.tools.values._channel import deliver, no_callback, sample_request, sampled

        request = sample_request(prompt, {
            "system": system, "max_tokens": max_tokens, "temperature": temperature,
            "stop": stop, "model_hints": model_hints,
        })  # fmt: skip
        if self.on_sample is None:
            raise no_callback("sampling", "sample", "on_sample")
        return sampled(await deliver(self.on_sample, request))

    def sample_sync(
        self, prompt: str | Sequence[Mapping[str, str]], *, system: str | None = None,
        max_tokens: int = 512, temperature: float | None = None, stop: Sequence[str] = (),
        model_hints: Sequence[str] = (),
    ) -> Sampled:  # fmt: skip
        """`sample` for sync tools running on a worker thread."""
        from forge.tools.values._channel import deliver_sync, no_callback, sample_request, sampled

        request = sample_request(prompt, {
            "system": system, "max_tokens": max_tokens, "temperature": temperature,
            "stop": stop, "model_hints": model_hints,
        })  # fmt: skip
        if self.on_sample is None:
            raise no_callback("sampling", "sample", "on_sample")
        return sampled(deliver_sync(self.on_sample, request, self._loop, answer="sample"))
