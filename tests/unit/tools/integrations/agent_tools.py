"""The tools every framework's agent runs in the adapter tests, and the executor they run on.

Four scenarios, one tool call each: a good call, bad arguments, a call the permission
policy denies, and a call that times out.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from forge.tools import ExecutionMetrics, RuleBasedPolicy, ToolExecutor, ToolRegistry, tool
from forge.tools.execution.permissions import Match

WEATHER = {"location": "Paris", "temp": 21, "unit": "c"}
GOOD = ("get_weather", {"location": "Paris"})
BAD = ("get_weather", {"location": "Paris", "unit": "kelvin"})
DENIED = ("delete_file", {"path": "/etc/passwd"})
SLOW = ("slow_search", {"query": "everything"})
DENY_REASON = "deleting files is not allowed here"


@tool
def get_weather(location: str, unit: Literal["c", "f"] = "c") -> dict[str, object]:
    """Get the current weather for a location.

    Args:
        location: City name.
        unit: Temperature unit.
    """
    return {"location": location, "temp": 21, "unit": unit}


@tool(annotations={"destructive": True})
def delete_file(path: str) -> str:
    """Delete a file."""
    raise AssertionError(f"a denied call ran: {path}")


@tool(timeout=0.05)
async def slow_search(query: str) -> str:
    """Search, slowly."""
    await asyncio.sleep(60)
    return query


def registry() -> ToolRegistry:
    """The three tools."""
    return ToolRegistry([get_weather, delete_file, slow_search])


def executor() -> tuple[ToolExecutor, ExecutionMetrics]:
    """An executor over them that denies destructive tools and counts every call."""
    metrics = ExecutionMetrics()
    deny = Match(annotations={"destructive": True}, reason=DENY_REASON)
    return ToolExecutor(
        registry(), permissions=RuleBasedPolicy(deny=[deny]), metrics=metrics
    ), metrics
