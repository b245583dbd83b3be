"""A search-tool session: the active set, searches, and the turn helper."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from forge.core.errors import ToolNotFoundError, UnsupportedProviderError
from forge.tools import (
    DeferredSession,
    RuleBasedPolicy,
    ToolExecutor,
    ToolRegistry,
    tool,
)
from forge.tools.turns import TURN_PROVIDERS
from tests.unit.tools.formats.conftest import oracles

TOPICS = ["weather", "currency", "calendar", "email", "invoice", "flight", "hotel",
          "recipe", "stock", "translate"]  # fmt: skip


def catalogue() -> ToolRegistry:
    """Ten tools on distinct topics, plus a pinned clock; each records its runs."""
    registry = ToolRegistry()
    for topic in TOPICS:

        def handler(query: str, _topic: str = topic) -> str:
            return f"{_topic}: {query}"

        description = f"Look up {topic} information. Slow but exact."
        registry.register(tool(handler, name=f"{topic}_lookup", description=description))

    @tool
    def clock() -> str:
        """Tell the time."""
        return "12:00"

    registry.register(clock)
    return registry


def completion(*calls: tuple[str, str, Any]) -> dict[str, Any]:
    """A Chat Completions response calling ``calls`` (id, name, arguments)."""
    message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [
        {"id": i, "type": "function",
         "function": {"name": n, "arguments": a if isinstance(a, str) else json.dumps(a)}}
        for i, n, a in calls]}  # fmt: skip
    return {"id": "c", "object": "chat.completion", "choices": [{"index": 0, "message": message}]}


def names(definitions: list[Any]) -> list[str]:
    return [d["function"]["name"] for d in definitions]


def search(session: DeferredSession, query: str, call_id: str = "s1") -> Any:
    return session.run_turn(completion((call_id, session.search_tool.name, {"query": query})))


def test_the_start_set_is_the_pinned_tools_and_the_search_tool() -> None:
    """Before any search the model sees only what was pinned, then the search tool."""
    session = catalogue().deferred("openai", pinned=["clock"])
    assert names(session.tools()) == ["clock", "search_tools"]
    assert session.active() == ["clock"]
    assert "11 more tools" not in session.search_tool.description
    assert "10 more tools" in session.search_tool.description


def test_a_search_reveals_its_hits_for_the_next_turn() -> None:
    """The result lists names and short descriptions; the next tools() holds them."""
    registry = catalogue()
    session = registry.deferred("openai", pinned=["clock"], search_limit=2)
    turn = search(session, "currency exchange")
    (result,) = turn.results
    assert result.success
    found = result.output["tools"]
    assert found[0] == {"name": "currency_lookup", "description": "Look up currency information."}
    assert len(found) <= 2
    assert [t["name"] for t in found] == [t.name for t in registry.search("currency exchange",
                                                                          limit=2)]  # fmt: skip
    assert "currency_lookup" in names(session.tools())
    assert session.active()[-1] == "currency_lookup"  # the best hit is the most recent
    assert json.loads(turn.replies[0]["content"])["tools"] == found


def test_revealed_tools_run_through_the_registry() -> None:
    """A call to a revealed tool runs it; the results keep call order with the search's."""
    session = catalogue().deferred("openai")
    search(session, "weather")
    turn = session.run_turn(completion(("a", "weather_lookup", {"query": "Paris"}),
                                       ("b", "search_tools", {"query": "hotel"}),
                                       ("c", "clock", {})))  # fmt: skip
    assert [r.call_id for r in turn.results] == ["a", "b", "c"]
    assert turn.results[0].output == "weather: Paris"
    assert turn.results[1].output["tools"][0]["name"] == "hotel_lookup"
    assert turn.results[2].output == "12:00"


def test_the_active_set_is_a_bounded_lru() -> None:
    """Past max_active, the least recently used revealed tool leaves; pinned ones stay."""
    session = catalogue().deferred("openai", pinned=["clock"], max_active=2, search_limit=1)
    for topic in ("weather", "currency"):
        search(session, topic)
    assert session.active() == ["clock", "weather_lookup", "currency_lookup"]
    session.run_turn(completion(("a", "weather_lookup", {"query": "x"})))  # used: most recent
    search(session, "calendar")
    assert session.active() == ["clock", "weather_lookup", "calendar_lookup"]
    for topic in TOPICS:
        search(session, topic)
        assert len(session.active()) == 3
    assert names(session.tools()) == [*session.active(), "search_tools"]


def test_an_inactive_tool_runs_and_is_revealed_by_default() -> None:
    """inactive='run': a known tool not active yet runs and joins the active set."""
    session = catalogue().deferred("openai")
    turn = session.run_turn(completion(("a", "email_lookup", {"query": "inbox"})))
    assert turn.results[0].output == "email: inbox"
    assert session.active() == ["email_lookup"]


def test_an_inactive_tool_is_refused_with_inactive_refuse() -> None:
    """inactive='refuse': a clear failed result telling the model to search first."""
    session = catalogue().deferred("openai", inactive="refuse", search_name="find_tools")
    turn = session.run_turn(completion(("a", "email_lookup", {"query": "inbox"})))
    (result,) = turn.results
    assert not result.success
    assert result.error_kind == "unknown_tool"
    assert "not loaded yet" in (result.error or "")
    assert "find_tools" in (result.error or "")
    assert session.active() == []
    search(session, "email")
    assert session.run_turn(completion(("b", "email_lookup", {"query": "x"}))).results[0].success


def test_unknown_tools_get_the_engines_answer() -> None:
    """A name no tool has is the usual unknown_tool result, with suggestions."""
    session = catalogue().deferred("openai")
    (result,) = session.run_turn(completion(("a", "weather_lookp", {"query": "x"}))).results
    assert result.error_kind == "unknown_tool"
    assert "weather_lookup" in (result.error or "")


def test_bad_search_arguments_are_results_for_the_model() -> None:
    """Missing query and broken JSON come back as failed results, nothing revealed."""
    session = catalogue().deferred("openai")
    turn = session.run_turn(completion(("a", "search_tools", {}), ("b", "search_tools", "{")))
    assert [r.error_kind for r in turn.results] == ["invalid_arguments", "invalid_json"]
    assert session.active() == []
    (empty,) = search(session, "?? !!").results
    assert empty.output["tools"] == []


def test_reveal_and_removed_tools() -> None:
    """reveal() checks names; a tool unregistered later leaves tools() quietly."""
    registry = catalogue()
    session = registry.deferred("anthropic", pinned="clock")
    assert session.reveal(["stock_lookup"]) == ["stock_lookup"]
    with pytest.raises(ToolNotFoundError, match="stock_lookp"):
        session.reveal(["stock_lookp"])
    registry.deregister("stock_lookup")
    assert [d["name"] for d in session.tools()] == ["clock", "search_tools"]


def test_bad_session_arguments_are_named() -> None:
    """Unknown pinned names, a taken search name, bad limits and MCP are refused."""
    registry = catalogue()
    with pytest.raises(ToolNotFoundError, match="clok"):
        registry.deferred("openai", pinned=["clok"])
    with pytest.raises(ValueError, match="already a tool's name"):
        registry.deferred("openai", search_name="clock")
    with pytest.raises(ValueError, match="max_active"):
        registry.deferred("openai", max_active=0)
    with pytest.raises(ValueError, match="search_limit"):
        registry.deferred("openai", search_limit=True)
    with pytest.raises(ValueError, match="lower search_limit"):
        registry.deferred("openai", max_active=2, search_limit=3)
    with pytest.raises(ValueError, match="inactive"):
        registry.deferred("openai", inactive="ask")  # type: ignore[arg-type]
    with pytest.raises(UnsupportedProviderError, match="openai-responses"):
        registry.deferred("gpt")
    with pytest.raises(UnsupportedProviderError, match="gemini"):
        registry.deferred(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pinned"):
        registry.deferred("openai", pinned=[1])  # type: ignore[list-item]


@pytest.mark.parametrize("provider", TURN_PROVIDERS)
def test_every_turn_provider_gets_definitions_its_sdk_accepts(provider: str) -> None:
    """tools() after a reveal is in each provider's format, as its SDK takes it."""
    session = catalogue().deferred(provider, pinned=["clock"])
    session.reveal(["flight_lookup"])
    definitions = session.tools()
    check = oracles()[provider]
    if provider == "gemini":
        (wrapper,) = definitions
        for declaration in wrapper["functionDeclarations"]:
            check(declaration)
    else:
        for definition in definitions:
            check(definition)


def test_an_executor_applies_its_permissions() -> None:
    """With an executor, a tool the policy denies comes back denied and is not revealed."""
    registry = catalogue()
    executor = ToolExecutor(registry, permissions=RuleBasedPolicy(deny=["email_*"]))
    session = DeferredSession.of(registry, "openai", executor=executor)
    (denied,) = session.run_turn(completion(("a", "email_lookup", {"query": "x"}))).results
    assert denied.error_kind == "denied"
    assert session.active() == []
    search(session, "email")
    (result,) = session.run_turn(completion(("b", "email_lookup", {"query": "x"}))).results
    assert result.error_kind == "denied"
    (ran,) = session.run_turn(completion(("c", "hotel_lookup", {"query": "x"}))).results
    assert ran.output == "hotel: x"
    assert session.active() == ["email_lookup", "hotel_lookup"]
    executor.close()


def test_an_mcp_session_lists_and_runs_without_turns() -> None:
    """provider='mcp': MCP tool definitions and execute_all; the turn methods say why not."""
    import mcp.types

    from forge.tools import ToolCall

    session = catalogue().deferred("mcp", pinned=["clock"])
    listed = session.tools()
    assert [d["name"] for d in listed] == ["clock", "search_tools"]
    for definition in listed:
        mcp.types.Tool.model_validate(definition)
    (found,) = session.execute_all([ToolCall("1", "search_tools", {"query": "invoice"})])
    assert found.output["tools"][0]["name"] == "invoice_lookup"
    assert "invoice_lookup" in [d["name"] for d in session.tools()]
    (ran,) = asyncio.run(session.aexecute_all([ToolCall("2", "invoice_lookup", {"query": "7"})]))
    assert ran.output == "invoice: 7"
    with pytest.raises(UnsupportedProviderError, match="anthropic"):
        session.run_turn({"content": []})


def test_aliases_are_accepted() -> None:
    """'claude' is anthropic, 'responses' is openai-responses."""
    assert catalogue().deferred("claude").provider == "anthropic"
    assert catalogue().deferred("responses").provider == "openai-responses"


def test_concurrent_searches_keep_the_bound() -> None:
    """Many threads searching and calling at once: no error, the active set stays bounded."""
    session = catalogue().deferred("openai", max_active=3, search_limit=2)
    errors: list[BaseException] = []

    def work(topic: str) -> None:
        try:
            for _ in range(20):
                search(session, topic)
                session.run_turn(completion(("x", f"{topic}_lookup", {"query": "q"})))
                assert len(session.active()) <= 3
                session.tools()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in TOPICS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(session.active()) <= 3


def test_async_turns_and_streams() -> None:
    """arun_turn and stream_turn (sync and async) answer searches and reveal."""
    from openai.types.chat import ChatCompletionChunk

    def chunks(call_id: str, name: str, arguments: dict[str, Any]) -> list[Any]:
        start = {"index": 0, "id": call_id, "type": "function",
                 "function": {"name": name, "arguments": json.dumps(arguments)}}  # fmt: skip
        return [ChatCompletionChunk.model_validate({
            "id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            for delta, finish in (({"tool_calls": [start]}, None), ({}, "tool_calls"))]  # fmt: skip

    session = catalogue().deferred("openai")

    async def main() -> None:
        turn = await session.arun_turn(completion(("a", "search_tools", {"query": "recipe"})))
        assert turn.results[0].output["tools"][0]["name"] == "recipe_lookup"

        async def events() -> AsyncIterator[Any]:
            for chunk in chunks("b", "search_tools", {"query": "stock"}):
                yield chunk

        stream = session.stream_turn(events())
        assert [text async for text in stream] == []
        assert stream.turn.results[0].output["tools"][0]["name"] == "stock_lookup"
        streamed = session.stream_turn(events())
        async for _ in streamed:
            pass
        again = session.stream_turn(aiter_of(chunks("c", "stock_lookup", {"query": "ACME"})))
        async for _ in again:
            pass
        assert again.turn.results[0].output == "stock: ACME"

    asyncio.run(main())
    sync = session.stream_turn(iter(chunks("d", "search_tools", {"query": "translate"})))
    assert list(sync) == []
    assert sync.turn.results[0].output["tools"][0]["name"] == "translate_lookup"
    assert session.active()[-1] == "translate_lookup"


async def aiter_of(items: list[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


def response_calling(provider: str, call_id: str, name: str, arguments: dict[str, Any]) -> Any:
    """A response in ``provider``'s wire shape with one call (provider-formats.md)."""
    text = json.dumps(arguments)
    function = {"name": name, "arguments": text}
    chat = {"role": "assistant", "content": "",
            "tool_calls": [{"id": call_id, "type": "function", "function": function}]}  # fmt: skip
    shapes: dict[str, Any] = {
        "openai": {"choices": [{"index": 0, "message": chat}]},
        "mistral": {"choices": [{"index": 0, "message": chat}]},
        "ollama": {"model": "m", "done": True, "message": {"role": "assistant", "content": "",
                   "tool_calls": [{"function": {"name": name, "arguments": arguments}}]}},
        "openai-responses": {"output": [{"type": "function_call", "id": f"fc_{call_id}",
                                         "call_id": call_id, "name": name, "arguments": text}]},
        "anthropic": {"role": "assistant", "content": [
            {"type": "tool_use", "id": call_id, "name": name, "input": arguments}]},
        "gemini": {"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"id": call_id, "name": name, "args": arguments}}]}}]},
        "bedrock": {"output": {"message": {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": call_id, "name": name, "input": arguments}}]}},
            "stopReason": "tool_use"},
    }  # fmt: skip
    return shapes[provider]


@pytest.mark.parametrize("provider", TURN_PROVIDERS)
def test_every_turn_provider_searches_then_calls(provider: str) -> None:
    """In each provider's shape: a search reveals the tool, the next turn's call runs it."""
    session = catalogue().deferred(provider)
    first = session.run_turn(response_calling(provider, "c1", "search_tools",
                                              {"query": "flight"}))  # fmt: skip
    assert first.results[0].output["tools"][0]["name"] == "flight_lookup"
    assert first.replies
    assert "flight_lookup" in json.dumps(session.tools())
    second = session.run_turn(response_calling(provider, "c2", "flight_lookup",
                                               {"query": "LIS"}))  # fmt: skip
    assert second.results[0].output == "flight: LIS"
    assert not second.done


def test_on_change_is_told_of_membership_changes_only() -> None:
    """Reveals and evictions call on_change with the active set; reordering does not; a
    failing callback is logged, not raised."""
    seen: list[list[str]] = []
    session = catalogue().deferred("openai", pinned=["clock"], max_active=2, search_limit=1,
                                   on_change=seen.append)  # fmt: skip
    session.reveal(["weather_lookup"])
    session.reveal(["weather_lookup"])  # already active: no change
    session.reveal(["hotel_lookup"])
    session.reveal(["weather_lookup"])  # reordered only
    session.reveal(["stock_lookup"])  # evicts hotel_lookup
    assert seen == [["clock", "weather_lookup"], ["clock", "weather_lookup", "hotel_lookup"],
                    ["clock", "weather_lookup", "stock_lookup"]]  # fmt: skip

    def broken(_: list[str]) -> None:
        raise RuntimeError("listener down")

    failing = catalogue().deferred("openai", on_change=broken)
    (result,) = search(failing, "recipe").results
    assert result.success
    assert failing.active() == ["recipe_lookup"]
