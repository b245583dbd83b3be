"""Tools used together before: a `CoUse` store fed by sessions' calls, read by their searches."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from forge.tools import RuleBasedPolicy, ToolCall, ToolExecutor, ToolRegistry
from forge.tools.deferral import CoUse, DeferredSession, Together
from tests.unit.tools.deferral.test_deferred_session import completion
from tests.unit.tools.deferral.test_reveal_options import gateway, search_call

GEOCODE, WRITE, ROUTE = "maps__geocode_address", "files__write_file", "maps__get_route_directions"
QUERY = "turn an address into coordinates"


def turn(session: DeferredSession, *names: str) -> Any:
    """One model turn calling ``names``."""
    return session.run_turn(completion(*((f"c{i}", n, {}) for i, n in enumerate(names))))


def one_by_one(session: DeferredSession, *names: str) -> None:
    """Calls of ``names`` one request each, as an MCP client sends them."""
    for name in names:
        session.execute_all([ToolCall.create(name, {})])


def found(session: DeferredSession, query: str = QUERY) -> list[str]:
    return [t.name for t in session.search(query)]


def test_tools_called_in_one_turn_are_revealed_together_later() -> None:
    """Two past turns calling geocode and write_file: a new session's search for geocoding
    also reveals write_file, which the query does not match."""
    registry, store = gateway(), CoUse()
    assert found(registry.deferred("openai", search_limit=1)) == [GEOCODE]
    for _ in range(2):
        turn(registry.deferred("openai", co_use=store), GEOCODE, WRITE)
    assert store.count(GEOCODE, WRITE) == store.count(WRITE, GEOCODE) == 2
    session = registry.deferred("openai", co_use=store, search_limit=1)
    result = search_call(session, {"query": QUERY})
    assert [row["name"] for row in result.results[0].output["tools"]] == [GEOCODE, WRITE]
    assert session.active() == [WRITE, GEOCODE]


def test_a_pair_seen_once_is_not_enough_by_default() -> None:
    """min_co_use=2 by default: one turn together may be chance; min_co_use=1 trusts it."""
    registry, store = gateway(), CoUse()
    turn(registry.deferred("openai", co_use=store), GEOCODE, WRITE)
    assert found(registry.deferred("openai", co_use=store, search_limit=1)) == [GEOCODE]
    lenient = registry.deferred("openai", co_use=store, search_limit=1, min_co_use=1)
    assert found(lenient) == [GEOCODE, WRITE]
    assert found(registry.deferred("openai", co_use=store, search_limit=1, partners=0,
                                   min_co_use=1)) == [GEOCODE]  # fmt: skip


def test_calls_of_one_session_within_the_window_are_together() -> None:
    """Calls sent one at a time pair with the session's last ``window`` calls, not older."""
    registry, store = gateway(), CoUse(window=2)
    session = registry.deferred("openai", co_use=store)
    one_by_one(session, GEOCODE, ROUTE, "clock__get_current_time", WRITE)
    assert store.count(GEOCODE, ROUTE) == 1
    assert store.count(GEOCODE, "clock__get_current_time") == 1
    assert store.count(GEOCODE, WRITE) == 0  # three calls apart, past the window
    assert store.count(ROUTE, WRITE) == 1


def test_each_pair_counts_once_per_batch_and_a_tool_is_not_its_own_partner() -> None:
    """A turn calling a tool three times and another once adds one to their pair."""
    registry, store = gateway(), CoUse()
    turn(registry.deferred("openai", co_use=store), GEOCODE, GEOCODE, WRITE, GEOCODE)
    assert store.count(GEOCODE, WRITE) == 1
    assert store.count(GEOCODE, GEOCODE) == 0
    assert store.partners(GEOCODE) == [(WRITE, 1)]
    assert len(store) == 1


def test_searches_and_calls_that_did_not_run_are_not_counted() -> None:
    """Unknown and denied tools, and the search tool, make no pair."""
    registry, store = gateway(), CoUse()
    executor = ToolExecutor(registry, permissions=RuleBasedPolicy(deny=["files__*"]))
    session = DeferredSession.of(registry, "openai", executor=executor, co_use=store)
    turn(session, GEOCODE, WRITE, "no_such_tool", session.search_tool.name)
    assert len(store) == 0
    executor.close()


def test_partners_stay_within_max_active_and_leave_first() -> None:
    """Partners come after the matches: past max_active the partners leave, not the match."""
    registry, store = gateway(), CoUse()
    for _ in range(2):
        turn(registry.deferred("openai", co_use=store), GEOCODE, WRITE, ROUTE,
             "docs__add_paragraph")  # fmt: skip
    session = registry.deferred("openai", co_use=store, search_limit=1, partners=3,
                                max_active=2)  # fmt: skip
    assert found(session) == [GEOCODE, store.partners(GEOCODE)[0][0]]
    assert len(session.active()) == 2


def test_pinned_and_withdrawn_partners_are_passed_over() -> None:
    """A partner already pinned is not revealed again; one gone from the registry is skipped."""
    registry, store = gateway(), CoUse()
    for _ in range(2):
        turn(registry.deferred("openai", co_use=store), GEOCODE, WRITE, ROUTE)
    pinned = registry.deferred("openai", co_use=store, search_limit=1, pinned=[WRITE])
    assert found(pinned) == [GEOCODE, ROUTE]
    registry.deregister(ROUTE)
    session = registry.deferred("openai", co_use=store, search_limit=1)
    assert found(session) == [GEOCODE, WRITE]


def test_the_store_stays_within_max_pairs_and_keeps_the_frequent() -> None:
    """Past max_pairs counts are halved and the pairs at zero go: a pair still in use stays
    among 200 pairs seen once."""
    store = CoUse(max_pairs=10)
    for index in range(200):
        store.record([f"x{index}", f"y{index}"])
        if index % 3 == 0:
            store.record(["a", "b"])
        assert len(store) <= 10
    assert store.count("a", "b") >= 1
    assert store.partners("a") == [("b", store.count("a", "b"))]
    store.clear()
    assert len(store) == 0
    assert store.partners("a") == []


def test_concurrent_sessions_count_every_pair() -> None:
    """Eight threads' sessions over one store: no count is lost."""
    registry, store = gateway(), CoUse()
    rounds = 50

    def work() -> None:
        session = registry.deferred("openai", co_use=store)
        for _ in range(rounds):
            turn(session, GEOCODE, WRITE)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.count(GEOCODE, WRITE) == 8 * rounds


def test_bad_options_are_named() -> None:
    """Each option's bad value raises naming it."""
    registry = gateway()
    with pytest.raises(TypeError, match="co_use= takes a CoUse"):
        registry.deferred("openai", co_use={"a": 1})  # type: ignore[typeddict-item]
    with pytest.raises(ValueError, match="partners must be a whole number >= 0"):
        registry.deferred("openai", co_use=CoUse(), partners=-1)
    with pytest.raises(ValueError, match="min_co_use must be a whole number >= 1"):
        Together(min_co_use=0)
    with pytest.raises(ValueError, match="CoUse window must be a whole number >= 1"):
        CoUse(window=0)
    with pytest.raises(ValueError, match="CoUse max_pairs must be a whole number >= 1"):
        CoUse(max_pairs=True)
    with pytest.raises(TypeError, match="CoUse records tool names"):
        CoUse().record(["a", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="together= takes a Together"):
        DeferredSession(ToolRegistry(), "openai", together=CoUse())  # type: ignore[arg-type]


def test_without_a_store_nothing_changes() -> None:
    """No co_use: the session records nothing and reveals only its matches."""
    registry = gateway()
    session = registry.deferred("openai", search_limit=1, partners=5, min_co_use=1)
    turn(session, GEOCODE, WRITE)
    assert found(session) == [GEOCODE]
