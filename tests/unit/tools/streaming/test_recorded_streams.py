"""Recorded-shape streams: parallel calls, interleaved and empty fragments, truncation.

Every chunk or event is first validated against the provider SDK's own stream type, so the
sequences are shapes the SDK accepts; where the SDK ships its own accumulator (OpenAI's
``accumulate_delta``, Anthropic's ``accumulate_event``) its result is the oracle.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

from forge.tools import ToolCall, ToolCallAccumulator

# -- OpenAI Chat Completions ---------------------------------------------------------


def chat_chunk(*fragments: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    delta: dict[str, Any] = {"tool_calls": list(fragments)} if fragments else {}
    return {
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000,
        "model": "gpt-4.1",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }  # fmt: skip


def start(index: int, call_id: str, name: str, arguments: str = "") -> dict[str, Any]:
    return {"index": index, "id": call_id, "type": "function",
            "function": {"name": name, "arguments": arguments}}  # fmt: skip


def more(index: int, arguments: str) -> dict[str, Any]:
    return {"index": index, "function": {"arguments": arguments}}


# The interleaved sequence from provider-formats.md §2, then a third call, with an empty
# first fragment, two fragments of one call in one chunk, and an empty fragment.
OPENAI_STREAM = [
    chat_chunk(start(0, "call_1", "search")),
    chat_chunk(more(0, '{"query": "a')),
    chat_chunk(start(1, "call_2", "search", "{}")),
    chat_chunk(more(0, 'b", "corpus": '), more(0, '"docs"}')),
    chat_chunk(start(2, "call_3", "lookup", "")),
    chat_chunk(more(2, "")),
    chat_chunk(more(2, '{"id": [1, ')),
    chat_chunk(more(2, "2]}")),
    chat_chunk(finish="tool_calls"),
]

OPENAI_CALLS = [
    ToolCall("call_1", "search", {"query": "ab", "corpus": "docs"}),
    ToolCall("call_2", "search", {}),
    ToolCall("call_3", "lookup", {"id": [1, 2]}),
]


def _sdk_chat_calls(chunks: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """The OpenAI SDK's own accumulation of the same chunks (the oracle)."""
    from openai.lib.streaming._deltas import accumulate_delta

    acc: dict[object, object] = {}
    for chunk in chunks:
        delta = chunk["choices"][0]["delta"]
        acc = accumulate_delta(acc, json.loads(json.dumps(delta)))
    calls: Any = acc.get("tool_calls", [])
    return [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls]


def test_openai_chunks_are_valid_sdk_chunks() -> None:
    """Every recorded chunk is a valid ``ChatCompletionChunk``."""
    from openai.types.chat import ChatCompletionChunk

    for chunk in OPENAI_STREAM:
        ChatCompletionChunk.model_validate(chunk)


def test_openai_parallel_interleaved_calls() -> None:
    """Fragments are joined by index: three calls, none merged or split, in index order."""
    acc = ToolCallAccumulator("openai")
    completed = [c for chunk in OPENAI_STREAM for c in acc.add(chunk)]
    assert completed == OPENAI_CALLS  # finish_reason completes them
    assert acc.finish() == OPENAI_CALLS
    assert [(c.id, c.name, c.arguments) for c in OPENAI_CALLS] == _sdk_chat_calls(OPENAI_STREAM)


def test_openai_sdk_chunk_objects() -> None:
    """The SDK's ``ChatCompletionChunk`` objects accumulate like their dicts, detected."""
    from openai.types.chat import ChatCompletionChunk

    acc = ToolCallAccumulator()
    for chunk in OPENAI_STREAM:
        acc.add(ChatCompletionChunk.model_validate(chunk))
    assert acc.provider == "openai"
    assert acc.finish() == OPENAI_CALLS


@pytest.mark.parametrize("provider", ["openai", None])
def test_openai_stream_helper_events(provider: str | None) -> None:
    """The events of ``client.chat.completions.stream()`` (what its state machine yields for
    the chunks) give the calls: each ``chunk`` event's chunk is read, the rest skipped."""
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state = ChatCompletionStreamState()
    events = [
        event
        for chunk in OPENAI_STREAM
        for event in state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    ]
    assert {e.type for e in events} > {"chunk", "tool_calls.function.arguments.delta"}
    acc = ToolCallAccumulator(provider)
    completed = [call for event in events for call in acc.add(event)]
    assert completed == acc.finish() == OPENAI_CALLS


def test_openai_parallel_calls_sharing_an_id_stay_apart() -> None:
    """Two calls with one id (servers that number ids per call name, or reuse one) are
    kept apart by their index, as the SDK keeps them; the rebuilt message too."""
    from forge.tools import TurnBuilder

    stream = [
        chat_chunk(start(0, "call_dup", "search", '{"q": ')),
        chat_chunk(start(1, "call_dup", "lookup", '{"id": ')),
        chat_chunk(more(0, '"a"}')),
        chat_chunk(more(1, "7}")),
        chat_chunk(finish="tool_calls"),
    ]
    acc = ToolCallAccumulator("openai")
    for chunk in stream:
        acc.add(chunk)
    calls = acc.finish()
    assert [(c.id, c.name, c.arguments) for c in calls] == _sdk_chat_calls(stream) == [
        ("call_dup", "search", {"q": "a"}), ("call_dup", "lookup", {"id": 7}),
    ]  # fmt: skip
    builder = TurnBuilder("openai")
    for chunk in stream:
        builder.add(chunk)
    turn = builder.finish()
    assert turn.calls == tuple(calls)
    assert [c["function"] for c in turn.items[0]["tool_calls"]] == [
        {"name": "search", "arguments": '{"q": "a"}'}, {"name": "lookup", "arguments": '{"id": 7}'},
    ]  # fmt: skip


def test_openai_truncated_stream() -> None:
    """A stream cut off mid-arguments gives the call with a truncated-JSON problem."""
    acc = ToolCallAccumulator("openai")
    for chunk in OPENAI_STREAM[:7]:  # call_3 stops at '{"id": [1, '
        acc.add(chunk)
    first, second, third = acc.finish()
    assert (first, second) == tuple(OPENAI_CALLS[:2])
    assert third.id == "call_3"
    assert third.argument_error is not None
    assert "truncated JSON" in third.argument_error
    assert third.raw_arguments == '{"id": [1, '


def test_openai_compatible_servers_reusing_index_zero() -> None:
    """Calls that all arrive at index 0 with different ids stay separate."""
    chunks = [
        chat_chunk(start(0, "call_a", "search", '{"query": "x"}')),
        chat_chunk(start(0, "call_b", "search", '{"query": ')),
        chat_chunk(more(0, '"y"}')),
        chat_chunk(finish="tool_calls"),
    ]
    calls = ToolCallAccumulator("openai")
    for chunk in chunks:
        calls.add(chunk)
    assert calls.finish() == [
        ToolCall("call_a", "search", {"query": "x"}),
        ToolCall("call_b", "search", {"query": "y"}),
    ]


def test_openai_repeated_id_and_name_do_not_split_or_double() -> None:
    """A server that repeats the id and name on every fragment still gives one call."""
    chunks = [chat_chunk(start(0, "call_a", "search", '{"q": ')),
              chat_chunk(start(0, "call_a", "search", '"x"}'))]  # fmt: skip
    acc = ToolCallAccumulator("openai")
    for chunk in chunks:
        acc.add(chunk)
    assert acc.finish() == [ToolCall("call_a", "search", {"q": "x"})]


def test_openai_other_choices_are_ignored() -> None:
    """With ``n > 1`` only the first choice's calls are assembled."""
    chunk = chat_chunk(start(0, "call_1", "s", "{}"))
    other = chat_chunk(start(0, "call_x", "other", "{}"))
    other["choices"][0]["index"] = 1
    acc = ToolCallAccumulator("openai")
    acc.add(chunk)
    acc.add(other)
    assert acc.finish() == [ToolCall("call_1", "s", {})]


def test_openai_back_to_back_completions_keep_order() -> None:
    """Two completions fed to one accumulator: indexes restart after a finish_reason.

    The calls come back in the order they were made, first completion first, and a
    second completion whose calls carry no id is not lost in the first one's calls.
    """
    second = [
        chat_chunk({"index": 0, "type": "function", "function": {"name": "now", "arguments": ""}}),
        chat_chunk(more(0, "{}")),
        chat_chunk({"index": 1, "type": "function", "function": {"name": "search",
                                                                  "arguments": '{"query": '}}),
        chat_chunk(more(1, '"z"}')),
        chat_chunk(finish="tool_calls"),
    ]  # fmt: skip
    from openai.types.chat import ChatCompletionChunk

    for chunk in second:
        ChatCompletionChunk.model_validate(chunk)
    acc = ToolCallAccumulator("openai")
    for chunk in OPENAI_STREAM + second:
        acc.add(chunk)
    calls = acc.finish()
    assert calls[:3] == OPENAI_CALLS
    assert [(c.name, c.arguments) for c in calls[3:]] == [("now", {}), ("search", {"query": "z"})]


def test_mistral_complete_calls_in_deltas() -> None:
    """Mistral events (``{"data": chunk}``) carry whole calls, arguments text or object."""
    from mistralai.client.models import CompletionEvent

    events = [
        {"data": {"id": "x", "model": "mistral-large", "object": "chat.completion.chunk",
                  "created": 1, "choices": [{"index": 0, "finish_reason": None, "delta": {
                      "role": "assistant", "content": "", "tool_calls": [
                          {"id": "AbCdEfGh1", "index": 0,
                           "function": {"name": "search", "arguments": '{"q": "x"}'}},
                          {"id": "AbCdEfGh2", "index": 0,
                           "function": {"name": "lookup", "arguments": {"id": 2}}},
                      ]}}]}},
        {"data": {"id": "x", "model": "mistral-large", "object": "chat.completion.chunk",
                  "created": 1,
                  "choices": [{"index": 0, "finish_reason": "tool_calls", "delta": {}}]}},
    ]  # fmt: skip
    acc = ToolCallAccumulator("mistral")
    for event in events:
        acc.add(CompletionEvent.model_validate(event))
    assert acc.finish() == [
        ToolCall("AbCdEfGh1", "search", {"q": "x"}),
        ToolCall("AbCdEfGh2", "lookup", {"id": 2}),
    ]


# -- Anthropic -----------------------------------------------------------------------


def ant_start(index: int, call_id: str, name: str) -> dict[str, Any]:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    return {"type": "content_block_start", "index": index, "content_block": block}


def ant_delta(index: int, partial: str) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index,
            "delta": {"type": "input_json_delta", "partial_json": partial}}  # fmt: skip


def ant_stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


ANTHROPIC_STREAM = [
    {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0,
     "delta": {"type": "text_delta", "text": "Checking."}},
    ant_stop(0),
    ant_start(1, "toolu_01", "search"),
    ant_delta(1, ""),
    ant_delta(1, '{"query": "par'),
    ant_delta(1, 'is", "limit": 2}'),
    ant_stop(1),
    ant_start(2, "toolu_02", "now"),
    ant_delta(2, ""),
    ant_stop(2),
    ant_start(3, "toolu_03", "lookup"),
    ant_delta(3, '{"ids": ["a", '),
    ant_delta(3, '"b"]}'),
    ant_stop(3),
    {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
     "usage": {"output_tokens": 30}},
    {"type": "message_stop"},
]  # fmt: skip

ANTHROPIC_CALLS = [
    ToolCall("toolu_01", "search", {"query": "paris", "limit": 2}),
    ToolCall("toolu_02", "now", {}),
    ToolCall("toolu_03", "lookup", {"ids": ["a", "b"]}),
]


def _anthropic_events(events: list[dict[str, Any]]) -> list[Any]:
    from anthropic.types import RawMessageStreamEvent
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)
    return [adapter.validate_python(e) for e in events]


def test_anthropic_events_match_the_sdk_accumulator() -> None:
    """Our calls equal the tool_use blocks of the SDK's own ``accumulate_event``."""
    from anthropic.lib.streaming._messages import accumulate_event

    snapshot = None
    bufs: dict[int, bytes] = {}
    for event in _anthropic_events(ANTHROPIC_STREAM):
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=bufs)
    assert snapshot is not None
    blocks = [b for b in snapshot.content if b.type == "tool_use"]
    expected = [ToolCall(b.id, b.name, b.input) for b in blocks]  # type: ignore[union-attr]
    acc = ToolCallAccumulator("anthropic")
    completed = [c for event in ANTHROPIC_STREAM for c in acc.add(event)]
    assert completed == acc.finish() == expected == ANTHROPIC_CALLS


def test_anthropic_sdk_event_objects() -> None:
    """The SDK's event objects accumulate like their dicts, provider detected."""
    acc = ToolCallAccumulator()
    for event in _anthropic_events(ANTHROPIC_STREAM):
        acc.add(event)
    assert acc.provider == "anthropic"
    assert acc.finish() == ANTHROPIC_CALLS


def test_anthropic_interleaved_blocks() -> None:
    """Deltas of two open blocks, interleaved, are kept apart by index."""
    events = [
        ant_start(0, "toolu_a", "search"), ant_start(1, "toolu_b", "search"),
        ant_delta(1, '{"query": '), ant_delta(0, '{"query": "A'), ant_delta(1, '"B"}'),
        ant_delta(0, '"}'), ant_stop(1), ant_stop(0),
    ]  # fmt: skip
    _anthropic_events(events)
    acc = ToolCallAccumulator("anthropic")
    for event in events:
        acc.add(event)
    assert acc.finish() == [
        ToolCall("toolu_a", "search", {"query": "A"}),
        ToolCall("toolu_b", "search", {"query": "B"}),
    ]


def test_anthropic_truncated_stream() -> None:
    """A stream that ends inside a block reports truncated JSON for that call only."""
    acc = ToolCallAccumulator("anthropic")
    for event in ANTHROPIC_STREAM[:14]:
        acc.add(event)
    search, now, lookup = acc.finish()
    assert (search, now) == tuple(ANTHROPIC_CALLS[:2])
    assert lookup.argument_error is not None
    assert "unclosed array" in lookup.argument_error


def test_anthropic_indexes_restart_per_message() -> None:
    """One accumulator fed two messages keeps both messages' calls (index 0 reused)."""
    acc = ToolCallAccumulator("anthropic")
    for call_id in ("toolu_x", "toolu_y"):
        for event in ({"type": "message_start"}, ant_start(0, call_id, "s"),
                      ant_delta(0, "{}"), ant_stop(0)):  # fmt: skip
            acc.add(event)
    assert [c.id for c in acc.finish()] == ["toolu_x", "toolu_y"]


# -- OpenAI Responses ----------------------------------------------------------------


def resp_events(call_id: str, item_id: str, index: int, name: str, parts: list[str]) -> list[Any]:
    item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name,
            "arguments": "", "status": "in_progress"}  # fmt: skip
    text = "".join(parts)
    return [
        {"type": "response.output_item.added", "output_index": index, "item": item},
        *[{"type": "response.function_call_arguments.delta", "item_id": item_id,
           "output_index": index, "delta": p} for p in parts],
        {"type": "response.function_call_arguments.done", "item_id": item_id,
         "output_index": index, "arguments": text},
        {"type": "response.output_item.done", "output_index": index,
         "item": {**item, "arguments": text, "status": "completed"}},
    ]  # fmt: skip


def _numbered(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "sequence_number": n} for n, e in enumerate(events)]


def test_responses_interleaved_calls() -> None:
    """Delta events are joined by item id; ``call_id`` is the call's id."""
    a = resp_events("call_a", "fc_a", 1, "search", ["", '{"query": ', '"x"}'])
    b = resp_events("call_b", "fc_b", 2, "lookup", ['{"id": ', "7}"])
    # interleave the two calls' events: both added, deltas alternating, then done
    events = _numbered([a[0], b[0], a[1], b[1], a[2], b[2], a[3], a[4], b[3], b[4], a[5]])
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    objects = [adapter.validate_python(e) for e in events]
    expected = [
        ToolCall("call_a", "search", {"query": "x"}),
        ToolCall("call_b", "lookup", {"id": 7}),
    ]
    for feed in (events, objects):
        acc = ToolCallAccumulator()
        completed = [c for e in feed for c in acc.add(e)]
        assert acc.provider == "openai-responses"
        assert sorted(completed, key=lambda c: c.id) == expected
        assert acc.finish() == expected


def test_responses_stream_helper_events_are_detected() -> None:
    """The events ``client.responses.stream()`` yields (some of its own types, from the
    SDK's helper module) are read as Responses events, whichever comes first."""
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    state = ResponseStreamState(input_tools=[], text_format=None)
    created = {"type": "response.created", "response": {
        "id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5",
        "output": [], "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "status": "in_progress"}}  # fmt: skip
    raw = _numbered([created, *resp_events("call_a", "fc_a", 0, "search", ['{"query": ', '"x"}'])])
    events = [event for e in raw for event in state.handle_event(adapter.validate_python(e))]
    helper = [e for e in events if type(e).__module__.startswith("openai.lib.")]
    assert helper  # the deltas come as the helper's own event type
    acc = ToolCallAccumulator()
    for event in events[events.index(helper[0]) :]:  # its first event is a helper event
        acc.add(event)
    assert acc.provider == "openai-responses"
    assert acc.finish() == [ToolCall("call_a", "search", {"query": "x"})]


def test_responses_truncated_stream() -> None:
    """Without the done events, the fragments so far are decoded (and flagged if cut)."""
    events = resp_events("call_a", "fc_a", 0, "search", ['{"query": ', '"x'])[:3]
    acc = ToolCallAccumulator("openai-responses")
    for event in events:
        acc.add(event)
    (call,) = acc.finish()
    assert call.id == "call_a"
    assert "unclosed string" in (call.argument_error or "")


def test_responses_completed_event_closes_open_calls() -> None:
    """``response.completed`` carries the final items: open calls are completed from it."""
    events = resp_events("call_a", "fc_a", 0, "search", ['{"query": ', '"x"}'])[:3]
    done = {"type": "response.completed", "response": {"output": [
        {"type": "function_call", "id": "fc_a", "call_id": "call_a", "name": "search",
         "arguments": '{"query": "x"}'}]}}  # fmt: skip
    acc = ToolCallAccumulator("openai-responses")
    for event in events:
        acc.add(event)
    assert acc.add(done) == [ToolCall("call_a", "search", {"query": "x"})]


def resp_response(response_id: str, status: str, output: list[Any]) -> dict[str, Any]:
    return {"id": response_id, "object": "response", "created_at": 1700000000,
            "model": "gpt-4.1", "output": output, "parallel_tool_calls": True,
            "tool_choice": "auto", "tools": [], "status": status}  # fmt: skip


def resp_turn(response_id: str, calls: list[tuple[str, str, str, str]]) -> list[dict[str, Any]]:
    """One whole streamed response: a reasoning item at output_index 0, then the calls."""
    reasoning = {"type": "reasoning", "id": f"rs_{response_id}", "summary": []}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": resp_response(response_id, "in_progress", [])},
        {"type": "response.output_item.added", "output_index": 0, "item": reasoning},
        {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
    ]
    done_items: list[dict[str, Any]] = [reasoning]
    for index, (call_id, item_id, name, text) in enumerate(calls, start=1):
        turn = resp_events(call_id, item_id, index, name, [text[:5], text[5:]])
        events += turn
        done_items.append(turn[-1]["item"])
    events.append({"type": "response.completed",
                   "response": resp_response(response_id, "completed", done_items)})  # fmt: skip
    return events


def test_responses_back_to_back_keep_every_response_s_calls() -> None:
    """Two streamed responses fed to one accumulator give both responses' calls, in order.

    ``output_index`` restarts in each response; ``response.created`` starts a new one.
    """
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    first = resp_turn("resp_1", [("call_a", "fc_a", "search", '{"query": "x"}'),
                                 ("call_b", "fc_b", "lookup", '{"id": 1}')])  # fmt: skip
    second = resp_turn("resp_2", [("call_c", "fc_c", "search", '{"query": "y"}')])
    events = _numbered(first + second)
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    objects = [adapter.validate_python(e) for e in events]
    expected = [
        ToolCall("call_a", "search", {"query": "x"}),
        ToolCall("call_b", "lookup", {"id": 1}),
        ToolCall("call_c", "search", {"query": "y"}),
    ]
    for feed in (events, objects):
        acc = ToolCallAccumulator("openai-responses")
        completed = [c for e in feed for c in acc.add(e)]
        assert completed == acc.finish() == expected
    # Only the function-call events, without response.created: the item ids tell.
    calls_only = [e for e in events if e["type"].startswith("response.function_call")
                  or e.get("item", {}).get("type") == "function_call"]  # fmt: skip
    acc = ToolCallAccumulator("openai-responses")
    assert [c for e in calls_only for c in acc.add(e)] == expected
    assert acc.finish() == expected


def test_responses_back_to_back_without_item_ids() -> None:
    """Events with no ids at all still start a new call when an index is reused after done."""
    one = resp_events("call_a", "fc_a", 0, "search", ['{"q": 1}'])
    two = resp_events("call_b", "fc_b", 0, "search", ['{"q": 2}'])
    for event in one + two:
        event.pop("item_id", None)
        if "item" in event:
            del event["item"]["id"]
    acc = ToolCallAccumulator("openai-responses")
    for event in one + two:
        acc.add(event)
    assert [c.id for c in acc.finish()] == ["call_a", "call_b"]


# -- Bedrock -------------------------------------------------------------------------


def br_start(index: int, call_id: str, name: str) -> dict[str, Any]:
    use = {"toolUse": {"toolUseId": call_id, "name": name}}
    return {"contentBlockStart": {"contentBlockIndex": index, "start": use}}


def br_delta(index: int, text: str) -> dict[str, Any]:
    return {"contentBlockDelta": {"contentBlockIndex": index,
                                  "delta": {"toolUse": {"input": text}}}}  # fmt: skip


def br_stop(index: int) -> dict[str, Any]:
    return {"contentBlockStop": {"contentBlockIndex": index}}


BEDROCK_STREAM = [
    {"messageStart": {"role": "assistant"}},
    {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Let me check."}}},
    br_stop(0),
    br_start(1, "tooluse_A1", "search"),
    br_start(2, "tooluse_B2", "lookup"),
    br_delta(1, ""),
    br_delta(2, '{"id": '),
    br_delta(1, '{"query": "x"'),
    br_delta(2, "3}"),
    br_delta(1, "}"),
    br_stop(1),
    br_stop(2),
    {"messageStop": {"stopReason": "tool_use"}},
    {"metadata": {"usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3},
                  "metrics": {"latencyMs": 5}}},
]  # fmt: skip


def test_bedrock_events_are_valid_for_botocore() -> None:
    """Every event matches botocore's ConverseStream event-stream shape."""
    import botocore.session
    from botocore.validate import ParamValidator

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    stream = model.operation_model("ConverseStream").output_shape.members["stream"]
    for event in BEDROCK_STREAM:
        report = ParamValidator().validate(event, stream)
        assert not report.has_errors(), report.generate_report()


def test_bedrock_interleaved_blocks() -> None:
    """Fragments are joined by contentBlockIndex; each stop completes its call."""
    acc = ToolCallAccumulator()
    completed = [c for event in BEDROCK_STREAM for c in acc.add(event)]
    expected = [ToolCall("tooluse_A1", "search", {"query": "x"}),
                ToolCall("tooluse_B2", "lookup", {"id": 3})]  # fmt: skip
    assert acc.provider == "bedrock"
    assert completed == acc.finish() == expected


def test_bedrock_truncated_stream() -> None:
    """A stream that ends before a block stops reports that call as truncated."""
    acc = ToolCallAccumulator("bedrock")
    for event in BEDROCK_STREAM[:9]:
        acc.add(event)
    search, lookup = acc.finish()
    assert "truncated" in (search.argument_error or "")
    assert lookup == ToolCall("tooluse_B2", "lookup", {"id": 3})


def test_bedrock_skips_tools_bedrock_runs_itself() -> None:
    """A block started as ``server_tool_use`` (result streamed after it) is not a call."""
    server = {"toolUseId": "tooluse_srv1", "name": "nova_grounding", "type": "server_tool_use"}
    result = {"toolUseId": "tooluse_srv1", "type": "nova_grounding_result", "status": "success"}
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": server}}},
        br_delta(0, '{"query": "weather '),
        br_delta(0, 'paris"}'),
        br_stop(0),
        {"contentBlockStart": {"contentBlockIndex": 1, "start": {"toolResult": result}}},
        {"contentBlockDelta": {"contentBlockIndex": 1,
                               "delta": {"toolResult": [{"text": "Sunny, 21C"}]}}},
        br_stop(1),
        {"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"text": "Sunny. Noting it."}}},
        br_stop(2),
        br_start(3, "tooluse_C3", "note"),
        br_delta(3, '{"text": "sunny"}'),
        br_stop(3),
        {"messageStop": {"stopReason": "tool_use"}},
    ]  # fmt: skip
    import botocore.session
    from botocore.validate import ParamValidator

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    stream = model.operation_model("ConverseStream").output_shape.members["stream"]
    for event in events:
        report = ParamValidator().validate(event, stream)
        assert not report.has_errors(), report.generate_report()
    acc = ToolCallAccumulator("bedrock")
    completed = [c for event in events for c in acc.add(event)]
    assert completed == acc.finish() == [ToolCall("tooluse_C3", "note", {"text": "sunny"})]


# -- Gemini and Ollama: whole calls per chunk -------------------------------------------


def test_gemini_chunks_with_whole_calls() -> None:
    """Calls from several chunks are collected in order, never merged; no-id calls numbered."""
    from google.genai import types

    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Let me"}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "search", "args": {"query": "x"}}}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "search", "args": {"query": "y"}}},
            {"functionCall": {"id": "g3", "name": "now", "args": {}}}]},
            "finishReason": "STOP"}]},
    ]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        objects = [types.GenerateContentResponse.model_validate(c) for c in chunks]
    results = []
    for feed in (chunks, objects):
        acc = ToolCallAccumulator()
        for chunk in feed:
            acc.add(chunk)
        assert acc.provider == "gemini"
        results.append(acc.finish())
    assert results[0] == results[1]
    first, second, third = results[0]
    assert [c.arguments for c in results[0]] == [{"query": "x"}, {"query": "y"}, {}]
    assert first.id != second.id
    assert third.id == "g3"
    assert first.id.startswith("forge-call-0-")
    assert second.id.startswith("forge-call-1-")


def test_ollama_chunks_with_whole_calls() -> None:
    """Each chunk's ``message.tool_calls`` are complete calls; they are collected."""
    import ollama

    chunks = [
        {"model": "qwen3", "created_at": "2025-01-01T00:00:00Z", "done": False,
         "message": {"role": "assistant", "content": "", "tool_calls": [
             {"function": {"name": "search", "arguments": {"query": "x"}}}]}},
        {"model": "qwen3", "created_at": "2025-01-01T00:00:00Z", "done": False,
         "message": {"role": "assistant", "content": "", "tool_calls": [
             {"function": {"name": "search", "arguments": {"query": "x"}}}]}},
        {"model": "qwen3", "created_at": "2025-01-01T00:00:00Z", "done": True,
         "message": {"role": "assistant", "content": ""}},
    ]  # fmt: skip
    objects = [ollama.ChatResponse.model_validate(c) for c in chunks]
    acc = ToolCallAccumulator()
    for chunk in objects:
        acc.add(chunk)
    calls = acc.finish()
    assert acc.provider == "ollama"
    assert [c.arguments for c in calls] == [{"query": "x"}, {"query": "x"}]
    assert calls[0].id != calls[1].id  # two identical calls stay two calls


# -- general -------------------------------------------------------------------------


def test_chunks_as_json_text() -> None:
    """Chunks given as JSON text (an SSE ``data:`` payload) work like dicts."""
    acc = ToolCallAccumulator()
    for chunk in OPENAI_STREAM:
        acc.add(json.dumps(chunk))
    assert acc.finish() == OPENAI_CALLS


def test_finish_without_chunks_is_empty() -> None:
    """An accumulator that saw nothing has no calls."""
    assert ToolCallAccumulator().finish() == []
    assert ToolCallAccumulator("gemini").finish() == []


def test_unknown_provider_and_undetectable_chunk() -> None:
    """Bad provider names and unrecognisable first chunks fail clearly."""
    from forge.core.errors import UnsupportedProviderError
    from forge.tools import ToolCallFormatError

    with pytest.raises(UnsupportedProviderError):
        ToolCallAccumulator("cohere")
    with pytest.raises(ToolCallFormatError):
        ToolCallAccumulator().add({"hello": "world"})
    with pytest.raises(ToolCallFormatError):
        ToolCallAccumulator().add("data: [DONE]")


@pytest.mark.parametrize(
    ("provider", "events"),
    [
        ("openai", [chat_chunk(start(0, "call_1", "s")), chat_chunk(more(0, 5))]),  # type: ignore[arg-type]
        ("anthropic", [ant_start(0, "toolu_1", "s"), ant_delta(0, ["x"]), ant_stop(0)]),  # type: ignore[arg-type]
        ("openai-responses", [
            {"type": "response.output_item.added", "output_index": 0,
             "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "s"}},
            {"type": "response.function_call_arguments.delta", "item_id": "fc_1",
             "output_index": 0, "delta": 5},
        ]),
    ],
)  # fmt: skip
def test_fragments_that_are_not_text_give_a_call_with_an_error(
    provider: str, events: list[dict[str, Any]]
) -> None:
    """A malformed fragment (a number, a list) is reported on the call, not raised."""
    acc = ToolCallAccumulator(provider)
    for event in events:
        acc.add(event)
    (call,) = acc.finish()
    assert call.name == "s"
    assert call.argument_error is not None
    assert "must be a JSON object" in call.argument_error


# -- Cut off before any argument arrived ----------------------------------------------------


def _cut_before_arguments() -> dict[str, list[Any]]:
    """For each provider that ends every call (or the completion) with an event: a whole
    call, then a call whose stream ends right after it began (that event never came)."""
    added = {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "wipe",
             "arguments": "", "status": "in_progress"}  # fmt: skip
    return {
        "anthropic": [ant_start(0, "toolu_1", "search"), ant_delta(0, '{"query": "x"}'),
                      ant_stop(0), ant_start(1, "toolu_2", "wipe"), ant_delta(1, "")],
        "bedrock": [br_start(0, "tooluse_1", "search"), br_delta(0, '{"query": "x"}'),
                    br_stop(0), br_start(1, "tooluse_2", "wipe")],
        "openai": [chat_chunk(start(0, "toolu_1", "search", '{"query": "x"}')),
                   chat_chunk(start(1, "toolu_2", "wipe"))],
        "openai-responses": [
            *resp_events("toolu_1", "fc_1", 0, "search", ['{"query": "x"}']),
            {"type": "response.output_item.added", "output_index": 1, "item": added},
        ],
    }  # fmt: skip


@pytest.mark.parametrize("provider", sorted(_cut_before_arguments()))
def test_a_call_cut_off_before_its_arguments_is_not_run_with_none(provider: str) -> None:
    """A call the stream cut off before any argument arrived is flagged, not run with
    ``{}`` (which a tool with defaults would accept); the whole call before it is intact."""
    from forge.tools import ErrorKind, ToolRegistry, tool

    ran: list[str] = []

    @tool
    def wipe(path: str = "/tmp/scratch") -> str:
        """Delete the files under a path."""
        ran.append(path)
        return "wiped"

    acc = ToolCallAccumulator(provider)
    for event in _cut_before_arguments()[provider]:
        acc.add(event)
    search, cut = acc.finish()
    assert (search.name, dict(search.arguments), search.argument_error) == (
        "search", {"query": "x"}, None,
    )  # fmt: skip
    assert cut.name == "wipe"
    assert "ended before any of them arrived" in (cut.argument_error or "")
    registry = ToolRegistry()
    registry.register(wipe)
    (result,) = registry.execute_all([cut])
    assert (result.success, result.error_kind, ran) == (False, ErrorKind.INVALID_JSON, [])


def test_a_completed_chat_call_without_arguments_text_takes_none() -> None:
    """With its ``finish_reason``, a chat call whose arguments text is empty (servers send
    ``""`` for a tool without parameters) is complete: its arguments are ``{}``."""
    acc = ToolCallAccumulator("openai")
    for chunk in (chat_chunk(start(0, "call_1", "now")), chat_chunk(finish="tool_calls")):
        acc.add(chunk)
    assert acc.finish() == [ToolCall("call_1", "now", {})]


@pytest.mark.parametrize("streamed", [True, False], ids=["stream", "whole"])
def test_responses_call_the_output_limit_cut_off_is_not_run_with_none(streamed: bool) -> None:
    """An ``incomplete`` response (``max_output_tokens``) whose last function_call item is
    ``incomplete`` with no arguments: that call is flagged, the one before it is intact."""
    from forge.tools import parse_tool_calls

    done = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search",
            "arguments": '{"query": "x"}', "status": "completed"}  # fmt: skip
    cut = {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "wipe",
           "arguments": "", "status": "incomplete"}  # fmt: skip
    response = {"id": "resp_1", "object": "response", "status": "incomplete",
                "incomplete_details": {"reason": "max_output_tokens"},
                "output": [done, cut]}  # fmt: skip
    if streamed:
        acc = ToolCallAccumulator("openai-responses")
        for event in [
            *resp_events("call_1", "fc_1", 0, "search", ['{"query": "x"}']),
            {"type": "response.output_item.added", "output_index": 1,
             "item": {**cut, "status": "in_progress"}},
            {"type": "response.incomplete", "response": response},
        ]:  # fmt: skip
            acc.add(event)
        calls = acc.finish()
    else:
        calls = parse_tool_calls(response)
    first, second = calls
    assert first == ToolCall("call_1", "search", {"query": "x"})
    assert (second.id, second.name, dict(second.arguments)) == ("call_2", "wipe", {})
    assert "ended before any of them arrived" in (second.argument_error or "")
