"""The search index is kept up to date tool by tool, and ranks exactly as one built from scratch."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools import Tool, ToolRegistry, from_record
from forge.tools.search import SearchIndex
from forge.tools.search._corpus import Corpus

DESCRIPTIONS = [
    "Get the current weather forecast for a city.",
    "Send an email message to a contact.",
    "Read the contents of a file from disk.",
    "Convert an amount of money between currencies.",
    "Look up the stock price of a company.",
    "Book a flight between two airports.",
    "Identical description.",
    "Identical description.",
    "查询城市的天气预报",
    "Play a song from the music library.",
]
QUERIES = [
    "what's the weather in Paris?",
    "email my boss then read the report file",
    "100 euro in US dollars",
    "identical",
    "北京天气",
    "the and of",
    "book a flight to Rome and play some music",
]


def tool(index: int, version: int = 0) -> Tool:
    """Tool ``index`` of the pool; a later ``version`` changes its description and tags."""
    description = DESCRIPTIONS[index % len(DESCRIPTIONS)]
    return from_record({
        "name": f"tool_{index}",
        "description": f"{description} Version {version}." if version else description,
        "tags": ["even" if index % 2 == 0 else "odd"],
        "category": "web" if index % 3 == 0 else "utility",
        "parameters": {"type": "object", "properties": {f"arg_{index % 4}": {"type": "string"}}},
        "handler": lambda args: args,
    })  # fmt: skip


def searches(index: SearchIndex | ToolRegistry) -> Iterator[list[int]]:
    """The tools each query finds (by identity), with and without filters."""
    for query in QUERIES:
        yield [id(t) for t in index.search(query, limit=8)]
        yield [id(t) for t in index.search(query, limit=3, tags=["even"])]
        yield [id(t) for t in index.search(query, category="web")]


def assert_same_as_fresh(kept: SearchIndex, tools: list[Tool]) -> None:
    """``kept`` has the candidates, features and results of an index built from scratch."""
    fresh = SearchIndex(tools)
    assert np.array_equal(kept._vectors, fresh._vectors)
    for query in QUERIES:
        (a, fa), (b, fb) = kept.candidates(query), fresh.candidates(query)
        assert np.array_equal(a, b), query
        assert np.array_equal(fa, fb), query
    assert list(searches(kept)) == list(searches(fresh))


OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["register", "replace", "remove", "search"]),
        st.integers(min_value=0, max_value=13),
    ),
    max_size=30,
)


@settings(max_examples=40, deadline=None)
@given(operations=OPERATIONS, spare=st.sampled_from([0, 3, 64]))
def test_any_changes_then_search_equal_an_index_built_from_scratch(
    operations: list[tuple[str, int]], spare: int
) -> None:
    """Registering, replacing and removing tools, searching in between: exactly a fresh index.

    A small ``spare`` makes the kept storage compact often, as a long-lived registry's does.
    """
    corpus = Corpus(spare=spare)
    tools: dict[str, Tool] = {}
    versions: dict[int, int] = {}
    for operation, index in operations:
        name = f"tool_{index}"
        if operation == "register" and name not in tools:
            tools[name] = tool(index)
        elif operation == "replace" and name in tools:
            versions[index] = versions.get(index, 0) + 1
            tools[name] = tool(index, versions[index])  # keeps its position, as a registry does
        elif operation == "remove":
            tools.pop(name, None)
        elif operation == "search" and tools:
            SearchIndex(list(tools.values()), corpus=corpus).search(QUERIES[index % len(QUERIES)])
    if tools:
        assert_same_as_fresh(SearchIndex(list(tools.values()), corpus=corpus), list(tools.values()))


@settings(max_examples=25, deadline=None)
@given(operations=OPERATIONS)
def test_a_registry_searches_like_a_fresh_registry_with_the_same_tools(
    operations: list[tuple[str, int]],
) -> None:
    """After any register / replace / deregister sequence, search equals a new registry's."""
    registry = ToolRegistry([tool(0), tool(1)])
    view = registry.prefixed("p_")
    for operation, index in operations:
        if operation == "register" and f"tool_{index}" not in registry:
            registry.register(tool(index))
        elif operation == "replace":
            registry.register(tool(index, version=len(operation) + index), replace=True)
        elif operation == "remove":
            registry.deregister(f"tool_{index}")
        else:
            registry.search(QUERIES[index % len(QUERIES)])
            view.search(QUERIES[index % len(QUERIES)])
    assert list(searches(registry)) == list(searches(ToolRegistry(list(registry))))
    fresh_view = ToolRegistry(list(registry)).prefixed("p_")
    assert [[t.name for t in view.search(q)] for q in QUERIES] == [
        [t.name for t in fresh_view.search(q)] for q in QUERIES
    ]


def test_only_new_tools_are_computed() -> None:
    """A change computes the parts of the tools it brought; removals and repeats compute none."""
    import forge.tools.search as search

    corpus = Corpus()
    seen: list[int] = []

    def counting(tools: list[Tool]) -> Any:
        seen.append(len(tools))
        return search._parts(tools)

    tools = [tool(i) for i in range(6)]
    corpus.snapshot(tools, counting)
    corpus.snapshot(tools[1:], counting)
    corpus.snapshot([*tools[1:], tool(6)], counting)
    snapshot = corpus.snapshot(tools, counting)  # the removed tool's slot is still there
    assert seen == [6, 1]
    assert corpus.slots == 7
    profiles = search._parts(tools)
    assert list(snapshot.profiles) == [p.profile for p in profiles]
    assert snapshot.profiles[2:4] == [p.profile for p in profiles[2:4]]


def test_an_older_index_still_searches_its_own_tools_after_compaction() -> None:
    """An index taken before later changes (a reader of an older version) is not disturbed."""
    corpus = Corpus(spare=0)
    first = [tool(i) for i in range(8)]
    old = SearchIndex(first, corpus=corpus)
    expected = list(searches(SearchIndex(first)))
    for round_ in range(1, 6):
        newer = [tool(i, round_) for i in range(8)]
        SearchIndex(newer, corpus=corpus).search("weather")
    assert corpus.slots < 2 * 8 + 8  # compacted: the first tools' slots were dropped
    assert list(searches(old)) == expected


def test_a_tool_listed_twice_gets_two_slots() -> None:
    """The same tool object twice in one list is two documents, as in a fresh index."""
    corpus = Corpus()
    same, other = tool(6), tool(0)
    SearchIndex([same, other], corpus=corpus)
    assert_same_as_fresh(SearchIndex([same, other, same], corpus=corpus), [same, other, same])


def test_concurrent_registration_and_search() -> None:
    """Threads registering, replacing and removing while others search: no error, no mix.

    Every search returns distinct tools of the registry's pool; afterwards the registry
    searches exactly like a fresh one with its tools.
    """
    registry = ToolRegistry([tool(i) for i in range(10)])
    registry.search("warm up")
    errors: list[BaseException] = []
    stop = threading.Event()
    names = {f"tool_{i}" for i in range(40)}

    def writer(offset: int) -> None:
        try:
            for round_ in range(60):
                index = 10 + offset + 2 * (round_ % 15)
                registry.register(tool(index, round_), replace=True)
                registry.register(tool(round_ % 10, round_ + offset), replace=True)
                if round_ % 3 == 0:
                    registry.deregister(f"tool_{index}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader(offset: int) -> None:
        try:
            count = 0
            while not stop.is_set() or count < 5:
                found = registry.search(QUERIES[(count + offset) % len(QUERIES)], limit=10)
                assert found
                assert len({t.name for t in found}) == len(found)
                assert {t.name for t in found} <= names
                count += 1
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        writers = [threading.Thread(target=writer, args=(i,)) for i in range(2)]
        readers = [threading.Thread(target=reader, args=(i,)) for i in range(3)]
        for thread in (*readers, *writers):
            thread.start()
        for thread in writers:
            thread.join()
        stop.set()
        for thread in readers:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    assert list(searches(registry)) == list(searches(ToolRegistry(list(registry))))


@pytest.mark.parametrize("size", [1, 5])
def test_register_many_then_search_equals_one_build(size: int) -> None:
    """Tools registered in one batch after a search are indexed in one batch, as a new index."""
    registry = ToolRegistry([tool(0)])
    registry.search("weather")
    registry.register_many([tool(i) for i in range(1, 1 + size)])
    assert list(searches(registry)) == list(searches(ToolRegistry(list(registry))))


def test_a_cleared_registry_lets_go_of_its_tools() -> None:
    """After ``clear()`` the next search drops the kept tools, and new ones index as usual."""
    import gc
    import weakref

    registry = ToolRegistry([tool(i) for i in range(3)])
    registry.search("weather")
    handler = weakref.ref(registry.get_or_raise("tool_0").handler)
    registry.clear()
    assert registry.search("weather") == []
    gc.collect()
    assert handler() is None
    registry.register(tool(0))
    assert [t.name for t in registry.search("weather")] == ["tool_0"]


TERMS = st.sampled_from(["get", "weather", "file", "mail", "sql", "note"])


@settings(max_examples=30, deadline=None)
@given(
    documents=st.lists(st.lists(TERMS, min_size=1, max_size=8), min_size=1, max_size=12),
    query=st.lists(st.sampled_from(["get", "weather", "file", "stock", "sql"]), max_size=5),
)
def test_postings_score_as_bm25s(documents: list[list[str]], query: list[str]) -> None:
    """The kept postings give bm25s's scores (Lucene BM25) for the same documents and query."""
    import bm25s

    from forge.tools.search._postings import Bm25, Live, Postings

    postings = Postings()
    postings.reserve(len(documents))
    postings.add(0, documents)
    slots = np.arange(len(documents))
    ours = Bm25(postings, Live(slots, np.ones(len(documents), dtype=bool), len(slots), True),
                k1=1.2, b=0.5).get_scores(query)  # fmt: skip
    reference = bm25s.BM25(k1=1.2, b=0.5)
    reference.index(documents, show_progress=False)
    expected = reference.get_scores(query) if query else np.zeros(len(documents))
    np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-6)


def test_a_registry_whose_tool_refers_to_it_is_freed_after_a_search() -> None:
    """The corpus kept for a registry does not keep it alive: a tool whose handler refers to
    its registry (a tool that lists the tools, say) used to pin it in a global table."""
    import gc
    import weakref

    from forge.tools import tool

    def searched() -> weakref.ref[ToolRegistry]:
        registry = ToolRegistry()

        def count_tools() -> int:
            """How many tools there are."""
            return len(registry.names())

        registry.register(tool(count_tools))
        assert registry.search("how many tools")
        return weakref.ref(registry)

    gone = searched()
    gc.collect()
    assert gone() is None


@settings(max_examples=50, deadline=None)
@given(
    documents=st.lists(st.lists(TERMS, max_size=8), min_size=1, max_size=12),
    cuts=st.lists(st.integers(0, 12), max_size=4),
)
def test_postings_added_in_one_batch_equal_postings_added_in_parts(
    documents: list[list[str]], cuts: list[int]
) -> None:
    """Documents added at once or in any number of batches give the same pairs and lengths."""
    from forge.tools.search._postings import Postings

    whole, parts = Postings(), Postings()
    whole.reserve(len(documents))
    parts.reserve(len(documents))
    whole.add(0, documents)
    bounds = sorted({0, len(documents), *(min(c, len(documents)) for c in cuts)})
    for start, end in pairwise(bounds):
        parts.add(start, documents[start:end])
    assert whole._pairs == parts._pairs
    assert whole.lengths.tolist() == parts.lengths.tolist()
    for term in ("get", "weather", "file", "mail", "sql", "note"):
        counted = [(slot, doc.count(term)) for slot, doc in enumerate(documents) if term in doc]
        found = whole.find(term, len(documents))
        assert found is None if not counted else list(zip(*found, strict=True)) == counted


@pytest.mark.parametrize("enabled", [True, False])
def test_indexing_leaves_garbage_collection_as_it_found_it(enabled: bool) -> None:
    """Collection is paused while new tools are indexed, then left on or off as it was."""
    import gc

    seen: list[bool] = []
    corpus = Corpus()

    def parts(tools: list[Tool]) -> list[Any]:
        from forge.tools.search import _parts

        seen.append(gc.isenabled())
        return _parts(tools)

    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        corpus.snapshot([tool(1), tool(2)], parts)
        assert (gc.isenabled(), seen) == (enabled, [False])
    finally:
        (gc.enable if was else gc.disable)()


@settings(max_examples=60, deadline=None)
@given(
    heads=st.lists(st.lists(TERMS, max_size=4), min_size=1, max_size=12),
    tails=st.lists(st.lists(TERMS, max_size=8), min_size=1, max_size=3),
    picks=st.lists(st.tuples(st.integers(0, 3), st.integers(1, 4)), min_size=12, max_size=12),
)
def test_joined_documents_are_indexed_as_their_terms(
    heads: list[list[str]], tails: list[list[str]], picks: list[tuple[int, int]]
) -> None:
    """Documents given as a repeated head and a tail other documents share (the same object),
    mixed with plain ones, give the pairs and lengths of their terms written out."""
    from forge.tools.search._postings import Joined, Postings

    documents: list[Sequence[str]] = []
    for head, (pick, times) in zip(heads, picks, strict=False):
        if pick < len(tails):
            documents.append(Joined(head, tails[pick], times))
        else:
            documents.append(head)
    spelled = [list(document) for document in documents]
    assert [len(d) for d in documents] == [len(d) for d in spelled]
    joined, plain = Postings(), Postings()
    joined.reserve(len(documents))
    plain.reserve(len(documents))
    joined.add(0, documents)
    plain.add(0, spelled)
    assert joined._pairs == plain._pairs
    assert joined.lengths.tolist() == plain.lengths.tolist()
    for slot, document in enumerate(spelled):
        for term in set(document):
            slots, frequencies = joined.find(term, len(documents))
            assert frequencies[slots.tolist().index(slot)] == document.count(term)
