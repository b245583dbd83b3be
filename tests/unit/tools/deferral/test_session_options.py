"""A deferred session's option groups: value objects that check their options when made."""

from __future__ import annotations

import pytest

from forge.tools import ToolRegistry, tool
from forge.tools.deferral import ActiveSet, DeferredSession, SearchTool, Toolkits, UsagePins


@tool
def get_time() -> str:
    """Tell the time."""
    return "noon"


def test_each_group_names_its_bad_option() -> None:
    """A bad option fails when its group is made, naming the option."""
    with pytest.raises(ValueError, match="max_active must be a whole number >= 1"):
        ActiveSet(max_active=0)
    with pytest.raises(ValueError, match="search_limit must be a whole number >= 1"):
        SearchTool(search_limit=0)
    with pytest.raises(ValueError, match="siblings=2 needs groups="):
        Toolkits(siblings=2)
    with pytest.raises(ValueError, match="pin_used must be a whole number >= 0"):
        UsagePins(pin_used=-1)
    with pytest.raises(TypeError, match="pinned must hold tool names"):
        ActiveSet(pinned=[1])  # type: ignore[list-item]


def test_groups_are_the_constructor_parameters() -> None:
    """DeferredSession takes the groups; registry.deferred builds them from its keywords."""
    registry = ToolRegistry([get_time])
    direct = DeferredSession(registry, "openai", active=ActiveSet(pinned="get_time", max_active=5))
    flat = registry.deferred("openai", pinned=["get_time"], max_active=5)
    assert direct.pinned == flat.pinned == ("get_time",)
    assert direct.tools() == flat.tools()


def test_a_flat_keyword_given_for_a_group_is_refused() -> None:
    """A number where a group is expected says to use the flat keywords of registry.deferred."""
    registry = ToolRegistry([get_time])
    with pytest.raises(TypeError, match=r"toolkits= takes a Toolkits\(\.\.\.\)"):
        DeferredSession(registry, "openai", toolkits=2)  # type: ignore[arg-type]


def test_without_an_executor_sync_calls_run_in_order_on_the_callers_thread() -> None:
    """As the registry's own ``execute_all``: one after another, no worker threads."""
    import threading

    from forge.tools import ToolCall

    seen: list[tuple[str, int]] = []

    @tool
    def first(x: int) -> int:
        """Record the first call."""
        seen.append(("first", threading.get_ident()))
        return x

    @tool
    def second(x: int) -> int:
        """Record the second call."""
        seen.append(("second", threading.get_ident()))
        return x

    session = DeferredSession.of(
        ToolRegistry([first, second]), "openai", pinned=["first", "second"]
    )
    calls = [ToolCall(id="a", name="first", arguments={"x": 1}),
             ToolCall(id="b", name="second", arguments={"x": 2})]  # fmt: skip
    results = session.execute_all(calls)
    assert [r.output for r in results] == [1, 2]
    here = threading.get_ident()
    assert seen == [("first", here), ("second", here)]
