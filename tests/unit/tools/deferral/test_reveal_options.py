"""A search-tool session's reveal options: toolkits, a token budget, usage pinning and
several queries in one search call."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools import ExecutionMetrics, ToolCall, ToolExecutor, ToolRegistry, tool
from forge.tools.deferral import estimate_tokens, most_used
from forge.tools.deferral._search_tool import MAX_QUERIES
from forge.tools.formats import convert_all
from tests.unit.tools.deferral.test_deferred_session import completion, names

SERVERS = {
    "docs": ["create_document", "add_paragraph", "add_picture", "convert_to_pdf"],
    "maps": ["geocode_address", "reverse_geocode", "get_route_directions"],
    "files": ["read_file", "write_file", "list_directory"],
    "clock": ["get_current_time"],
}
WHAT = {
    "create_document": "Create a new Word document with a title.",
    "add_paragraph": "Append a paragraph of text to an existing document.",
    "add_picture": "Insert an image into an existing document.",
    "convert_to_pdf": "Export an existing document as PDF.",
    "geocode_address": "Turn a street address into latitude and longitude.",
    "reverse_geocode": "Turn latitude and longitude into a street address.",
    "get_route_directions": "Directions between two points by car, bike or foot.",
    "read_file": "Read the complete contents of a file from the file system.",
    "write_file": "Create a new file or overwrite an existing file with new content.",
    "list_directory": "List the files and folders in a directory.",
    "get_current_time": "Get the current date and time in a time zone.",
}


def gateway() -> ToolRegistry:
    """Eleven tools of four servers, named ``<server>__<tool>`` as a gateway serves them."""
    registry = ToolRegistry()
    for server, tools in SERVERS.items():
        for name in tools:

            def handler(text: str = "", _name: str = name) -> str:
                return f"{_name}({text})"

            registry.register(tool(handler, name=f"{server}__{name}", description=WHAT[name]))
    return registry


def search_call(session: Any, arguments: Any, call_id: str = "s") -> Any:
    return session.run_turn(completion((call_id, session.search_tool.name, arguments)))


# -- toolkits ------------------------------------------------------------------------------


def test_a_search_reveals_the_best_matchs_toolkit_siblings() -> None:
    """groups='__': the server prefix is the toolkit; its siblings come with the best hit."""
    session = gateway().deferred("openai", groups="__", siblings=5, search_limit=1,
                                 max_active=20)  # fmt: skip
    found = session.search("create a Word document")
    assert found[0].name == "docs__create_document"
    assert {t.name for t in found} == {f"docs__{n}" for n in SERVERS["docs"]}
    assert set(session.active()) == {t.name for t in found}


def test_siblings_are_bounded_and_ranked_for_the_query() -> None:
    """At most ``siblings`` more tools; the toolkit's best ranked for the query come first."""
    session = gateway().deferred("openai", groups="__", siblings=1, search_limit=1)
    found = [t.name for t in session.search("turn an address into coordinates")]
    assert found == ["maps__geocode_address", "maps__reverse_geocode"]


def test_toolkits_opens_the_toolkits_of_several_best_hits() -> None:
    """toolkits=2: the siblings of the two best hits' toolkits, not only the first's."""
    registry = gateway()
    query = "write the document to a file"
    hits = [t.name for t in registry.search(query, limit=3)]
    servers = list(dict.fromkeys(h.split("__")[0] for h in hits))[:2]
    one = registry.deferred("openai", groups="__", siblings=9, search_limit=3, max_active=20)
    two = registry.deferred("openai", groups="__", siblings=9, search_limit=3, toolkits=2,
                            max_active=20)  # fmt: skip
    first = {t.name.split("__")[0] for t in one.search(query)} - {h.split("__")[0] for h in hits}
    assert first == set()
    wide = {t.name for t in two.search(query)}
    for server in servers:
        assert {f"{server}__{n}" for n in SERVERS[server]} <= wide


def test_groups_from_a_mapping_or_a_function() -> None:
    """A mapping of name -> group and a function of the tool give the same toolkits."""
    registry = gateway()
    table = {n: n.split("__")[0] for n in registry.names()}
    by_map = registry.deferred("openai", groups=table, siblings=3, search_limit=1)
    by_fn = registry.deferred("openai", groups=lambda t: table[t.name], siblings=3,
                              search_limit=1)  # fmt: skip
    query = "directions by bike"
    assert [t.name for t in by_map.search(query)] == [t.name for t in by_fn.search(query)]
    assert len(by_map.active()) == 3
    lonely = registry.deferred("openai", groups=lambda t: None, siblings=3, search_limit=1)
    assert len(lonely.search(query)) == 1


def test_without_siblings_groups_change_nothing() -> None:
    """groups= alone (siblings=0) reveals what a plain search reveals."""
    registry = gateway()
    plain = registry.deferred("openai", search_limit=2)
    grouped = registry.deferred("openai", search_limit=2, groups="__")
    assert [t.name for t in grouped.search("read a file")] == [
        t.name for t in plain.search("read a file")
    ]


def test_bad_groups_are_named() -> None:
    registry = gateway()
    with pytest.raises(ValueError, match="separator"):
        registry.deferred("openai", groups="")
    with pytest.raises(TypeError, match="groups="):
        registry.deferred("openai", groups=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="tool name -> group"):
        registry.deferred("openai", groups={"docs__add_picture": 1})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="siblings"):
        registry.deferred("openai", groups="__", siblings=-1)
    with pytest.raises(ValueError, match="toolkits"):
        registry.deferred("openai", groups="__", toolkits=0)
    broken = registry.deferred("openai", groups=lambda t: 7, siblings=2)  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="must return a group name"):
        broken.search("document")


def test_siblings_without_groups_is_refused() -> None:
    """siblings= reveals a toolkit's tools: without groups= there is none (it was ignored)."""
    with pytest.raises(ValueError, match=r"siblings=3 needs groups="):
        gateway().deferred("openai", siblings=3)


def test_a_groups_function_that_raises_is_named() -> None:
    """A groups= function's own error becomes a ToolError naming groups= and the tool."""
    from forge.core.errors import ToolError

    def group_of(t: Any) -> str:
        raise KeyError(t.name)

    session = gateway().deferred("openai", groups=group_of, siblings=2)
    with pytest.raises(ToolError, match=r"the groups= function raised KeyError") as caught:
        session.search("document")
    assert caught.value.tool_name.startswith("docs__")
    assert isinstance(caught.value.__cause__, KeyError)


# -- the token budget ----------------------------------------------------------------------


def test_estimate_tokens_errs_high_and_counts_lists() -> None:
    """One token per three bytes of compact JSON, rounded up; a list is the sum."""
    definition = {"name": "f", "description": "x" * 30}
    text = json.dumps(definition, separators=(",", ":"))
    assert estimate_tokens(definition) == -(-len(text) // 3)
    assert estimate_tokens([definition, definition]) == 2 * estimate_tokens(definition)
    assert estimate_tokens({"d": "日本"}) == -(-len('{"d":"日本"}'.encode()) // 3)


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini", "mcp", "bedrock"])
def test_max_tokens_bounds_every_turn(provider: str) -> None:
    """Whatever is searched, the estimate of tools() stays within max_tokens."""
    registry = gateway()
    budget = registry.deferred(provider).estimated_tokens() + 150
    session = registry.deferred(provider, max_tokens=budget, groups="__", siblings=5,
                                search_limit=3, max_active=50)  # fmt: skip
    for query in ("document pdf", "address coordinates", "write a file", "time now", "route"):
        session.search(query)
        assert session.estimated_tokens() <= budget
        assert session.active()  # the best hits fit
    definitions = session.tools()
    declared = [d for b in definitions for d in b["functionDeclarations"]] if provider == "gemini" \
        else definitions  # fmt: skip
    assert estimate_tokens(declared) == session.estimated_tokens()


def test_the_budget_evicts_the_least_recent_and_the_searchs_worst_first() -> None:
    """A search keeps its best hit when it reveals more than fits; older tools leave first."""
    registry = gateway()
    one = estimate_tokens(convert_all([registry.get("docs__add_picture")], "openai").definitions)  # type: ignore[list-item]
    base = registry.deferred("openai").estimated_tokens()  # the search tool alone
    session = registry.deferred("openai", max_tokens=base + 2 * one + 5, search_limit=5)
    found = session.search("document")
    assert 1 <= len(found) <= 2
    best = registry.search("document", limit=1)[0].name
    assert found[0].name == best
    assert best in session.active()
    session.search("street address into latitude")
    assert best not in session.active()  # least recent: left first
    assert session.estimated_tokens() <= base + 2 * one + 5


def test_a_budget_below_the_pinned_tools_is_refused() -> None:
    registry = gateway()
    with pytest.raises(ValueError, match="max_tokens=300 is less than"):
        registry.deferred("openai", pinned=["clock__get_current_time"], max_tokens=300)
    with pytest.raises(ValueError, match="max_tokens"):
        registry.deferred("openai", max_tokens=0)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(sorted(WHAT.values())), min_size=1, max_size=6),
       st.integers(min_value=0, max_value=500))  # fmt: skip
def test_the_budget_holds_for_any_searches(queries: list[str], room: int) -> None:
    """Property: the estimated turn never exceeds the budget, whatever the searches."""
    registry = gateway()
    budget = registry.deferred("openai").estimated_tokens() + room
    session = registry.deferred("openai", max_tokens=budget, groups="__", siblings=4,
                                 max_active=20)  # fmt: skip
    for query in queries:
        session.search(query)
        assert session.estimated_tokens() <= budget


# -- pinning by usage ----------------------------------------------------------------------


def test_pin_used_pins_the_most_called_tools_of_a_mapping() -> None:
    """The N most called tools are pinned after the explicit ones; unknown names skipped."""
    registry = gateway()
    usage = {"files__write_file": 17, "gone__tool": 50, "clock__get_current_time": 5,
             "maps__geocode_address": 9, "docs__add_picture": 0}  # fmt: skip
    session = registry.deferred("openai", pinned=["docs__create_document"], usage=usage,
                                pin_used=2)  # fmt: skip
    assert session.pinned == ("docs__create_document", "files__write_file",
                              "maps__geocode_address")  # fmt: skip
    assert names(session.tools())[:3] == list(session.pinned)
    assert most_used(usage, 10, lambda n: n in registry) == [
        "files__write_file", "maps__geocode_address", "clock__get_current_time"]  # fmt: skip


def test_pin_used_reads_the_executors_metrics() -> None:
    """With an executor that keeps metrics, its call counts decide what is pinned."""
    registry = gateway()
    metrics = ExecutionMetrics()
    executor = ToolExecutor(registry, metrics=metrics)
    first = registry.deferred("openai", executor=executor)
    first.run_turn(completion(("a", "files__write_file", {"text": "x"}),
                              ("b", "files__write_file", {"text": "y"}),
                              ("c", "clock__get_current_time", {})))  # fmt: skip
    later = registry.deferred("openai", executor=executor, pin_used=1)
    assert later.pinned == ("files__write_file",)
    snapshot = registry.deferred("openai", usage=metrics.snapshot(), pin_used=5)
    assert snapshot.pinned == ("files__write_file", "clock__get_current_time")


def test_pin_used_passes_over_tools_past_max_tokens() -> None:
    """Usage pins that would not fit max_tokens are passed over, not a ValueError: a
    deployment's counts change after its budget was chosen (a gateway's every new session
    would fail)."""
    registry = gateway()
    base = registry.deferred("openai").estimated_tokens()
    one = registry.deferred("openai", pinned=["files__write_file"]).estimated_tokens() - base
    usage = {"files__write_file": 9, "maps__get_route_directions": 5, "clock__get_current_time": 2}
    session = registry.deferred("openai", usage=usage, pin_used=3, max_tokens=base + one + 10)
    assert session.pinned[0] == "files__write_file"
    assert session.estimated_tokens() <= base + one + 10
    with pytest.raises(ValueError, match="less than the pinned tools"):
        registry.deferred("openai", pinned=["files__write_file"], max_tokens=base + 10)


def test_bad_usage_is_named() -> None:
    registry = gateway()
    with pytest.raises(ValueError, match="pin_used=2 needs"):
        registry.deferred("openai", pin_used=2)
    with pytest.raises(TypeError, match="usage="):
        registry.deferred("openai", usage=["files__write_file"], pin_used=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="call counts"):
        registry.deferred("openai", usage={"files__write_file": "many"}, pin_used=1)  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="pin_used"):
        registry.deferred("openai", usage={}, pin_used=-1)


# -- several queries in one call -----------------------------------------------------------


def test_one_search_call_takes_a_query_per_step() -> None:
    """queries=[...] reveals each step's best; the result lists them, each step's best first."""
    session = gateway().deferred("openai", search_limit=1, max_active=10)
    turn = search_call(session, {"queries": ["create a Word document", "write a file",
                                             "what time is it now"]})  # fmt: skip
    (result,) = turn.results
    assert result.success
    listed = [t["name"] for t in result.output["tools"]]
    assert listed == ["docs__create_document", "files__write_file", "clock__get_current_time"]
    assert set(session.active()) == set(listed)


def test_query_and_queries_together_and_alone() -> None:
    """query and queries combine (query first); blank ones are ignored; none is an error."""
    session = gateway().deferred("openai", search_limit=1, max_active=10)
    (both,) = search_call(session, {"query": "directions by bike",
                                    "queries": ["  ", "read a file"]}).results  # fmt: skip
    assert [t["name"] for t in both.output["tools"]] == ["maps__get_route_directions",
                                                        "files__read_file"]  # fmt: skip
    (none,) = search_call(session, {"queries": [" "]}).results
    assert none.error_kind == "invalid_arguments"
    assert "one short search per step" in (none.error or "")
    (wrong,) = search_call(session, {"queries": "read a file"}).results
    assert wrong.error_kind == "invalid_arguments"
    with pytest.raises(TypeError, match="must be a str"):
        session.search(["ok", 3])  # type: ignore[list-item]


def test_a_huge_queries_list_is_an_error_result_not_minutes_of_searching() -> None:
    """A model's queries=[...] of thousands of searches (each one ranks the catalogue, on a
    gateway's event loop) is refused with a result saying how many it may give."""
    session = gateway().deferred("openai")
    plan = {"queries": [f"step {i}" for i in range(MAX_QUERIES + 1)]}
    (refused,) = search_call(session, plan).results
    assert refused.error_kind == "invalid_arguments"
    assert f"at most {MAX_QUERIES} queries" in (refused.error or "")
    assert session.active() == []
    (fine,) = search_call(session, {"queries": ["read a file"] * MAX_QUERIES}).results
    assert fine.success


def test_the_search_tool_asks_for_a_query_per_step() -> None:
    """The description tells the model to search per step, generic steps included."""
    session = gateway().deferred("openai")
    (definition,) = [d for d in session.tools() if d["function"]["name"] == "search_tools"]
    assert "one short query per step" in definition["function"]["description"]
    assert "saving a file" in definition["function"]["description"]
    properties = definition["function"]["parameters"]["properties"]
    assert properties["queries"]["type"] == "array"
    handler = session.search_tool.handler
    assert handler(queries=("read a file",))["tools"][0]["name"] == "files__read_file"
    with pytest.raises(ValueError, match="one short search per step"):
        handler()


# -- Defer by usage (native deferral) ------------------------------------------------------


def test_defer_all_but_most_used_keeps_the_most_called_loaded() -> None:
    """Native export: the most-called tools stay loaded, every other one is deferred."""
    from anthropic.types import ToolUnionParam
    from pydantic import TypeAdapter

    from forge.tools import Defer

    registry = gateway()
    usage = {"files__write_file": 17, "maps__geocode_address": 9, "gone__tool": 99}
    definitions = registry.to_provider("anthropic",
                                       defer=Defer.all_but_most_used(2, usage=usage))  # fmt: skip
    TypeAdapter(list[ToolUnionParam]).validate_python(definitions)
    loaded = [d["name"] for d in definitions[:-1] if not d.get("defer_loading")]
    assert sorted(loaded) == ["files__write_file", "maps__geocode_address"]
    assert definitions[-1]["name"].startswith("tool_search_tool")
    metrics = ExecutionMetrics()
    ToolExecutor(registry, metrics=metrics).execute_sync("clock__get_current_time")
    live = Defer.all_but_most_used(3, usage=metrics)
    assert live.select(registry) == frozenset(registry.names()) - {"clock__get_current_time"}
    both = Defer(keep=1, query="export as PDF", keep_used=1, usage=usage)
    assert frozenset(registry.names()) - both.select(registry) == {
        "files__write_file", "docs__convert_to_pdf"}  # fmt: skip


def test_bad_defer_usage_is_named() -> None:
    from forge.tools import Defer

    with pytest.raises(ValueError, match="needs the usage"):
        Defer(keep_used=2)
    with pytest.raises(ValueError, match="keep_used"):
        Defer(keep_used=-1, usage={})
    with pytest.raises(TypeError, match="usage="):
        Defer.all_but_most_used(2, usage=[("files__write_file", 3)])


def test_a_tool_larger_than_the_whole_budget_evicts_nothing() -> None:
    """A tool that could never fit max_tokens is not revealed, and the tools that were
    active stay (it used to push every revealed tool out, then leave itself)."""
    registry = gateway()

    def huge(text: str = "") -> str:
        return text

    registry.register(tool(huge, name="docs__huge", description="Document " + "word " * 3000))
    base = registry.deferred("openai").estimated_tokens()
    session = registry.deferred("openai", max_tokens=base + 400)
    found = [t.name for t in session.search("huge document word")]
    assert found
    assert "docs__huge" not in found
    assert session.reveal(["maps__geocode_address"]) == ["maps__geocode_address"]
    assert session.reveal(["docs__huge"]) == []
    session.execute_all([ToolCall.create("docs__huge", {})])  # runs (inactive="run")
    assert "maps__geocode_address" in session.active()
    assert "docs__huge" not in session.active()
    assert session.estimated_tokens() <= base + 400
    alone = ToolRegistry([registry.get_or_raise("docs__huge")])
    budget = alone.deferred("openai").estimated_tokens() + 400
    (result,) = search_call(alone.deferred("openai", max_tokens=budget), {"query": "x"}).results
    assert result.output["tools"] == []
    assert "too large to load in this conversation" in result.output["note"]
