"""The mcp SDK's `MCPServer` over stdio with ten tools equivalent to ours (`bench_serve_start.py`).

The same names, descriptions and parameters as the ten bundled tools that ``forge-tools
serve`` lists when it is given nothing else; the bodies are trivial, as only start-up and
the first ``tools/list`` are timed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field


def get_stock_quote(
    symbol: Annotated[str, Field(description="Ticker symbol, e.g. AAPL")],
) -> dict[str, Any]:
    """Get the latest price of a stock by its ticker symbol (sample data)."""
    return {"symbol": symbol, "price": 189.5, "currency": "USD"}


def echo(message: Annotated[str, Field(description="The text to send back")]) -> dict[str, Any]:
    """Return the arguments unchanged, to test a tool-calling loop."""
    return {"message": message}


def add_note(
    title: Annotated[str, Field(description="A short title")],
    text: Annotated[str, Field(description="The note itself")],
) -> str:
    """Save a short note in the in-memory notebook service."""
    return title


def list_notes() -> list[str]:
    """List the titles of the notes saved in the notebook service."""
    return []


def exchange_rate(
    base: Annotated[str, Field(description="Three-letter currency code to convert from, e.g. EUR",
                               pattern="^[A-Z]{3}$")],
    symbols: Annotated[str, Field(description="Currency code(s) to convert to, comma-separated")],
) -> dict[str, Any]:  # fmt: skip
    """Get the latest exchange rate between two currencies (European Central Bank data)."""
    return {"base": base, "rates": {}}


def word_count(text: Annotated[str, Field(description="The text to measure.")]) -> dict[str, int]:
    """Count the words, lines and characters of a text."""
    return {"words": len(text.split())}


def convert_temperature(
    value: Annotated[float, Field(description="The temperature to convert.")],
    from_unit: Annotated[Literal["c", "f", "k"], Field(description="The unit of ``value``.")],
    to_unit: Annotated[Literal["c", "f", "k"], Field(description="The unit to convert to.")],
) -> float:
    """Convert a temperature between Celsius, Fahrenheit and Kelvin."""
    return value


def current_time(
    timezone: Annotated[str, Field(description="An IANA time zone name such as ``Europe/Paris``.")]
    = "UTC",
) -> str:  # fmt: skip
    """Return the current date and time in ISO 8601 format."""
    return timezone


def read_file(
    path: Annotated[str, Field(description="Path to the file to read")],
    encoding: Literal["utf-8", "ascii"] = "utf-8",
) -> str:
    """Read the contents of a text file in the examples directory."""
    return path


def list_directory(
    path: Annotated[str, Field(description="The directory, relative to the examples directory.")]
    = ".",
) -> list[str]:  # fmt: skip
    """List the entries of a directory in the examples directory, directories first."""
    return [path]


if __name__ == "__main__":
    server = MCPServer("sdk-peer", log_level="WARNING")
    for fn in (get_stock_quote, echo, add_note, list_notes, exchange_rate, word_count,
               convert_temperature, current_time):  # fmt: skip
        server.add_tool(fn)
    server.add_tool(read_file, name="read-file")
    server.add_tool(list_directory, name="list-directory")
    server.run("stdio")
