"""Helpers the per-provider readers share: plain copies, text, argument objects."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from forge.tools.parsing import ToolCallFormatError, field, to_plain

__all__ = ["block_order", "field", "json_object", "plain", "plain_list", "unwrap"]


def plain(obj: Any, where: str) -> dict[str, Any]:
    """A JSON-like dict copy of an SDK object or mapping (wire names, no ``None`` fields).

    Raises:
        ToolCallFormatError: ``obj`` is neither.
    """
    value = to_plain(obj)
    if value is not obj and isinstance(value, dict):
        return value  # a fresh dump of an SDK object: nobody else holds it
    if isinstance(value, Mapping):
        return copy.deepcopy(dict(value))
    raise ToolCallFormatError(
        f"{where} is {type(obj).__name__} {obj!r:.80}, not an object; pass the response "
        "as the provider's SDK returns it, or its JSON"
    )


def plain_list(value: Any, where: str) -> list[dict[str, Any]]:
    """`plain` of each element of a list (``None`` gives ``[]``)."""
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise ToolCallFormatError(f"{where} is {type(value).__name__}, not a list")
    return [plain(element, f"an element of {where}") for element in value]


def text_of(part: Any, where: str) -> str:
    """The ``text`` of a part or block (``""`` when it has none)."""
    value = part.get("text")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ToolCallFormatError(f"the text of {where} is {type(value).__name__}, not a string")
    return value


def json_object(text: str) -> dict[str, Any] | None:
    """The JSON object ``text`` holds, or ``None`` when it holds none."""
    try:
        value = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def block_order(index: Any) -> tuple[bool, int]:
    """A sort key for content block indexes: integers in order, then any malformed ones
    (a missing index, text) in the order they came (the sort is stable)."""
    if isinstance(index, int) and not isinstance(index, bool):
        return False, index
    return True, 0


def unwrap(event: Any) -> Any:
    """The chunk inside a wrapping event: JSON text decoded, an OpenAI helper's ``chunk``.

    Raises:
        ToolCallFormatError: The text is not JSON.
    """
    if isinstance(event, str | bytes | bytearray):
        try:
            return json.loads(event)
        except (ValueError, RecursionError) as exc:
            raise ToolCallFormatError(f"the stream event text is not JSON: {exc}") from exc
    if field(event, "type") == "chunk":  # ChatCompletionStreamManager's ChunkEvent
        inner = field(event, "chunk")
        if inner is not None:
            return inner
    return event
