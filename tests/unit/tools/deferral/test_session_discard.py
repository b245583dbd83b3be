"""`DeferredSession.discard`: withdrawn tools leave the active set and can be found again."""

from __future__ import annotations

from forge.tools import Tool, ToolRegistry, from_record, tool


@tool
def get_weather(city: str) -> str:
    """Get the weather forecast for a city."""
    return city


@tool
def convert_currency(amount: float) -> float:
    """Convert an amount of money into another currency."""
    return amount


@tool
def clock() -> str:
    """Tell the time."""
    return "12:00"


def test_discard_drops_revealed_tools_only_and_tells_on_change() -> None:
    """Revealed names leave (on_change is told once); pinned and unknown names stay as they are."""
    registry = ToolRegistry([get_weather, convert_currency, clock])
    seen: list[list[str]] = []
    session = registry.deferred("mcp", pinned=["clock"], on_change=seen.append)
    session.reveal(["get_weather", "convert_currency"])
    seen.clear()
    assert session.discard(["get_weather", "clock", "nope", "get_weather"]) == ["get_weather"]
    assert session.active() == ["clock", "convert_currency"]
    assert seen == [["clock", "convert_currency"]]
    assert session.discard(["get_weather"]) == []
    assert seen == [["clock", "convert_currency"]]  # nothing changed: not told again


def test_a_discarded_tool_is_found_again_by_a_search() -> None:
    """After a discard the tool is a search away, like any hidden tool."""
    registry = ToolRegistry([get_weather, convert_currency])
    session = registry.deferred("mcp")
    session.reveal(["get_weather"])
    session.discard(["get_weather"])
    assert "get_weather" not in session.active()
    found = [t.name for t in session.search("weather forecast for a city")]
    assert "get_weather" in found
    assert "get_weather" in session.active()


def test_a_failing_on_change_is_logged_not_raised() -> None:
    """on_change's errors do not reach the caller of discard."""

    def broken(_active: list[str]) -> None:
        raise RuntimeError("boom")

    session = ToolRegistry([get_weather]).deferred("mcp", on_change=broken)
    session.reveal(["get_weather"])
    assert session.discard(["get_weather"]) == ["get_weather"]


def test_the_size_cache_does_not_grow_with_churn() -> None:
    """Tools coming and going (a gateway's servers) leave no sizes behind in the session."""
    registry = ToolRegistry([clock])
    session = registry.deferred("openai", max_tokens=5000, max_active=4, search_limit=2)

    def record(i: int) -> Tool:
        return from_record({"name": f"record_{i}", "description": f"Fetch archive record {i}.",
                            "handler": lambda: i})  # fmt: skip

    for i in range(300):
        registry.register(record(i))
        assert f"record_{i}" in [t.name for t in session.search(f"archive record {i}")]
        registry.deregister(f"record_{i}")
    assert session.estimated_tokens() > 0
    version, sizes = session._sizes  # the cache itself: nothing else shows its size
    assert version == registry.version
    assert len(sizes) <= 4 + 1  # at most the revealed tools (gone now) and the pinned
