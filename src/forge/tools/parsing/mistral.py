"""Mistral tool calls: the OpenAI Chat shape, with arguments as text or an object.

Accepted: a ``ChatCompletionResponse``, a stream ``CompletionEvent`` (its ``data``), a
message, a list of tool calls or one tool call; as dicts or ``mistralai`` objects.
"""

from __future__ import annotations

from typing import Any

from forge.tools.parsing import openai
from forge.tools.parsing._common import field
from forge.tools.values.calls import ToolCall

__all__ = ["parse"]


def parse(obj: Any) -> list[ToolCall]:
    """Return the function calls in a Mistral response, message or list of calls."""
    if not isinstance(obj, list | tuple):
        data = field(obj, "data")
        if data is not None and field(obj, "choices") is None:
            obj = data
    return openai.parse(obj)
