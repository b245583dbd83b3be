"""Tools served by `forge-tools serve --tools forge_test_tools:registry` in the MCP tests."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

from forge.tools import ToolRegistry, from_record, tool


@tool(placement="inline", annotations={"read_only": True, "idempotent": True, "title": "Add"})
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


@tool(timeout=0.5)
async def slow(seconds: float) -> str:
    """Sleep for a while, then answer.

    Args:
        seconds: How long to sleep.
    """
    await asyncio.sleep(seconds)
    return "done"


@tool
def blocking_sleep(seconds: float) -> str:
    """Sleep in a worker thread (a sync tool), then answer.

    Args:
        seconds: How long to sleep.
    """
    time.sleep(seconds)
    return "slept"


@tool
async def hang() -> str:
    """Never answer (until the process dies)."""
    await asyncio.Event().wait()
    return "unreachable"


@tool
def pid() -> int:
    """Return the server's process id."""
    return os.getpid()


def _stats(numbers: list[float]) -> dict[str, Any]:
    return {"count": len(numbers), "mean": sum(numbers) / len(numbers) if numbers else 0.0}


STATS_OUTPUT = {
    "type": "object",
    "properties": {"count": {"type": "integer"}, "mean": {"type": "number"}},
    "required": ["count", "mean"],
    "additionalProperties": False,
}

stats = from_record(
    {
        "name": "stats",
        "description": "Count and average a list of numbers.",
        "parameters": {
            "type": "object",
            "properties": {"numbers": {"type": "array", "items": {"type": "number"}}},
            "required": ["numbers"],
            "additionalProperties": False,
        },
        "output_schema": STATS_OUTPUT,
        "handler": _stats,
    }
)

broken_output = from_record(
    {
        "name": "broken_output",
        "description": "Claims an object output but returns a string.",
        "output_schema": STATS_OUTPUT,
        "handler": lambda _args: "not an object",
    }
)

numbers = from_record(
    {
        "name": "numbers",
        "description": "The first n positive integers (an array output schema).",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
        "output_schema": {"type": "array", "items": {"type": "integer"}},
        "handler": lambda args: list(range(1, args["n"] + 1)),
    }
)


@tool
def nothing() -> None:
    """Return nothing (None)."""


@tool(output_schema=False)
def listing() -> list[Any]:
    """Return a list (no output schema)."""
    return [1, "two", None]


@tool(output_schema=False)
def mapping() -> dict[str, Any]:
    """Return an object (no output schema)."""
    return {"a": 1, "b": [True]}


@tool
def fails(reason: str) -> str:
    """Raise ValueError with the reason.

    Args:
        reason: The message of the error.
    """
    raise ValueError(reason)


registry = ToolRegistry(
    [add, slow, blocking_sleep, hang, pid, stats, broken_output, numbers, nothing, listing,
     mapping, fails]
)  # fmt: skip


@tool
def register_echo(name: str) -> str:
    """Register a new tool called ``name`` that echoes its text (changes the tool list).

    Args:
        name: The new tool's name.
    """

    def echo(text: str) -> str:
        return text

    registry.register(from_record({"name": name, "description": "Echo the text.",
                                   "parameters": {"type": "object",
                                                  "properties": {"text": {"type": "string"}},
                                                  "required": ["text"]},
                                   "handler": echo}))  # fmt: skip
    return f"registered {name}"


registry.register(register_echo)
