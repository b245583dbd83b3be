"""A function tool is found the same way before and after it is compiled (called, exported)."""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, Field

from forge.tools import ExecutionContext, Tool, tool
from forge.tools.search import SearchIndex


class Address(BaseModel):
    """A postal address."""

    city: str = Field(description="The city, spelled out")
    country: Literal["FR", "DE", "IT"] = "FR"


def read_file(
    path: Annotated[str, Field(description="Path of the spreadsheet to open")],
    mode: Literal["text", "binary"] = "text",
    ctx: ExecutionContext | None = None,
) -> str:
    """Read a file from disk."""
    return path


def ship(parcel_id: int, to: Address, express: bool = False) -> str:
    """Send a parcel.

    Args:
        parcel_id: The parcel's tracking number.
        to: Where it goes.
        express: Overnight delivery.
    """
    return str(parcel_id)


def convert(value: float, unit: Literal["celsius", "fahrenheit"]) -> float:
    """Convert a temperature."""
    return value


QUERIES = [
    "open the spreadsheet in binary mode",
    "send parcel 42 overnight to Paris",
    "what is 20 celsius in fahrenheit",
    "tracking number of my package",
    "city spelled out",
]


def tools() -> list[Tool]:
    return [tool(read_file), tool(ship), tool(convert)]


def ranking(found: list[Tool]) -> dict[str, tuple[list[int], list[list[float]]]]:
    index = SearchIndex(found)
    out = {}
    for query in QUERIES:
        candidates, features = index.candidates(query)
        out[query] = (candidates.tolist(), np.round(features, 12).tolist())
    return out


def test_the_same_candidates_and_features_before_and_after_compiling() -> None:
    lazy = tools()
    before = ranking(lazy)
    for each in lazy:
        each.compile()
    assert ranking(lazy) == before
    assert ranking(tools()) == before  # a fresh copy, never compiled


def test_descriptions_and_choices_of_a_lazy_tool_are_searchable() -> None:
    lazy = tools()
    found = SearchIndex(lazy).search("spreadsheet binary", limit=1)
    assert [t.name for t in found] == ["read_file"]
    assert lazy[2]._compiled is None  # plain types: its schema is built without a validator
