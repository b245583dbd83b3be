"""`ToolResult`, the outcome of one call, and the kinds of failure a model can cause."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge.tools.values.output_limit import OutputLimit

__all__ = ["ErrorKind", "ToolResult"]


class ErrorKind(StrEnum):
    """Why a call failed, in terms a model (and its developer) can act on."""

    INVALID_JSON = "invalid_json"
    UNKNOWN_TOOL = "unknown_tool"
    INVALID_ARGUMENTS = "invalid_arguments"
    DENIED = "denied"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    TOOL_ERROR = "tool_error"


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    """The outcome of one tool call."""

    success: bool
    """Whether the call succeeded."""
    output: Any = None
    """The handler's return value (on success)."""
    error: str | None = None
    """What went wrong, written for the model (on failure)."""
    error_kind: ErrorKind | None = None
    """Why it failed (on failure)."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Extra facts about the call (timings, flags such as ``dry_run``)."""
    call_id: str | None = None
    """The id of the `ToolCall` this result answers, if any."""
    tool_name: str | None = None
    """The tool that produced the result."""
    output_limit: OutputLimit | None = None
    """How much of the output goes to the model, set by the tool or executor (``None``: the
    default); ``output`` itself is always whole (see `forge.tools.values.output_limit`)."""

    @classmethod
    def ok(cls, output: Any = None, **metadata: Any) -> ToolResult:
        """Return a successful result holding ``output``."""
        return _make(cls, True, output, None, None, metadata, None, None)

    @classmethod
    def fail(
        cls, error: str, *, error_kind: ErrorKind | str = ErrorKind.TOOL_ERROR, **metadata: Any
    ) -> ToolResult:
        """Return a failed result with a message for the model and its kind."""
        return _make(cls, False, None, error, ErrorKind(error_kind), metadata, None, None)

    @classmethod
    def succeeded(
        cls, output: Any, tool_name: str | None, call_id: str | None = None
    ) -> ToolResult:
        """Return a successful result of ``tool_name`` answering ``call_id``, no metadata.

        The engine builds one on every call; this is `ok` without the keyword handling.
        """
        result = _new(cls)
        fields = result.__dict__
        fields["success"] = True
        fields["output"] = output
        fields["tool_name"] = tool_name
        if call_id is not None:
            fields["call_id"] = call_id
        return result

    def for_call(self, call_id: str | None, tool_name: str | None) -> ToolResult:
        """Return this result tagged with the call it answers."""
        result = _new(type(self))
        _set_dict(result, {**self.__dict__, "call_id": call_id, "tool_name": tool_name})
        return result

    def replace(self, **changes: Any) -> ToolResult:
        """Return a copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Return the result as a plain dict (the output is not converted)."""
        out: dict[str, Any] = {"success": self.success}
        if self.success:
            out["output"] = self.output
        else:
            out["error"] = self.error
            out["error_kind"] = str(self.error_kind) if self.error_kind else None
        if self.metadata:
            out["metadata"] = dict(self.metadata)
        if self.call_id is not None:
            out["call_id"] = self.call_id
        if self.tool_name is not None:
            out["tool_name"] = self.tool_name
        return out


# Results are built on every call. The frozen dataclass __init__ sets each field
# through object.__setattr__; filling the instance __dict__ directly costs a third of
# it. Fields left at their defaults fall back to the class attributes, and an empty
# ``metadata`` is created on first read (`_EmptyUntilRead`).
_new = object.__new__
_set_dict = ToolResult.__dict__["__dict__"].__set__


def _make(  # noqa: PLR0917 - positional on purpose: this is the per-call hot path
    cls: type[ToolResult],
    success: bool,
    output: Any,
    error: str | None,
    kind: ErrorKind | None,
    metadata: dict[str, Any],
    call_id: str | None,
    tool_name: str | None,
) -> ToolResult:
    result = _new(cls)
    fields = {
        "success": success, "output": output, "error": error, "error_kind": kind,
        "call_id": call_id, "tool_name": tool_name,
    }  # fmt: skip
    if metadata:
        fields["metadata"] = metadata
    _set_dict(result, fields)
    return result


class _EmptyUntilRead:
    """The class attribute behind ``metadata``: a result built without metadata gets its
    own empty dict on first read (an instance value, once set, takes precedence)."""

    def __get__(self, result: ToolResult | None, owner: type[ToolResult]) -> Any:
        if result is None:
            return self
        return result.__dict__.setdefault("metadata", {})


ToolResult.metadata = _EmptyUntilRead()  # type: ignore[assignment]
