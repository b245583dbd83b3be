"""Decoding a model's tool-call arguments, repairing them only where that is safe.

Models send arguments as a JSON string (OpenAI, Mistral, streamed fragments) or as an
object. `decode_arguments` turns either into a dict and says what it had to do:

* valid JSON object: used as is;
* empty or blank text: ``{}`` (Anthropic and Bedrock stream nothing for a tool without
  parameters, and OpenAI sends ``""`` for one);
* JSON ``null``, or a JSON string holding a JSON object (double encoding): decoded and
  marked as repaired;
* a lone UTF-16 surrogate (``"\\ud83d"``: half of an emoji's escape), which no UTF-8 text
  can carry: replaced with U+FFFD, as in repaired text, and marked as repaired;
* text that is complete but not strict JSON (trailing commas, single quotes, Python
  ``True``/``None``, unquoted keys, comments, a Markdown code fence, stray text after the
  object): repaired with the ``json_repair`` library and marked as repaired;
* anything else is *not* guessed at: truncated text (an unclosed string, object or array:
  the model was cut off, so values or keys are missing), several objects run together
  (two calls merged into one), a JSON value that is not an object, text the repair turns
  into nothing, or text longer than ``MAX_REPAIR_CHARS`` (repair takes time that grows
  fast with nested garbage, on the caller's thread). The call then carries the problem,
  and executing it returns an ``invalid_json`` error result that quotes it, so the model
  can send the call again.

Arguments are never silently replaced by ``{}``.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from forge.core.text import article, shown

__all__ = ["Decoded", "decode_arguments"]

#: How much of the model's raw arguments an error message quotes.
QUOTE_CHARS = 300
#: The longest argument text that is repaired; longer text must be strict JSON.
MAX_REPAIR_CHARS = 32_768

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
        return _invalid(
            f"The arguments must be a JSON object, not {_kind(raw)}", shown(raw, QUOTE_CHARS)
        )
    try:
        value = fast_loads(raw)
    except (ValueError, RecursionError):
        pass
    else:
        if type(value) is dict:
            return Decoded(value, False, None)
    try:
        value = _loads(raw)
    except _JSONDecodeError as exc:
        return _decode_invalid(raw, exc)
    except RecursionError:
        return _invalid("The arguments are nested too deeply", raw)
    except ValueError:  # the only other one json.loads raises: an integer past the digit limit
        limit = sys.get_int_max_str_digits()
        return _invalid(f"The arguments hold an integer of more than {limit} digits", raw)
    if type(value) is dict:
        return _whole(value, raw)
    return _from_value(value, raw)


def fast_loads(text: str) -> Any:
    """``json.loads`` through pydantic-core's faster decoder, with the same result.

    Any text pydantic-core refuses goes to ``json.loads``, so what decodes and what it
    decodes to do not change; but text with a surrogate (pydantic-core refuses lone
    ones) raises ``ValueError``, for `decode_arguments` to say what it did with it.
    """
    try:
        return _from_json(text)
    except (ValueError, TypeError):  # TypeError: text that is not UTF-8 (a lone surrogate)
        if _SURROGATE.search(text):
            raise ValueError("the text holds a lone surrogate") from None
        return _loads(text)


_SURROGATE = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")


def _whole(value: dict[str, Any], raw: str) -> Decoded:
    """Strict JSON object: used as is, unless a string in it holds a lone surrogate."""
    if not _SURROGATE.search(raw):
        return Decoded(value, False, None)
    try:
        fixed = _without_lone_surrogates(value)
    except RecursionError:
        return _invalid("The arguments are nested too deeply", raw)
    return Decoded(fixed, fixed != value, None)


def _without_lone_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        if not any("\ud800" <= c <= "\udfff" for c in value):
            return value
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {_without_lone_surrogates(k): _without_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_lone_surrogates(v) for v in value]
    return value


def _from_json_or_loads() -> Callable[[str], Any]:
    try:
        from pydantic_core import from_json
    except ImportError:  # pragma: no cover - pydantic is a dependency
        return _loads
    return from_json


_from_json = _from_json_or_loads()


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
    if len(raw) > MAX_REPAIR_CHARS:  # repair is slow on large nested garbage (~1 min per MB)
        where = f"line {exc.lineno} column {exc.colno}"
        return _invalid(
            f"The arguments are not valid JSON ({exc.msg} at {where}), and at {len(raw)} "
            f"characters are too long to repair (the limit is {MAX_REPAIR_CHARS}); "
            "send them as strict JSON",
            raw,
        )
    masked, literals, unclosed = _mask_strings(raw)
    if unclosed:
        return _invalid(f"The arguments are truncated JSON ({unclosed} at the end)", raw)
    value = _repair(masked, literals)
    if _top_level_objects(masked) > 1 or (
        isinstance(value, list) and sum(isinstance(v, dict) for v in value) > 1
    ):  # the repair drops an empty object: "{}{...}" is two calls' arguments too
        return _invalid(
            "The arguments hold several JSON objects run together; send one call per object",
            raw,
        )
    if type(value) is not dict or (not value and _has_content(raw)):
        where = f"line {exc.lineno} column {exc.colno}"
        return _invalid(f"The arguments are not valid JSON ({exc.msg} at {where})", raw)
    return Decoded(value, True, None)


def _repair(masked: str, literals: list[str]) -> Any:
    """Repair text whose strings are masked; put the exact strings back (None: unsafe)."""
    try:
        value = _loads(_TRAILING_COMMA.sub(r"\1", masked))
    except (_JSONDecodeError, RecursionError):
        import json_repair

        try:
            value = json_repair.repair_json(masked, return_objects=True)
        except Exception:  # json_repair gives no guarantee for arbitrary input
            return None
    except ValueError:  # an integer past the digit limit: the repair would make it a string
        return None
    try:
        return _unmask(value, literals)
    except _Unsafe:
        return None


# Strings are masked before repair: json_repair decodes some escapes wrongly (``\\/``,
# ``\\f``, surrogate pairs, a ``\\\\`` before another escape), so the text it sees has
# none. Each string literal becomes a placeholder of private-use characters and is decoded
# here, exactly; a placeholder the repair split or merged makes the repair unsafe.
_OPEN, _CLOSE = "\ue000", "\ue001"
_PLACEHOLDER = re.compile(f"{_OPEN}(\\d+){_CLOSE}")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_QUOTE_AFTER = frozenset("{[,:")
_ESCAPES = {
    '"': '"', "'": "'", "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
    "r": "\r", "t": "\t", "a": "\a", "v": "\v", "0": "\0",
}  # fmt: skip
_HEX_LENGTH = {"u": 4, "x": 2, "U": 8}


class _Unsafe(Exception):
    """The text cannot be repaired safely (internal: caught in this module)."""


def _mask_strings(text: str) -> tuple[str, list[str], str]:
    """``(masked text, decoded strings, what is left open at the end or "")``.

    A single quote opens a string only where a Python-style literal can start (after
    ``{ [ , :``), so an apostrophe in prose around the JSON is left alone.
    """
    out: list[str] = []
    literals: list[str] = []
    stack: list[str] = []
    previous = ""
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if char == '"' or (char == "'" and previous in _QUOTE_AFTER):
            end, value = _read_string(text, index)
            if end < 0:
                return "", [], "an unclosed string"
            out.append(f'"{_OPEN}{len(literals)}{_CLOSE}"')
            literals.append(value)
            index, previous = end, '"'
            continue
        if char in "{[":
            stack.append(char)
        elif char in "}]" and stack:
            stack.pop()
        if not char.isspace():
            previous = char
        out.append(char)
        index += 1
    if stack:
        return "", [], "an unclosed object" if stack[-1] == "{" else "an unclosed array"
    return "".join(out), literals, ""


def _read_string(text: str, start: int) -> tuple[int, str]:
    """Decode the string literal at ``start``: ``(index after it, value)``, -1 if unclosed."""
    quote, index, size = text[start], start + 1, len(text)
    chars: list[str] = []
    while index < size:
        char = text[index]
        if char == quote:
            value = "".join(chars)
            if any("\ud800" <= c <= "\udfff" for c in value):
                value = value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
            return index + 1, value
        if char != "\\":
            chars.append(char)
            index += 1
            continue
        if index + 1 >= size:
            return -1, ""
        code = text[index + 1]
        width = _HEX_LENGTH.get(code, 0)
        digits = text[index + 2 : index + 2 + width]
        if width and len(digits) == width and all(c in _HEX for c in digits):
            number = int(digits, 16)
            chars.append(chr(number) if number <= 0x10FFFF else f"\\{code}{digits}")
            index += 2 + width
        else:
            chars.append(_ESCAPES.get(code, "\\" + code))
            index += 2
    return -1, ""


_HEX = frozenset("0123456789abcdefABCDEF")


def _unmask(value: Any, literals: list[str]) -> Any:
    if isinstance(value, str):
        if _OPEN not in value and _CLOSE not in value:
            return value
        found = _PLACEHOLDER.fullmatch(value)
        if found is None or int(found.group(1)) >= len(literals):
            raise _Unsafe
        return literals[int(found.group(1))]
    if isinstance(value, dict):
        return {_unmask(k, literals): _unmask(v, literals) for k, v in value.items()}
    if isinstance(value, list):
        return [_unmask(v, literals) for v in value]
    return value


def _top_level_objects(masked: str) -> int:
    """How many objects ``masked`` (text whose strings are masked) holds at the top level."""
    count = depth = 0
    for char in masked:
        if char in "{[":
            count += char == "{" and depth == 0
            depth += 1
        elif char in "}]" and depth:
            depth -= 1
    return count


def _has_content(raw: str) -> bool:
    """Whether ``raw`` is more than an empty object, give or take whitespace and commas."""
    return bool(raw.strip().strip("{}, \t\r\n"))


def _kind(value: Any) -> str:
    return _JSON_TYPES.get(type(value)) or article(type(value).__name__)


def _invalid(problem: str, raw: str) -> Decoded:
    return Decoded({}, False, f"{problem}. Received: {quote(raw)}")


def quote(raw: str, limit: int = QUOTE_CHARS) -> str:
    """Return ``raw`` shortened to ``limit`` characters, marking the cut."""
    if len(raw) <= limit:
        return raw
    return f"{raw[:limit]}... ({len(raw) - limit} more characters)"
