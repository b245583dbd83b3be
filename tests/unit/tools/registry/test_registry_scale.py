"""Changes one by one cost O(1) each: n registrations and removals never copy n² tools.

Counted, not timed: every snapshot of the tools a registry builds is recorded with its
size, and the total over a run of ``n`` single changes must stay a small multiple of ``n``
(copying the whole registry on each change, as before, made it about n²/2).
"""

from __future__ import annotations

from typing import Any

from forge.tools import Tool, ToolRegistry, from_record

COUNT = 2_000


def _handler(arguments: dict[str, Any]) -> None:
    return None


def _tools(count: int) -> list[Tool]:
    schema = {"type": "object", "properties": {}}
    return [
        from_record(
            {"name": f"t{i}", "description": "d", "parameters": schema, "handler": _handler}
        )
        for i in range(count)
    ]


def test_registering_and_deregistering_one_by_one_copies_linearly(copied: list[int]) -> None:
    """n registrations then n removals, with reads between: O(n) tools copied in all."""
    tools = _tools(COUNT)
    registry = ToolRegistry()
    for i, item in enumerate(tools):
        registry.register(item)
        if i % 500 == 0:
            assert registry.list_all()[-1] is item
    assert len(registry.names()) == COUNT
    for item in tools:
        registry.deregister(item.name)
    assert registry.names() == []
    assert sum(copied) <= 4 * COUNT


def test_reads_see_each_change_and_keep_their_snapshot(copied: list[int]) -> None:
    """A list taken before a change is not changed by it; the next read sees the change."""
    first, second = _tools(2)
    registry = ToolRegistry([first])
    before = registry.list_all()
    version = registry.version
    registry.register(second)
    assert before == [first]
    assert registry.list_all() == [first, second]
    assert registry.version == version + 1
    assert registry.derived("names", lambda tools: [t.name for t in tools]) == ["t0", "t1"]
    registry.deregister("t0")
    assert registry.derived("names", lambda tools: [t.name for t in tools]) == ["t1"]
    assert "t0" not in registry
    assert registry.get("t1") is second
