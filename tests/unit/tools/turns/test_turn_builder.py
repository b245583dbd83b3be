"""`TurnBuilder`: a streamed turn rebuilt exactly as the whole response would be."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools import ToolCallFormatError, ToolResult, TurnBuilder, read_turn
from tests.unit.tools.turns.test_read_turn import check_converse

TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
ARGUMENTS = st.dictionaries(st.text("abcxyz", min_size=1, max_size=4),
                            st.integers() | TEXT | st.booleans(), max_size=3)  # fmt: skip


def cut(text: str, points: list[int]) -> list[str]:
    """``text`` split at ``points`` (taken modulo its length), in order."""
    marks = sorted({p % (len(text) + 1) for p in points} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(marks)]


def build(events: list[Any], provider: str | None = None) -> Any:
    builder = TurnBuilder(provider)
    texts = [builder.add(event).text for event in events]
    return builder.finish(), "".join(texts)


# -- OpenAI Chat Completions ----------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(text=TEXT, calls=st.lists(ARGUMENTS, max_size=3),
       points=st.lists(st.integers(0, 200), max_size=6))  # fmt: skip
def test_openai_chunks_give_the_whole_message(
    text: str, calls: list[dict[str, Any]], points: list[int]
) -> None:
    """However the text and arguments are cut, the rebuilt message and calls are the whole
    completion's."""
    tool_calls = [{"id": f"call_{i}", "type": "function",
                   "function": {"name": "f", "arguments": json.dumps(args)}}
                  for i, args in enumerate(calls)]  # fmt: skip
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = tool_calls
    whole = {"choices": [{"index": 0, "finish_reason": "stop", "message": message}]}
    chunks: list[Any] = [{"choices": [{"index": 0, "delta": {"content": piece}}]}
                         for piece in cut(text, points)]  # fmt: skip
    for index, call in enumerate(tool_calls):
        pieces = cut(call["function"]["arguments"], points)
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": index, "id": call["id"], "type": "function",
             "function": {"name": "f", "arguments": pieces[0]}}]}}]})  # fmt: skip
        chunks += [{"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": index, "function": {"arguments": piece}}]}}]}
            for piece in pieces[1:]]  # fmt: skip
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    turn, streamed = build(chunks)
    expected = read_turn(whole)
    assert (turn.items, turn.calls, turn.text, streamed) == (
        expected.items,
        expected.calls,
        expected.text,
        text,
    )


# -- Anthropic --------------------------------------------------------------------------------


def anthropic_events(blocks: list[dict[str, Any]], points: list[int]) -> list[dict[str, Any]]:
    start = {"id": "m", "type": "message", "role": "assistant", "content": [], "model": "claude"}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "tool_use":
            events.append({"type": "content_block_start", "index": index,
                           "content_block": {**block, "input": {}}})  # fmt: skip
            deltas = [{"type": "input_json_delta", "partial_json": p}
                      for p in cut(json.dumps(block["input"]), points)]  # fmt: skip
        elif kind == "thinking":
            opened = {"type": "thinking", "thinking": "", "signature": ""}
            events.append({"type": "content_block_start", "index": index, "content_block": opened})
            deltas = [
                {"type": "thinking_delta", "thinking": p} for p in cut(block["thinking"], points)
            ]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        else:
            events.append({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": ""}})  # fmt: skip
            deltas = [{"type": "text_delta", "text": p} for p in cut(block["text"], points)]
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    return [*events, {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
            {"type": "message_stop"}]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(thinking=TEXT, text=TEXT, calls=st.lists(ARGUMENTS, max_size=3),
       points=st.lists(st.integers(0, 200), max_size=6))  # fmt: skip
def test_anthropic_events_give_the_whole_message(
    thinking: str, text: str, calls: list[dict[str, Any]], points: list[int]
) -> None:
    """Thinking (with its signature), text and tool inputs rebuilt from any cut."""
    blocks: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": thinking, "signature": "sig=="},
        {"type": "text", "text": text},
        *[{"type": "tool_use", "id": f"toolu_{i}", "name": "f", "input": args}
          for i, args in enumerate(calls)],
    ]  # fmt: skip
    turn, streamed = build(anthropic_events(blocks, points))
    expected = read_turn({"type": "message", "role": "assistant", "content": blocks,
                          "model": "claude", "stop_reason": "end_turn"})  # fmt: skip
    assert (turn.items, turn.calls, turn.text, streamed) == (
        expected.items,
        expected.calls,
        expected.text,
        text,
    )


def test_anthropic_cut_off_input_goes_as_read() -> None:
    """A tool input cut off mid-JSON is echoed as the call read it, and flagged on the call."""
    events = anthropic_events([{"type": "tool_use", "id": "toolu_1", "name": "f",
                                "input": {"a": 1}}], [])[:-3]  # fmt: skip
    events[-1]["delta"]["partial_json"] = '{"a": 1'
    turn, _ = build(events)
    assert turn.items[0]["content"][0]["input"] == dict(turn.calls[0].arguments)
    assert turn.calls[0].argument_error is not None or turn.calls[0].repaired


def test_anthropic_citations_and_server_tool_input() -> None:
    """Citations deltas land on their text block; a server tool's input is parsed too."""
    events = [
        {"type": "message_start", "message": {"type": "message", "content": [], "model": "c"}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                           "input": {}}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": '{"query": "x"}'}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1,
         "delta": {"type": "citations_delta", "citation": {"type": "char_location",
                   "cited_text": "x", "document_index": 0, "start_char_index": 0,
                   "end_char_index": 1}}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "X"}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_stop"},
    ]  # fmt: skip
    turn, streamed = build(events)
    server, text = turn.items[0]["content"]
    assert server["input"] == {"query": "x"}
    assert (text["text"], len(text["citations"]), streamed, turn.calls) == ("X", 1, "X", ())


# -- OpenAI Responses ----------------------------------------------------------------------------

CALL_ITEM = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f",
             "arguments": '{"a": 1}', "status": "completed"}  # fmt: skip
MESSAGE_ITEM = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "Hi.", "annotations": []}]}  # fmt: skip


def responses_events(final: bool) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1", "output": []}},
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**MESSAGE_ITEM, "content": [], "status": "in_progress"}},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
         "content_index": 0, "delta": "Hi"},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
         "content_index": 0, "delta": "."},
        {"type": "response.output_item.done", "output_index": 0, "item": MESSAGE_ITEM},
        {"type": "response.output_item.added", "output_index": 1,
         "item": {**CALL_ITEM, "arguments": "", "status": "in_progress"}},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 1,
         "delta": '{"a": 1}'},
        {"type": "response.output_item.done", "output_index": 1, "item": CALL_ITEM},
    ]  # fmt: skip
    if final:
        done = {"id": "resp_1", "output": [MESSAGE_ITEM, CALL_ITEM]}
        events.append({"type": "response.completed", "response": done})
    return events


@pytest.mark.parametrize("final", [True, False])
def test_responses_stream_gives_the_output_items(final: bool) -> None:
    """The items come from response.completed, or from the items done when it is missing."""
    turn, streamed = build(responses_events(final))
    assert (turn.provider, turn.items, turn.text, streamed) == (
        "openai-responses",
        (MESSAGE_ITEM, CALL_ITEM),
        "Hi.",
        "Hi.",
    )
    assert [c.id for c in turn.calls] == ["call_1"]


def test_responses_stream_cut_off_mid_call_keeps_the_call_item() -> None:
    """A function_call item the stream cut off goes back (its arguments as they arrived,
    ``status: incomplete``), so the function_call_output answering it has its call."""
    events = responses_events(final=False)[:-1]  # the call's output_item.done never came
    turn, _ = build(events, "openai-responses")
    cut = {**CALL_ITEM, "arguments": '{"a": 1}', "status": "incomplete"}
    assert turn.items == (MESSAGE_ITEM, cut)
    (call,) = turn.calls
    replies = turn.answer([ToolResult.ok(1).for_call(call.id, call.name)]).replies
    assert [r["call_id"] for r in replies] == [cut["call_id"]]
    from openai.types.responses import ResponseFunctionToolCall

    ResponseFunctionToolCall.model_validate(cut)  # an item the API takes back


# -- Gemini, Bedrock, Ollama ------------------------------------------------------------------


def test_gemini_chunks_join_text_and_keep_signed_parts() -> None:
    """Text continuing text is joined; thoughts stay apart; a signed part is kept whole."""

    def chunk(*parts: dict[str, Any]) -> dict[str, Any]:
        return {"candidates": [{"content": {"role": "model", "parts": list(parts)}}]}

    chunks = [
        chunk({"text": "Plan: ", "thought": True}), chunk({"text": "call f.", "thought": True}),
        chunk({"text": "Let me "}), chunk({"text": "check."}),
        chunk({"functionCall": {"name": "f", "args": {"a": 1}}, "thoughtSignature": "c2ln"}),
        chunk({"text": "", "thoughtSignature": "ZW5k"}),
    ]  # fmt: skip
    turn, streamed = build(chunks)
    assert turn.items[0]["parts"] == [
        {"text": "Plan: call f.", "thought": True}, {"text": "Let me check."},
        {"functionCall": {"name": "f", "args": {"a": 1}}, "thoughtSignature": "c2ln"},
        {"text": "", "thoughtSignature": "ZW5k"},
    ]  # fmt: skip
    assert (turn.text, streamed, [c.name for c in turn.calls]) == (
        "Let me check.",
        "Let me check.",
        ["f"],
    )
    reply = turn.answer([]).replies
    assert reply == ()


def test_bedrock_stream_gives_the_message() -> None:
    """ConverseStream: reasoning with its signature, text and a tool input from fragments."""
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0,
                               "delta": {"reasoningContent": {"text": "Hm"}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0,
                               "delta": {"reasoningContent": {"signature": "s1"}}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": "Go"}}},
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"contentBlockStart": {"contentBlockIndex": 2,
                               "start": {"toolUse": {"toolUseId": "t1", "name": "f"}}}},
        {"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"toolUse": {"input": '{"a"'}}}},
        {"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"toolUse": {"input": ": 1}"}}}},
        {"contentBlockStop": {"contentBlockIndex": 2}},
        {"contentBlockDelta": {"contentBlockIndex": 3,
                               "delta": {"reasoningContent": {"redactedContent": b"x"}}}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]  # fmt: skip
    turn, streamed = build(events)
    assert turn.items == ({"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": "Hm", "signature": "s1"}}},
        {"text": "Go"},
        {"toolUse": {"toolUseId": "t1", "name": "f", "input": {"a": 1}}},
        {"reasoningContent": {"redactedContent": b"x"}},
    ]},)  # fmt: skip
    assert (turn.provider, streamed, turn.calls[0].arguments) == ("bedrock", "Go", {"a": 1})
    check_converse(list(turn.answer([ToolResult.ok(1).for_call("t1", "f")]).messages))


def test_ollama_chunks_give_the_message() -> None:
    """Ollama: thinking and content joined, whole calls collected."""
    calls = [{"function": {"name": "f", "arguments": {"a": 1}}}]
    chunks = [
        {"model": "qwen3", "message": {"role": "assistant", "content": "", "thinking": "Hm"}},
        {"model": "qwen3", "message": {"role": "assistant", "content": "Ok"}},
        {"model": "qwen3", "message": {"role": "assistant", "content": "", "tool_calls": calls}},
        {"model": "qwen3", "done": True, "message": {"role": "assistant", "content": ""}},
    ]
    turn, streamed = build(chunks)
    assert turn.items == (
        {"role": "assistant", "content": "Ok", "thinking": "Hm", "tool_calls": calls},
    )
    assert (turn.provider, streamed, len(turn.calls)) == ("ollama", "Ok", 1)


def test_events_as_json_text() -> None:
    """Events given as JSON text are decoded; bad text is a format error naming it."""
    builder = TurnBuilder()
    builder.add(json.dumps({"choices": [{"index": 0, "delta": {"content": "Hi"}}]}))
    assert builder.finish().text == "Hi"
    with pytest.raises(ToolCallFormatError, match="not JSON"):
        TurnBuilder().add("{oops")


def test_an_empty_stream_has_no_turn_without_a_provider() -> None:
    """Nothing read and no provider: the error says the stream was empty."""
    with pytest.raises(ToolCallFormatError, match="ended before its first event"):
        TurnBuilder().finish()
    assert TurnBuilder("anthropic").finish().items == ({"role": "assistant", "content": []},)


def test_a_malformed_event_is_a_format_error() -> None:
    """An event of the wrong shape for its provider raises a format error naming it."""
    with pytest.raises(ToolCallFormatError, match="content_block_start's block is int"):
        TurnBuilder("anthropic").add({"type": "content_block_start", "index": 0,
                                      "content_block": 7})  # fmt: skip


# -- OpenAI-compatible servers: Gemini's endpoint --------------------------------------------

# Gemini's OpenAI-compatible stream, as recorded in public bug reports: no ``index`` on the
# call fragments, arguments continued in index-less fragments, the thought signature in
# ``extra_content`` (Gemini 3 rejects the next request without it), ``finish_reason: stop``.
GEMINI_COMPAT_CALLS = [
    {"id": "function-call-1", "type": "function",
     "function": {"name": "get_weather", "arguments": '{"location": "Sydney"}'},
     "extra_content": {"google": {"thought_signature": "c2lnLTE="}}},
    {"id": "function-call-2", "type": "function",
     "function": {"name": "get_time", "arguments": "{}"}},
]  # fmt: skip
GEMINI_COMPAT_CHUNKS = [
    {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"id": "function-call-1", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"location": '},
         "extra_content": {"google": {"thought_signature": "c2lnLTE="}}}]}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [
        {"function": {"arguments": '"Sydney"}'}}]}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [GEMINI_COMPAT_CALLS[1]]}}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
]  # fmt: skip


@pytest.mark.parametrize("as_sdk", [False, True], ids=["dicts", "sdk-chunks"])
def test_gemini_compatible_chunks_without_index_give_the_whole_message(as_sdk: bool) -> None:
    """Index-less fragments continue their call (as the accumulator reads them), and each
    call's extra_content goes back: the rebuilt message is the whole completion's."""
    from openai._models import construct_type
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    chunks: list[Any] = [
        {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gemini-3",
         **chunk} for chunk in GEMINI_COMPAT_CHUNKS
    ]  # fmt: skip
    if as_sdk:  # built as the SDK builds streamed chunks (it does not require an index)
        chunks = [construct_type(type_=ChatCompletionChunk, value=c) for c in chunks]
    whole = ChatCompletion.model_validate({
        "id": "c", "object": "chat.completion", "created": 1, "model": "gemini-3",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": None, "tool_calls": GEMINI_COMPAT_CALLS}}],
    })  # fmt: skip
    turn, _ = build(chunks, "openai")
    expected = read_turn(whole)
    assert (
        turn.items
        == expected.items
        == ({"role": "assistant", "content": None, "tool_calls": GEMINI_COMPAT_CALLS},)
    )
    assert turn.calls == expected.calls
    assert [c.id for c in turn.calls] == ["function-call-1", "function-call-2"]


def test_extra_content_sent_apart_from_the_call_is_merged_into_it() -> None:
    """A metadata-only fragment (no index, no id) adds to the call before it."""
    chunks = [
        {"choices": [{"index": 0, "delta": {"tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"},
             "extra_content": {"google": {"other": 1}}}]}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [
            {"extra_content": {"google": {"thought_signature": "s"}}}]}}]},
    ]  # fmt: skip
    turn, _ = build(chunks, "openai")
    assert turn.items[0]["tool_calls"] == [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"},
         "extra_content": {"google": {"other": 1, "thought_signature": "s"}}}
    ]  # fmt: skip
    assert [c.name for c in turn.calls] == ["f"]


# -- Vertex AI: a call streamed in pieces ---------------------------------------------------


@pytest.mark.parametrize("feed", ["wire", "snake", "sdk"])
def test_gemini_call_streamed_in_pieces_goes_back_as_one_part(feed: str) -> None:
    """Vertex AI's ``partialArgs`` pieces (and the empty part ending them) are not echoed:
    the call goes back as the one functionCall part a whole response holds, with its
    assembled args and the signature its first piece carried, so the parts match the
    functionResponse parts one to one."""
    from tests.unit.tools.streaming.test_gemini_partial_args import (
        WEATHER,
        WEATHER_CALL,
        chunk,
        fc,
        feeds,
        piece,
    )

    stream = [
        *WEATHER[:1],
        chunk({**fc(id="fc_1", name="get_weather", willContinue=True), "thoughtSignature": "c2ln"}),
        *WEATHER[2:],
        chunk(fc(name="f2", partialArgs=[piece("$.a", numberValue=1)], willContinue=True)),
        chunk(fc(partialArgs=[piece("$.b", stringValue="x")])),
        chunk(fc(name="whole", args={"c": 2})),
    ]
    turn, streamed = build(feeds(stream)[feed], "gemini")
    assert [(c.name, dict(c.arguments)) for c in turn.calls] == [
        ("get_weather", WEATHER_CALL.arguments), ("f2", {"a": 1, "b": "x"}), ("whole", {"c": 2}),
    ]  # fmt: skip
    key = "function_call" if feed == "snake" else "functionCall"
    parts = turn.items[0]["parts"]
    assert (parts[0], streamed) == ({"text": "Checking."}, "Checking.")
    assert parts[1] == {
        key: {"id": "fc_1", "name": "get_weather", "args": WEATHER_CALL.arguments},
        "thoughtSignature": "c2ln",
    }
    assert parts[2:] == [{key: {"name": "f2", "args": {"a": 1, "b": "x"}}},
                         {key: {"name": "whole", "args": {"c": 2}}}]  # fmt: skip
    results = [ToolResult.ok(1).for_call(c.id, c.name) for c in turn.calls]
    replies = turn.answer(results).replies[0]["parts"]
    assert len(replies) == sum(key in p for p in parts) == 3


def test_bedrock_stream_keeps_the_result_of_a_tool_bedrock_ran() -> None:
    """A system tool's ``toolResult`` block (streamed after its ``toolUse``) stays in the
    message, as the whole Converse response holds it; the message is a valid request."""
    server = {"toolUseId": "srv1", "name": "nova_grounding", "type": "server_tool_use"}
    result = {"toolUseId": "srv1", "type": "nova_grounding_result", "status": "success"}

    def delta(index: int, **value: Any) -> dict[str, Any]:
        return {"contentBlockDelta": {"contentBlockIndex": index, "delta": value}}

    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": server}}},
        delta(0, toolUse={"input": '{"query": "paris"}'}),
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"contentBlockStart": {"contentBlockIndex": 1, "start": {"toolResult": result}}},
        delta(1, toolResult=[{"text": "Sunny, "}]),
        delta(1, toolResult=[{"text": "21C"}, {"json": {"t": 21}}]),
        {"contentBlockStop": {"contentBlockIndex": 1}},
        delta(2, text="Noting it."),
        {"contentBlockStop": {"contentBlockIndex": 2}},
        {"contentBlockStart": {"contentBlockIndex": 3,
                               "start": {"toolUse": {"toolUseId": "t1", "name": "f"}}}},
        delta(3, toolUse={"input": '{"a": 1}'}),
        {"contentBlockStop": {"contentBlockIndex": 3}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]  # fmt: skip
    whole = {"role": "assistant", "content": [
        {"toolUse": {**server, "input": {"query": "paris"}}},
        {"toolResult": {**result, "content": [{"text": "Sunny, 21C"}, {"json": {"t": 21}}]}},
        {"text": "Noting it."},
        {"toolUse": {"toolUseId": "t1", "name": "f", "input": {"a": 1}}},
    ]}  # fmt: skip
    turn, streamed = build(events, "bedrock")
    expected = read_turn({"output": {"message": whole}}, "bedrock")
    assert (turn.items, turn.calls, turn.text) == (expected.items, expected.calls, expected.text)
    assert streamed == "Noting it."
    check_converse(list(turn.answer([ToolResult.ok(1).for_call("t1", "f")]).messages))


@settings(max_examples=60, deadline=None)
@given(calls=st.lists(ARGUMENTS, min_size=1, max_size=3),
       points=st.lists(st.integers(0, 200), max_size=6),
       signed=st.lists(st.booleans(), min_size=3, max_size=3))  # fmt: skip
def test_index_less_chunks_cut_anywhere_give_the_whole_message(
    calls: list[dict[str, Any]], points: list[int], signed: list[bool]
) -> None:
    """Gemini's OpenAI-compatible stream (no ``index``): however the arguments are cut, the
    calls and the rebuilt message are the whole completion's, signatures included."""
    tool_calls: list[dict[str, Any]] = []
    for i, args in enumerate(calls):
        function = {"name": "f", "arguments": json.dumps(args)}
        call: dict[str, Any] = {
            "id": f"function-call-{i}",
            "type": "function",
            "function": function,
        }
        if signed[i]:
            call["extra_content"] = {"google": {"thought_signature": f"sig{i}"}}
        tool_calls.append(call)
    whole = {"choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": None, "tool_calls": tool_calls}}]}  # fmt: skip
    chunks: list[Any] = []
    for call in tool_calls:
        first, *rest = cut(call["function"]["arguments"], points)
        head = {**call, "function": {"name": "f", "arguments": first}}
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]})
        chunks += [{"choices": [{"index": 0, "delta": {"tool_calls": [
            {"function": {"arguments": piece}}]}}]} for piece in rest]  # fmt: skip
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    turn, _ = build(chunks, "openai")
    expected = read_turn(whole, "openai")
    assert (turn.items, turn.calls) == (expected.items, expected.calls)
    assert [dict(c.arguments) for c in turn.calls] == calls


@pytest.mark.parametrize("key", ["reasoning_content", "reasoning"])
def test_reasoning_of_openai_compatible_servers_goes_back(key: str) -> None:
    """DeepSeek's thinking mode answers a tool loop with HTTP 400 unless each assistant
    message with tool calls keeps its ``reasoning_content`` (``reasoning``: OpenRouter,
    newer vLLM): it is kept, from a whole completion (the SDK object) and from a stream."""
    from openai._models import construct_type
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    call = {"id": "call_0", "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}  # fmt: skip
    whole = ChatCompletion.model_validate({
        "id": "c", "object": "chat.completion", "created": 1, "model": "deepseek-v4-pro",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "", key: "The user wants Paris.",
            "tool_calls": [call]}}],
    })  # fmt: skip
    deltas = [{"role": "assistant", key: "The user "}, {key: "wants Paris."},
              {"content": ""}, {"tool_calls": [{**call, "index": 0}]}]  # fmt: skip
    chunks = [
        construct_type(type_=ChatCompletionChunk, value={
            "id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        for delta in deltas
    ]  # fmt: skip
    message = {"role": "assistant", "content": None, key: "The user wants Paris.",
               "tool_calls": [call]}  # fmt: skip
    turn, streamed = build(chunks, "openai")
    expected = read_turn(whole)
    assert expected.items[0] == {**message, "content": ""}
    assert turn.items[0] == message
    assert (turn.text, streamed, expected.text, turn.calls) == ("", "", "", expected.calls)


@pytest.mark.parametrize("missing", [None, "", "null"])
def test_calls_without_an_id_go_back_with_the_id_their_replies_answer(missing: Any) -> None:
    """A server that sends no call id: the echoed assistant message carries the id the
    parser gave each call, which its tool message answers (whole and streamed, the stream's
    calls in index order even when index 1 arrives first)."""

    def function(name: str, arguments: str) -> dict[str, Any]:
        return {"name": name, "arguments": arguments}

    calls = [{"type": "function", "function": function("f", '{"a": 1}')},
             {"type": "function", "function": function("g", "{}")}]  # fmt: skip
    if missing is not None:
        calls = [{"id": missing, **call} for call in calls]
    whole = {"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": calls}}]}  # fmt: skip
    chunks: list[Any] = [
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, **calls[1]}]}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, **calls[0], "function": function("f", '{"a": ')}]}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": "1}"}}]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]  # fmt: skip
    for turn in (read_turn(whole, "openai"), build(chunks, "openai")[0]):
        done = turn.answer([ToolResult.ok(1).for_call(c.id, c.name) for c in turn.calls])
        echoed = [(c["id"], c["function"]["name"]) for c in turn.items[0]["tool_calls"]]
        answered = [r["tool_call_id"] for r in done.replies]
        assert echoed == [(c.id, c.name) for c in turn.calls]
        assert [name for _, name in echoed] == ["f", "g"]
        assert [i for i, _ in echoed] == answered
        assert all(answered)
