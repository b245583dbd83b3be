"""Decoding a model's tool-call arguments, repairing them only where that is safe (TC-3).

Models send arguments as a JSON string (OpenAI, Mistral, streamed fragments) or as an
object. `decode_arguments` turns either into a dict and says what it had to do:

* valid JSON object: used as is;
* empty or blank text: ``{}`` (Anthropic and Bedrock stream nothing for a tool without
  parameters, and OpenAI sends ``""`` for one);
* JSON ``null``, or a JSON string holding a JSON object (double encoding): decoded and
  marked as repaired;
* text that is complete but not strict JSON (trailing commas, single quotes, Python
  ``True``/``None``, unquoted keys, comments, a Markdown code fence, stray text after the
  object): repaired with the ``json_repair`` library and marked as repaired;
* anything else is *not* guessed at: truncated text (an unclosed string, object or array:
  the model was cut off, so values or keys are missing), several objects run together
  (two calls merged into one), a JSON value that is not an object, or text the repair turns
  into nothing. The call then carries the problem, and executing it returns an
  ``invalid_json`` error result that quotes it, so the model can send the call again.

Arguments are never silently replaced by ``{}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from forge.tools.calls import ToolCall
    from forge.tools.results import ToolResult
    from forge.tools.tool import Tool

__all__ = ["Decoded", "decode_arguments", "invalid_json_result"]

#: How much of the model's raw arguments an error message quotes.
QUOTE_CHARS = 300

_JSON_TYPES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}
_loads = json.loads
_JSONDecodeError = json.JSONDecodeError


class Decoded(NamedTuple):
    """What `decode_arguments` made of a model's arguments."""

    arguments: dict[str, Any]
    """The arguments (``{}`` when ``error`` is set: they must not be used)."""
    repaired: bool
    """The text was not a JSON object as sent and was repaired."""
    error: str | None
    """Why the arguments could not be used, written for the model."""


_EMPTY = Decoded({}, False, None)


def decode_arguments(raw: Any) -> Decoded:
    """Turn a model's raw arguments (text, object or ``None``) into a dict.

    >>> decode_arguments('{"city": "Paris"}')
    Decoded(arguments={'city': 'Paris'}, repaired=False, error=None)
    >>> decode_arguments("{'city': 'Paris',}")
    Decoded(arguments={'city': 'Paris'}, repaired=True, error=None)
    >>> print(decode_arguments('{"city": "Par').error)
    The arguments are truncated JSON (an unclosed string at the end). Received: {"city": "Par
    """
    if raw is None:
        return _EMPTY
    if type(raw) is dict:
        return Decoded(raw, False, None)
    if isinstance(raw, Mapping):
        return Decoded(dict(raw), False, None)
    if isinstance(raw, bytes | bytearray):
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            return _invalid("The arguments are not UTF-8 text", repr(bytes(raw)))
    if not isinstance(raw, str):
        return _invalid(f"The arguments must be a JSON object, not {_kind(raw)}", repr(raw))
    try:
        value = _loads(raw)
    except _JSONDecodeError as exc:
        return _decode_invalid(raw, exc)
    except RecursionError:
        return _invalid("The arguments are nested too deeply", raw)
    if type(value) is dict:
        return Decoded(value, False, None)
    return _from_value(value, raw)


def _from_value(value: Any, raw: str) -> Decoded:
    """Valid JSON that is not an object."""
    if value is None:
        return Decoded({}, True, None)
    if isinstance(value, str):
        inner = decode_arguments(value)
        if inner.error is None and value.strip():
            return Decoded(inner.arguments, True, None)
    return _invalid(f"The arguments must be a JSON object, not {_kind(value)}", raw)


def _decode_invalid(raw: str, exc: json.JSONDecodeError) -> Decoded:
    if not raw.strip():
        return _EMPTY
    unclosed = _unclosed(raw)
    if unclosed:
        return _invalid(f"The arguments are truncated JSON ({unclosed} at the end)", raw)
    import json_repair

    try:
        value = json_repair.repair_json(raw, return_objects=True)
    except Exception:  # json_repair gives no guarantee for arbitrary input
        value = None
    problem = (
        f"The arguments are not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    )
    if isinstance(value, list) and sum(isinstance(v, dict) for v in value) > 1:
        return _invalid(
            "The arguments hold several JSON objects run together; send one call per object",
            raw,
        )
    if type(value) is not dict or (not value and _has_content(raw)):
        return _invalid(problem, raw)
    return Decoded(value, True, None)


def _unclosed(text: str) -> str:
    """Name what is left open at the end of ``text`` (string, object, array), or ``""``."""
    stack: list[str] = []
    quote = ""
    escaped = False
    for char in text:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "{[":
            stack.append(char)
        elif char in "}]" and stack:
            stack.pop()
    if quote:
        return "an unclosed string"
    if stack:
        return "an unclosed object" if stack[-1] == "{" else "an unclosed array"
    return ""


def _has_content(raw: str) -> bool:
    """Whether ``raw`` is more than an empty object, give or take whitespace and commas."""
    return bool(raw.strip().strip("{}, \t\r\n"))


def _kind(value: Any) -> str:
    return _JSON_TYPES.get(type(value), f"a {type(value).__name__}")


def _invalid(problem: str, raw: str) -> Decoded:
    return Decoded({}, False, f"{problem}. Received: {quote(raw)}")


def quote(raw: str, limit: int = QUOTE_CHARS) -> str:
    """Return ``raw`` shortened to ``limit`` characters, marking the cut."""
    if len(raw) <= limit:
        return raw
    return f"{raw[:limit]}... ({len(raw) - limit} more characters)"


def invalid_json_result(call: ToolCall, tool: Tool | None) -> ToolResult:
    """The ``invalid_json`` result for a call whose arguments could not be decoded."""
    from forge.tools.results import ErrorKind, ToolResult

    hint = _schema_hint(tool) if tool is not None else ""
    message = (
        f"Invalid JSON in the arguments of {call.name}: {call.argument_error}\n"
        f"Retrying can help: send the call again with the arguments as one complete JSON "
        f"object{hint}."
    )
    return ToolResult.fail(message, error_kind=ErrorKind.INVALID_JSON)


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
