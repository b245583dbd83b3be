"""What a running tool sends to its caller, and what it may ask: progress, logs, questions.

A tool that takes an `ExecutionContext` reports progress (`ExecutionContext.report_progress`),
logs (`ExecutionContext.log`), asks the user for input (`ExecutionContext.elicit`) and asks
the caller's model for a completion (`ExecutionContext.sample`). Each call becomes one of the
events below and goes to the matching callback of the context (``on_progress``, ``on_log``,
``on_elicit``, ``on_sample``). The MCP server sets them to the client's
``notifications/progress``, ``notifications/message``, ``elicitation/create`` and
``sampling/createMessage``; in Python the application sets them. A callback may be a plain
function or a coroutine function.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeAlias, TypeVar

__all__ = [
    "LOG_LEVELS",
    "ElicitRequest",
    "Elicitation",
    "LogLevel",
    "LogMessage",
    "Progress",
    "SampleRequest",
    "Sampled",
]

LogLevel: TypeAlias = Literal[
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
]
"""The syslog severities MCP log messages use, least severe first."""
LOG_LEVELS: tuple[LogLevel, ...] = (
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
)  # fmt: skip

T = TypeVar("T")


@dataclass(frozen=True, slots=True, kw_only=True)
class Progress:
    """How far a running tool has got."""

    done: float
    """Work done so far (steps, bytes, percent...); it should only grow."""
    total: float | None = None
    """The work there is in all, in the unit of ``done``, when known."""
    message: str | None = None
    """What the tool is doing now, for a person to read."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LogMessage:
    """One log message from a running tool."""

    level: LogLevel
    """Its severity."""
    message: Any
    """A string, or any JSON value."""
    logger: str | None = None
    """The name of the part of the tool that logged it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ElicitRequest:
    """A question for the user, with the shape of the answer."""

    message: str
    """What to ask, for a person to read."""
    schema: Mapping[str, Any]
    """The JSON schema of the answer: an object whose properties are strings, numbers,
    booleans or enums (what MCP clients can show as a form)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Elicitation(Generic[T]):
    """The user's answer to an `ElicitRequest`."""

    action: Literal["accept", "decline", "cancel"]
    """``accept`` (``content`` holds the answer), ``decline`` or ``cancel``."""
    content: dict[str, Any] | None = None
    """The answer, as JSON, when accepted."""
    data: T | None = None
    """The answer validated as the pydantic model the tool asked with, when it gave one."""

    @property
    def accepted(self) -> bool:
        """Whether the user answered (``action == "accept"``)."""
        return self.action == "accept"


@dataclass(frozen=True, slots=True, kw_only=True)
class SampleRequest:
    """A request for a completion from the caller's model."""

    messages: tuple[Mapping[str, str], ...]
    """The conversation: ``{"role": "user" | "assistant", "content": text}`` each."""
    system: str | None = None
    """A system prompt."""
    max_tokens: int = 512
    """The most tokens to generate."""
    temperature: float | None = None
    """Sampling temperature, when the tool cares."""
    stop: tuple[str, ...] = ()
    """Stop sequences."""
    model_hints: tuple[str, ...] = field(default=())
    """Model names the tool would prefer (the client decides)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Sampled:
    """The caller's model's completion."""

    text: str
    """The generated text."""
    model: str | None = None
    """The model that generated it, when the caller says."""
    stop_reason: str | None = None
    """Why generation stopped (``endTurn``, ``maxTokens``...), when the caller says."""
