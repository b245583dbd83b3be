"""Tools with typed returns, served by `forge-tools serve --tools typed_tools:registry`."""

from __future__ import annotations

from typing import TypedDict

from pydantic import BaseModel, Field

from forge.tools import ToolRegistry, tool


class Weather(BaseModel):
    """The weather in a city."""

    city: str
    temp_c: float = Field(alias="tempC")


class Totals(TypedDict):
    count: int
    total: float


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def weather(city: str) -> Weather:
    """The weather in a city."""
    return Weather(city=city, tempC=21.5)


@tool
def totals(numbers: list[float]) -> Totals:
    """Count and sum numbers."""
    return {"count": len(numbers), "total": sum(numbers)}


@tool
def forecast(days: int) -> list[Weather]:
    """The weather for the next days."""
    return [Weather(city="Paris", tempC=20.0 + day) for day in range(days)]


@tool
def lookup(found: bool) -> Weather | None:
    """A weather report, if there is one."""
    return Weather(city="Oslo", tempC=-3.0) if found else None


@tool
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


@tool
def liar() -> int:
    """Claims an int, returns text."""
    return "three"  # type: ignore[return-value]


@tool(output_schema=False)
def untyped_listing() -> list[int]:
    """A list without an output schema."""
    return [1, 2]


registry = ToolRegistry([add, weather, totals, forecast, lookup, greet, liar, untyped_listing])
