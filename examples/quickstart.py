"""Define one tool in several styles, register them and run calls a model might make.

Run with: .venv/bin/python examples/quickstart.py
"""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import BaseModel, Field

from forge.tools import ToolCall, ToolRegistry, create_tool, tool


@tool(category="web", tags=["weather"])
def get_weather(location: str, unit: Literal["c", "f"] = "c") -> dict[str, object]:
    """Get the current weather for a location.

    Args:
        location: City name, e.g. "Paris".
        unit: Temperature unit.
    """
    return {"location": location, "temperature": 21 if unit == "c" else 70, "unit": unit}


class ForecastInput(BaseModel):
    """Arguments of the forecast tool."""

    location: str = Field(description='City name, e.g. "Paris".')
    days: int = Field(default=3, ge=1, le=10, description="How many days ahead.")


forecast = (
    create_tool()
    .name("get_forecast")
    .description("Get the weather forecast for the next days.")
    .category("web")
    .schema(ForecastInput)
    .implement(lambda args: [f"{args.location}: sunny"] * args.days)
    .build()
)

hello = {
    "name": "hello",
    "description": "Say hello to someone.",
    "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
    "handler": lambda name="world": f"Hello, {name}!",
}


def main() -> None:
    """Register the tools and run a batch of calls, including two bad ones."""
    registry = ToolRegistry([get_weather, forecast, hello])
    print("tools:", registry.names())
    print("schema:", registry.get_or_raise("get_weather").parameters)
    calls = [
        ToolCall("1", "get_weather", {"location": "Paris"}),
        ToolCall("2", "get_forecast", {"location": "Oslo", "days": 2}),
        ToolCall("3", "get_weather", {"location": "Rome", "unit": "kelvin"}),
        ToolCall("4", "get_wether", {"location": "Rome"}),
    ]
    for result in asyncio.run(registry.aexecute_all(calls)):
        print(result.call_id, "ok " if result.success else "err", result.output or result.error)


if __name__ == "__main__":
    main()
