"""Failed results written for the model: one builder per `ErrorKind` (SPEC TC-3a).

Every failure a model can cause becomes a `ToolResult` whose ``error`` says what
was wrong, shows the relevant part of the schema for argument errors, and says
whether retrying can help. ``metadata["retryable"]`` carries the same advice
for programs. No traceback, exception repr or file path is included unless the
tool opts in with ``error_details="traceback"``, and every message is cut to
`MAX_MESSAGE_CHARS`.

The registry's ``execute_all`` and the `ToolExecutor` build their failures
here, so every entry point speaks the same contract.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from forge.tools.model.tool import ErrorDetails
from forge.tools.values.results import ErrorKind, ToolResult

if TYPE_CHECKING:
    from forge.core.errors import ToolDefinitionError, ToolValidationError
    from forge.tools.model.tool import Tool
    from forge.tools.values.calls import ToolCall

__all__ = [
    "MAX_MESSAGE_CHARS",
    "ErrorDetails",
    "bad_content",
    "bad_output",
    "cancelled",
    "crashed",
    "denied",
    "dry_run",
    "invalid_arguments",
    "invalid_json",
    "invalid_json_result",
    "limit",
    "message_of",
    "misconfigured",
    "no_slot",
    "timeout",
    "tool_error",
    "unknown_tool",
]

MAX_MESSAGE_CHARS = 2000
"""The longest ``error`` a failed result carries; longer text is cut and ends with ``...``."""
_EXCERPT_CHARS = 700
_LISTED_TOOLS = 50
_SUGGEST_AMONG = 2000

"""How much of a handler's exception reaches the model.

``message`` (the default): the exception's class name and message. ``type``:
the class name only, for tools whose messages may carry secrets or paths.
``traceback``: the message plus the traceback, for tools that opt in.
"""


def limit(text: str, max_chars: int = MAX_MESSAGE_CHARS) -> str:
    """Cut ``text`` to ``max_chars``, marking the cut with ``...``."""
    return text if len(text) <= max_chars else text[: max_chars - 3] + "..."


def _fail(name: str, message: str, kind: ErrorKind, retryable: bool, **metadata: Any) -> ToolResult:
    """The failed result of a call of ``name``, tagged with the tool's name."""
    failed = ToolResult.fail(limit(message), error_kind=kind, retryable=retryable, **metadata)
    return failed.for_call(None, name)


def unknown_tool(name: str, available: Sequence[str]) -> ToolResult:
    """No tool has this name: name the closest ones and list what exists."""
    import difflib

    shown = ", ".join(available[:_LISTED_TOOLS]) + (
        ", ..." if len(available) > _LISTED_TOOLS else ""
    )
    # difflib is quadratic-ish: past a few thousand tools a suggestion costs more than it helps
    close = (
        difflib.get_close_matches(str(name)[:200], list(available), n=3)
        if (available and len(available) <= _SUGGEST_AMONG)
        else []
    )
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return _fail(
        str(name),
        f"Unknown tool: {name}.{hint} Call one of the available tools: {shown or '(none)'}.",
        ErrorKind.UNKNOWN_TOOL,
        bool(available),
    )


def invalid_json(name: str, detail: str, hint: str = "") -> ToolResult:
    """The arguments text is not valid JSON (``hint`` lists the keys the tool takes)."""
    return _fail(
        name,
        f"Invalid JSON in the arguments of {name}: {detail}\n"
        "Retrying can help: send the call again with the arguments as one complete JSON "
        f"object{hint}.",
        ErrorKind.INVALID_JSON,
        True,
    )


def invalid_arguments(
    name: str, exc: ToolValidationError, parameters: Mapping[str, Any] | None = None
) -> ToolResult:
    """The arguments do not match the schema: every bad field, and the schema they break."""
    details = "; ".join(str(e) for e in exc.errors) or "the arguments were rejected"
    excerpt = schema_excerpt(parameters, [e.path for e in exc.errors]) if parameters else ""
    return _fail(
        name,
        f"Invalid arguments for tool {name!r}: {details}."
        + (f" {excerpt}" if excerpt else "")
        + " Fix the arguments and call again.",
        ErrorKind.INVALID_ARGUMENTS,
        True,
        errors=[{"path": e.path, "kind": e.kind, "message": e.message} for e in exc.errors],
    )


def schema_excerpt(parameters: Mapping[str, Any], paths: Iterable[str]) -> str:
    """The part of a parameters schema that the bad fields concern, as compact JSON."""
    properties = parameters.get("properties")
    if not isinstance(properties, Mapping):
        return ""
    names = {p.split(".", 1)[0] for p in paths}
    involved = {n: properties[n] for n in properties if n in names}
    parts = []
    if involved:
        parts.append("Expected: " + _compact(involved))
    required = parameters.get("required") or []
    if required:
        parts.append("required: " + ", ".join(str(r) for r in required))
    if names - set(properties) or not involved:
        parts.append("allowed parameters: " + (", ".join(properties) or "(none)"))
    return limit("; ".join(parts) + ".", _EXCERPT_CHARS) if parts else ""


def _compact(value: Any) -> str:
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def denied(name: str, reason: str | None) -> ToolResult:
    """A permission policy or a person refused the call."""
    because = f": {reason.rstrip('.')}" if reason else ""
    return _fail(
        name,
        f"Permission denied for tool {name!r}{because}. The tool did not run. Do not retry the "
        "same call; choose another approach or ask the user.",
        ErrorKind.DENIED,
        False,
    )


def timeout(name: str, seconds: float) -> ToolResult:
    """The call did not finish within its timeout."""
    return _fail(
        name,
        f"Tool {name!r} did not finish within {seconds:g} s. Retrying the same call may time "
        "out again; try a smaller request.",
        ErrorKind.TIMEOUT,
        True,
        timeout=seconds,
    )


def no_slot(name: str, seconds: float, limit: int) -> ToolResult:
    """The call's deadline passed while it waited for a concurrency slot (it never started)."""
    return _fail(
        name,
        f"Tool {name!r} did not start within {seconds:g} s: its limit of {limit} call"
        f"{'s' if limit != 1 else ''} at a time (max_concurrency) was taken by calls still "
        "running. Retry later.",
        ErrorKind.TIMEOUT,
        True,
        timeout=seconds,
        max_concurrency=limit,
    )


def cancelled(name: str) -> ToolResult:
    """The call was cancelled before it finished (not a tool error)."""
    return _fail(
        name,
        f"The call to tool {name!r} was cancelled before it finished. Do not retry unless asked.",
        ErrorKind.CANCELLED,
        False,
    )


def tool_error(tool: Tool, exc: BaseException, details: ErrorDetails | None = None) -> ToolResult:
    """The handler raised: the exception's type and (by default) message, never its repr."""
    level = details or tool.error_details
    trace = _traceback(exc) if level == "traceback" else None
    return exception_failure(tool.name, type(exc).__name__, message_of(exc), trace, level)


def message_of(exc: BaseException) -> str:
    """``str(exc)``, or a note when the exception's own ``__str__`` fails."""
    try:
        return str(exc)
    except Exception as broken:
        return f"(its message could not be read: {type(broken).__name__})"


def exception_failure(
    name: str,
    type_name: str,
    message: str,
    traceback: str | None,
    details: ErrorDetails,
) -> ToolResult:
    """A handler failure described by its parts (also used for process-isolated tools).

    The advice follows the exception's kind: a service that could not be reached is
    worth retrying later, a resource exhausted needs a smaller request, anything else
    may be the arguments' fault.
    """
    advice, retryable = _advice(type_name)
    text = f"Tool {name!r} failed with {type_name}. {advice}"
    if details != "type" and message:
        text += f" Error: {message}"
    if details == "traceback" and traceback:
        text += f"\n{traceback}"
    return _fail(name, text, ErrorKind.TOOL_ERROR, retryable, exception_type=type_name)


# Exception names (builtin, socket, httpx, requests, aiohttp) that mean a service is unreachable.
_UNREACHABLE = frozenset(
    {
        "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
        "ConnectionAbortedError", "BrokenPipeError", "TimeoutError", "gaierror", "herror",
        "URLError", "ConnectError", "ConnectTimeout", "ReadTimeout", "WriteTimeout",
        "PoolTimeout", "ReadError", "WriteError", "RemoteProtocolError", "NetworkError",
        "ClientConnectorError", "ServerDisconnectedError", "IncompleteRead",
    }
)  # fmt: skip
_EXHAUSTED = frozenset({"MemoryError", "RecursionError", "OverflowError"})


def _advice(type_name: str) -> tuple[str, bool]:
    if type_name in _UNREACHABLE:
        return (
            "A service the tool needs could not be reached or stopped answering; retrying "
            "the same call later may help, different arguments will not.",
            True,
        )
    if type_name in _EXHAUSTED:
        return "The request was too large for the tool; retry with a smaller one.", True
    return "Retrying with different arguments may help.", True


def crashed(
    name: str, why: str, *, type_name: str = "ProcessError", smaller: bool = False
) -> ToolResult:
    """The worker running the call died (its process exited, was killed, or its node left).

    ``type_name`` names what reported it; ``smaller``: it was killed for running out
    of memory, so a smaller request may pass.
    """
    advice = (
        "A smaller request may succeed."
        if smaller
        else "The arguments did not cause this; do not retry with different ones. Retrying "
        "the same call may fail the same way."
    )
    return _fail(
        name,
        f"Tool {name!r} stopped without a result: {why}. {advice}",
        ErrorKind.TOOL_ERROR,
        smaller,
        exception_type=type_name,
        crashed=True,
    )


def _traceback(exc: BaseException) -> str:
    import traceback

    try:
        return "".join(traceback.format_exception(exc)).rstrip()
    except Exception:
        return message_of(exc)


def misconfigured(name: str, exc: ToolDefinitionError) -> ToolResult:
    """The tool's definition cannot be compiled: the model cannot fix this."""
    return _fail(
        name,
        f"Tool {name!r} is unavailable: its definition is invalid. Do not retry it.",
        ErrorKind.TOOL_ERROR,
        False,
        definition_error=exc.message,
    )


def bad_output(name: str, detail: str) -> ToolResult:
    """The handler returned something that cannot be sent to a model as JSON."""
    return _fail(
        name,
        f"Tool {name!r} returned a value that cannot be sent as JSON ({detail}). "
        "This is a bug in the tool; do not retry it.",
        ErrorKind.TOOL_ERROR,
        False,
    )


def bad_content(name: str, type_name: str, exc: Exception) -> ToolResult:
    """The handler returned content (a path, an image, ...) that cannot be read or sent."""
    return _fail(
        name,
        limit(
            f"Tool {name!r} returned {type_name} content that cannot be sent: {exc}. "
            "This is a fault in the tool or its files; retrying will not help.",
            400,
        ),
        ErrorKind.TOOL_ERROR,
        False,
    )


def dry_run(name: str) -> ToolResult:
    """A successful dry run: lookup, validation and permissions passed; the handler did not run."""
    return ToolResult.ok(None, dry_run=True).for_call(None, name)


def invalid_json_result(call: ToolCall, tool: Tool | None) -> ToolResult:
    """The ``invalid_json`` result for a call whose arguments could not be decoded."""
    hint = _schema_hint(tool) if tool is not None else ""
    return invalid_json(call.name, call.argument_error or "", hint)


def _schema_hint(tool: Tool) -> str:
    """``" with the keys query (string, required), limit (integer)"`` from the schema."""
    try:
        schema = tool.parameters
    except Exception:  # a misconfigured tool is reported when it runs
        return ""
    props = schema.get("properties") or {}
    if not isinstance(props, Mapping) or not props:
        return " (this tool takes no arguments: send {})" if not props else ""
    required = set(schema.get("required") or ())
    parts = []
    for name, sub in list(props.items())[:20]:
        kind = sub.get("type") if isinstance(sub, Mapping) else None
        label = "/".join(kind) if isinstance(kind, list) else (kind or "any")
        parts.append(f"{name} ({label}{', required' if name in required else ''})")
    more = ", ..." if len(props) > 20 else ""
    return " with the keys " + ", ".join(parts) + more
