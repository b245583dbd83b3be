"""The tool list: summaries, order, filters, search and counts (`Catalog.tools`)."""

from __future__ import annotations

import pytest

from forge.catalog import BadRequestError, Catalog
from forge.catalog.listing import first_line
from forge.tools import ToolRegistry, tool


def test_the_list_summarises_every_tool_in_registration_order(catalog: Catalog) -> None:
    """Each tool has its name, first description line, category, tags and hints."""
    listing = catalog.tools()
    assert [t["name"] for t in listing["tools"]] == catalog.registry.names()
    echo = listing["tools"][0]
    assert echo == {
        "name": "echo", "display_name": "echo", "summary": "Repeat a text back.",
        "category": "utility", "tags": ["text", "demo"], "version": "1.2.0",
        "deprecated": False, "destructive": False, "read_only": True,
    }  # fmt: skip
    wipe = next(t for t in listing["tools"] if t["name"] == "wipe")
    assert wipe["destructive"] is True
    assert listing["version"] == catalog.registry.version


def test_categories_and_tags_are_counted_over_the_whole_registry(catalog: Catalog) -> None:
    """Counts cover every tool, whatever the filter."""
    listing = catalog.tools(category="database")
    assert {"name": "utility", "count": 2} in listing["categories"]
    assert listing["tags"][0] == {"name": "admin", "count": 2}
    assert [t["name"] for t in listing["tools"]] == ["wipe"]


def test_filters_by_category_alias_and_by_every_tag(catalog: Catalog) -> None:
    """A category alias is understood; several tags must all be present."""
    assert [t["name"] for t in catalog.tools(tags=["admin"])["tools"]] == ["wipe", "forbidden"]
    assert [t["name"] for t in catalog.tools(tags=["admin", "orders"])["tools"]] == []
    assert [t["name"] for t in catalog.tools(category="UTILITY")["tools"]] == ["echo", "explode"]


def test_an_unknown_category_is_a_bad_request_naming_the_valid_ones(catalog: Catalog) -> None:
    """The message names the parameter and the categories there are."""
    with pytest.raises(BadRequestError, match=r"'category'.*use one of"):
        catalog.tools(category="nope")


def test_search_uses_the_registrys_own_order(catalog: Catalog) -> None:
    """With ``q`` the tools come as ``registry.search`` ranks them."""
    expected = [t.name for t in catalog.registry.search("place an order", limit=10)]
    assert [t["name"] for t in catalog.tools(q="place an order")["tools"]] == expected
    assert expected[0] == "place_order"
    assert catalog.tools(q="   ")["tools"] == catalog.tools()["tools"]


def test_the_list_follows_registry_changes() -> None:
    """A tool registered later is listed at once (the cache is per registry version)."""
    registry = ToolRegistry()
    shelf = Catalog(registry)
    assert shelf.tools()["tools"] == []

    @tool
    def later() -> str:
        """Registered later.

        More text.
        """
        return "x"

    registry.register(later)
    assert [t["summary"] for t in shelf.tools()["tools"]] == ["Registered later."]
    shelf.close()


@pytest.mark.parametrize(
    ("text", "line"), [("", ""), ("\n\n  two  \nthree", "two"), ("one", "one")]
)
def test_first_line_skips_blank_lines(text: str, line: str) -> None:
    """The summary is the first line that has text."""
    assert first_line(text) == line
