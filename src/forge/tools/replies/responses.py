"""OpenAI Responses API ``function_call_output`` input items.

One ``{"type": "function_call_output", "call_id", "output"}`` item per result, to send
after the ``function_call`` items (or with ``previous_response_id``). No error flag: a
failure's output starts with ``Error: ``.
"""

from __future__ import annotations

from typing import Any

from forge.tools.replies._common import call_id, error_text, output_text
from forge.tools.values.results import ToolResult

__all__ = ["format_responses"]


def format_responses(results: list[ToolResult]) -> list[dict[str, Any]]:
    """``[{"type": "function_call_output", "call_id", "output"}, ...]``."""
    return [
        {
            "type": "function_call_output",
            "call_id": call_id(r, "openai-responses"),
            "output": output_text(r) if r.success else error_text(r, prefix=True),
        }
        for r in results
    ]
