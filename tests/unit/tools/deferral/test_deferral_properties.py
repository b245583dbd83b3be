"""Property tests: which tools a `Defer` picks, and the session's active set as an LRU."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools import Defer, ToolCall, ToolRegistry, tool

TAGS = ["a", "b", "c"]
N = 8


def registry_with(tags: list[list[str]]) -> ToolRegistry:
    """Tools t0..tN-1 carrying the given tags, each answering its own name."""
    registry = ToolRegistry()
    for i, carried in enumerate(tags):

        def handler(_name: str = f"t{i}") -> str:
            return _name

        description = f"Tool number {i} for {' '.join(carried)} work."
        registry.register(tool(handler, name=f"t{i}", tags=carried, description=description))
    return registry


TAG_SETS = st.lists(st.lists(st.sampled_from(TAGS), unique=True), min_size=N, max_size=N)


@settings(deadline=None)  # the first search loads the embedding model
@given(TAG_SETS, st.lists(st.sampled_from(TAGS), unique=True),
       st.sets(st.integers(0, N - 1)))  # fmt: skip
def test_defer_picks_exactly_the_tools_passing_every_test(
    tags: list[list[str]], need: list[str], named: set[int]
) -> None:
    """Defer(names, tags) defers exactly the named tools carrying all the tags."""
    registry = registry_with(tags)
    names = frozenset(f"t{i}" for i in named)
    out = registry.to_provider("anthropic", defer=Defer(names=names, tags=tuple(need)))
    deferred = {d["name"] for d in out if d.get("defer_loading")}
    expected = {f"t{i}" for i in named if set(need) <= set(tags[i])}
    assert deferred == expected
    assert out[-1]["type"] == "tool_search_tool_bm25_20251119"


@settings(deadline=None)
@given(TAG_SETS, st.integers(0, N), st.sampled_from(["tool number", "a work", "b", "zzz"]))
def test_all_but_keeps_what_search_finds(tags: list[list[str]], keep: int, query: str) -> None:
    """all_but(n) leaves loaded exactly registry.search(query, limit=n), at most n tools."""
    registry = registry_with(tags)
    spec = Defer.all_but(keep, query=query) if keep else Defer.all()
    out = registry.to_provider("openai-responses", defer=spec)
    loaded = {d["name"] for d in out[:-1] if not d.get("defer_loading")}
    found = {t.name for t in registry.search(query, limit=keep)} if keep else set()
    assert loaded == found
    assert len(loaded) <= keep


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("call"), st.integers(0, N - 1)),
        st.tuples(st.just("reveal"), st.integers(0, N - 1)),
        st.tuples(st.just("search"), st.sampled_from(["tool number 3", "b work", "a"])),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(OPS, st.integers(1, 4), st.sets(st.integers(0, N - 1), max_size=2))
def test_the_active_set_is_the_lru_of_what_was_used(
    ops: list[tuple[str, Any]], max_active: int, pinned: set[int]
) -> None:
    """Against a reference LRU: calls, reveals and searches make tools most recent; the
    pinned tools always lead; at most max_active others stay."""
    registry = registry_with([["a"], ["b"], ["a", "b"], [], ["c"], ["a"], ["b", "c"], []])
    pins = [f"t{i}" for i in sorted(pinned)]
    session = registry.deferred("openai", pinned=pins, max_active=max_active,
                                search_limit=1)  # fmt: skip
    model: OrderedDict[str, None] = OrderedDict()

    def use(name: str) -> None:
        if name in pins:
            return
        model[name] = None
        model.move_to_end(name)
        while len(model) > max_active:
            model.popitem(last=False)

    for kind, value in ops:
        if kind == "call":
            (result,) = session.execute_all([ToolCall("c", f"t{value}", {})])
            assert result.output == f"t{value}"
            use(f"t{value}")
        elif kind == "reveal":
            session.reveal([f"t{value}"])
            use(f"t{value}")
        else:
            hits = [t.name for t in registry.search(value, limit=1 + len(pins))]
            chosen = [h for h in hits if h not in pins][:1]
            (result,) = session.execute_all([ToolCall("s", "search_tools", {"query": value})])
            assert [t["name"] for t in result.output["tools"]] == chosen
            for name in chosen:
                use(name)
        assert session.active() == [*pins, *model]
