"""Property tests for the accumulators: any fragmentation, any interleaving, any cut.

For random sets of parallel calls, each call's argument text is cut into random fragments
(empty ones included), the fragments of all calls are interleaved at random (each call's
own order kept), and the provider's stream is built from them. The accumulator must give
back exactly the calls: never two merged, never one split. Cutting one call short must
flag that call, and only that call, as truncated.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools import ToolCall, ToolCallAccumulator

JSON_SCALARS = (
    st.none() | st.booleans() | st.integers(-(10**9), 10**9)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12)
)  # fmt: skip
JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
ARGUMENTS = st.dictionaries(st.text(max_size=8), JSON, max_size=4)
NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,20}", fullmatch=True)

Plan = list[tuple[str, str, list[str]]]  # (id, name, fragments) per call


def fragments(data: st.DataObject, text: str) -> list[str]:
    """Cut ``text`` at random points, sometimes adding empty fragments."""
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=6)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def interleave(data: st.DataObject, plan: Plan) -> list[tuple[int, str]]:
    """A random merge of every call's fragments, keeping each call's own order."""
    queues = [list(frags) for _, _, frags in plan]
    order: list[tuple[int, str]] = []
    while any(queues):
        live = [i for i, q in enumerate(queues) if q]
        pick = data.draw(st.sampled_from(live))
        order.append((pick, queues[pick].pop(0)))
    return order


# -- stream builders, one per provider --------------------------------------------------


def openai_stream(plan: Plan, order: list[tuple[int, str]], done: bool) -> list[Any]:
    def chunk(fragment: dict[str, Any] | None, finish: str | None = None) -> dict[str, Any]:
        delta = {"tool_calls": [fragment]} if fragment else {}
        return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip

    out = [chunk({"index": i, "id": cid, "type": "function",
                  "function": {"name": name, "arguments": ""}})
           for i, (cid, name, _) in enumerate(plan)]  # fmt: skip
    out += [chunk({"index": i, "function": {"arguments": text}}) for i, text in order]
    return out + ([chunk(None, "tool_calls")] if done else [])


def anthropic_stream(plan: Plan, order: list[tuple[int, str]], done: bool) -> list[Any]:
    out: list[Any] = [{"type": "message_start", "message": {}}]
    out += [{"type": "content_block_start", "index": i,
             "content_block": {"type": "tool_use", "id": cid, "name": name, "input": {}}}
            for i, (cid, name, _) in enumerate(plan)]  # fmt: skip
    out += [
        {"type": "content_block_delta", "index": i,
         "delta": {"type": "input_json_delta", "partial_json": text}}
        for i, text in order
    ]  # fmt: skip
    if done:
        out += [{"type": "content_block_stop", "index": i} for i in range(len(plan))]
        out.append({"type": "message_stop"})
    return out


def bedrock_stream(plan: Plan, order: list[tuple[int, str]], done: bool) -> list[Any]:
    out: list[Any] = [{"messageStart": {"role": "assistant"}}]
    out += [{"contentBlockStart": {"contentBlockIndex": i,
                                   "start": {"toolUse": {"toolUseId": cid, "name": name}}}}
            for i, (cid, name, _) in enumerate(plan)]  # fmt: skip
    out += [
        {"contentBlockDelta": {"contentBlockIndex": i, "delta": {"toolUse": {"input": text}}}}
        for i, text in order
    ]
    if done:
        out += [{"contentBlockStop": {"contentBlockIndex": i}} for i in range(len(plan))]
        out.append({"messageStop": {"stopReason": "tool_use"}})
    return out


def responses_stream(plan: Plan, order: list[tuple[int, str]], done: bool) -> list[Any]:
    out: list[Any] = [
        {"type": "response.output_item.added", "output_index": i,
         "item": {"type": "function_call", "id": f"fc_{i}", "call_id": cid, "name": name,
                  "arguments": ""}}
        for i, (cid, name, _) in enumerate(plan)
    ]  # fmt: skip
    out += [{"type": "response.function_call_arguments.delta", "item_id": f"fc_{i}",
             "output_index": i, "delta": text} for i, text in order]  # fmt: skip
    if done:
        for i, (cid, name, frags) in enumerate(plan):
            item = {"type": "function_call", "id": f"fc_{i}", "call_id": cid, "name": name,
                    "arguments": "".join(frags)}  # fmt: skip
            out.append({"type": "response.output_item.done", "output_index": i, "item": item})
    return out


BUILDERS: dict[str, Callable[[Plan, list[tuple[int, str]], bool], list[Any]]] = {
    "openai": openai_stream,
    "anthropic": anthropic_stream,
    "bedrock": bedrock_stream,
    "openai-responses": responses_stream,
}


@st.composite
def calls_and_plan(
    draw: st.DrawFn, prefix: str = "call"
) -> tuple[list[ToolCall], Plan, st.DataObject]:
    data = draw(st.data())
    count = draw(st.integers(1, 4))
    names = [draw(NAMES) for _ in range(count)]
    args = [draw(ARGUMENTS) for _ in range(count)]
    indent = draw(st.sampled_from([None, 1]))
    calls = [ToolCall(f"{prefix}_{i}", names[i], args[i]) for i in range(count)]
    texts = [json.dumps(a, indent=indent, ensure_ascii=draw(st.booleans())) for a in args]
    plan = [(c.id, c.name, fragments(data, t)) for c, t in zip(calls, texts, strict=True)]
    return calls, plan, data


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(BUILDERS)), calls_and_plan())
def test_any_fragmentation_and_interleaving_gives_the_calls(
    provider: str, drawn: tuple[list[ToolCall], Plan, st.DataObject]
) -> None:
    """Whatever the cuts and the interleaving, the calls come back exactly, in order."""
    calls, plan, data = drawn
    stream = BUILDERS[provider](plan, interleave(data, plan), True)
    acc = ToolCallAccumulator(provider)
    completed = [c for event in stream for c in acc.add(event)]
    assert acc.finish() == calls
    assert sorted(completed, key=lambda c: c.id) == calls


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(sorted(BUILDERS)),
    calls_and_plan(),
    calls_and_plan("next"),
    st.booleans(),
)
def test_streams_back_to_back_give_every_call_in_order(
    provider: str,
    first: tuple[list[ToolCall], Plan, st.DataObject],
    second: tuple[list[ToolCall], Plan, st.DataObject],
    announced: bool,
) -> None:
    """One accumulator fed two whole streams (a tool loop's turns) keeps both turns' calls.

    Each stream's indexes start at 0 again; Responses streams may or may not begin with
    ``response.created``.
    """
    streams = []
    for calls, plan, data in (first, second):
        stream = BUILDERS[provider](plan, interleave(data, plan), True)
        if provider == "openai-responses" and announced:
            stream.insert(0, {"type": "response.created", "response": {"output": []}})
        streams.append(stream)
    acc = ToolCallAccumulator(provider)
    completed = [c for event in streams[0] + streams[1] for c in acc.add(event)]
    assert acc.finish() == first[0] + second[0]
    assert sorted(completed, key=lambda c: c.id) == sorted(first[0] + second[0], key=lambda c: c.id)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(BUILDERS)), calls_and_plan())
def test_a_cut_off_call_is_flagged_and_the_others_are_intact(
    provider: str, drawn: tuple[list[ToolCall], Plan, st.DataObject]
) -> None:
    """Dropping the end of one call's text flags that call as truncated, and no other."""
    calls, plan, data = drawn
    victim = data.draw(st.integers(0, len(plan) - 1))
    text = "".join(plan[victim][2])
    keep = data.draw(st.integers(1, len(text) - 1))
    plan[victim] = (plan[victim][0], plan[victim][1], fragments(data, text[:keep]))
    stream = BUILDERS[provider](plan, interleave(data, plan), False)
    acc = ToolCallAccumulator(provider)
    for event in stream:
        acc.add(event)
    result = acc.finish()
    assert [c.id for c in result] == [c.id for c in calls]
    for index, (got, want) in enumerate(zip(result, calls, strict=True)):
        if index == victim:
            assert got.argument_error is not None
            assert not got.repaired
            assert got.raw_arguments == text[:keep]
        else:
            assert got == want
