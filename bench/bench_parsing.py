"""Tool-call parsing benchmarks: 1,000 tool calls out of a response, whole and streamed.

Run directly (``python bench/bench_parsing.py``) or through ``bench/run_all.py``. Every ratio
compares measurements taken in this one process run. Each case turns the same 1,000 OpenAI
Chat Completions tool calls into (id, name, arguments dict) triples:

- openai SDK: ``ChatCompletion.model_validate(response)`` then ``json.loads`` of each call's
  arguments: what a user of the official client does, **the baseline**.
- ours: ``parse_tool_calls(response)`` on the wire dict (provider detected), and on the SDK's
  ``ChatCompletion`` object.
- langchain-core: ``parse_tool_calls(raw_tool_calls)`` (``langchain_core.output_parsers``).
- pydantic-ai: ``ToolCallPart(...).args_as_dict()`` per call.
- openai-agents: ``Converter.message_to_output_items(message)`` plus ``json.loads``.

Streaming: the same 1,000 calls arrive as 3,001 chunks (three argument fragments each, then
``finish_reason``); ours is ``ToolCallAccumulator`` against the openai SDK's own
``ChatCompletionStreamState``, both fed the SDK's ``ChatCompletionChunk`` objects.

Informational rows parse the same calls in the other providers' shapes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import Row, compare_us, ratio_row, render_rows

CALLS = 1_000
BASELINE = "openai SDK `model_validate` + `json.loads`"
STREAM_BASELINE = "openai SDK `ChatCompletionStreamState`"

Case = Callable[[], Any]


def _arguments(i: int) -> dict[str, Any]:
    return {"query": f"item {i}", "limit": i % 10, "filters": {"lang": "en", "tags": ["a", "b"]}}


def workload() -> dict[str, Any]:
    """A chat completion holding 1,000 tool calls."""
    calls = [
        {"id": f"call_{i:06d}", "type": "function",
         "function": {"name": f"tool_{i % 50}", "arguments": json.dumps(_arguments(i))}}
        for i in range(CALLS)
    ]  # fmt: skip
    return {
        "id": "chatcmpl-bench", "object": "chat.completion", "created": 1700000000,
        "model": "gpt-4.1",
        "choices": [{"index": 0, "finish_reason": "tool_calls",
                     "message": {"role": "assistant", "content": None, "tool_calls": calls}}],
    }  # fmt: skip


def _check(triples: list[tuple[str, str, dict[str, Any]]]) -> None:
    expected = [(f"call_{i:06d}", f"tool_{i % 50}", _arguments(i)) for i in range(CALLS)]
    if triples != expected:
        raise AssertionError("a case parsed the calls wrongly")


def _openai_sdk(response: dict[str, Any]) -> Case:
    from openai.types.chat import ChatCompletion

    def run() -> Any:
        message = ChatCompletion.model_validate(response).choices[0].message
        return [(c.id, c.function.name, json.loads(c.function.arguments))
                for c in message.tool_calls or () if c.type == "function"]  # fmt: skip

    return run


def _ours(response: Any) -> Case:
    from forge.tools import parse_tool_calls

    def run() -> Any:
        return parse_tool_calls(response)

    return run


def _ours_object(response: dict[str, Any]) -> Case:
    from openai.types.chat import ChatCompletion

    return _ours(ChatCompletion.model_validate(response))


def _langchain(response: dict[str, Any]) -> Case:
    from langchain_core.output_parsers.openai_tools import parse_tool_calls

    raw = response["choices"][0]["message"]["tool_calls"]

    def run() -> Any:
        return [(c["id"], c["name"], c["args"]) for c in parse_tool_calls(raw)]

    return run


def _pydantic_ai(response: dict[str, Any]) -> Case:
    from pydantic_ai.messages import ToolCallPart

    raw = response["choices"][0]["message"]["tool_calls"]

    def run() -> Any:
        parts = [ToolCallPart(c["function"]["name"], c["function"]["arguments"], c["id"])
                 for c in raw]  # fmt: skip
        return [(p.tool_call_id, p.tool_name, p.args_as_dict()) for p in parts]

    return run


def _openai_agents(response: dict[str, Any]) -> Case:
    from agents.models.chatcmpl_converter import Converter
    from openai.types.chat import ChatCompletion

    message = ChatCompletion.model_validate(response).choices[0].message

    def run() -> Any:
        items = Converter.message_to_output_items(message)
        return [(i.call_id, i.name, json.loads(i.arguments))  # type: ignore[union-attr, arg-type]
                for i in items if getattr(i, "type", "") == "function_call"]  # fmt: skip

    return run


def _triples(out: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """Our ToolCalls, or a peer's triples, as comparable triples."""
    return [(c.id, c.name, dict(c.arguments)) if hasattr(c, "arguments") else c for c in out]


# -- streaming -----------------------------------------------------------------------


def stream_chunks(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The calls as chunks: each call's arguments in three fragments."""
    chunks = []
    base = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-4.1"}  # fmt: skip
    for index, call in enumerate(response["choices"][0]["message"]["tool_calls"]):
        text = call["function"]["arguments"]
        third = len(text) // 3
        pieces = [text[:third], text[third : 2 * third], text[2 * third :]]
        for n, piece in enumerate(pieces):
            fragment: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
            if n == 0:
                fragment.update(id=call["id"], type="function")
                fragment["function"]["name"] = call["function"]["name"]
            delta = {"tool_calls": [fragment]}
            chunks.append({**base, "choices": [{"index": 0, "delta": delta,
                                                "finish_reason": None}]})  # fmt: skip
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return chunks


def _stream_sdk(objects: list[Any]) -> Case:
    from openai.lib.streaming.chat import ChatCompletionStreamState

    def run() -> Any:
        state: Any = ChatCompletionStreamState()
        for chunk in objects:
            state.handle_chunk(chunk)
        message = state.get_final_completion().choices[0].message
        return [(c.id, c.function.name, json.loads(c.function.arguments))
                for c in message.tool_calls]  # fmt: skip

    return run


def _stream_ours(chunks: list[Any]) -> Case:
    from forge.tools import ToolCallAccumulator

    def run() -> Any:
        acc = ToolCallAccumulator("openai")
        for chunk in chunks:
            acc.add(chunk)
        return acc.finish()

    return run


# -- other providers -------------------------------------------------------------------


def other_shapes(response: dict[str, Any]) -> dict[str, Any]:
    """The same calls as Anthropic, Gemini, Bedrock and Responses responses."""
    calls = [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
             for c in response["choices"][0]["message"]["tool_calls"]]  # fmt: skip
    return {
        "anthropic": {"type": "message", "role": "assistant", "content": [
            {"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]},
        "gemini": {"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"id": i, "name": n, "args": a}} for i, n, a in calls]}}]},
        "bedrock": {"output": {"message": {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": i, "name": n, "input": a}} for i, n, a in calls]}}},
        "openai-responses": {"output": [
            {"type": "function_call", "id": f"fc_{k}", "call_id": i, "name": n,
             "arguments": json.dumps(a)} for k, (i, n, a) in enumerate(calls)]},
    }  # fmt: skip


def _prepared(builders: dict[str, Callable[[], Case]]) -> tuple[dict[str, Case], list[Row]]:
    cases: dict[str, Case] = {}
    failed: list[Row] = []
    for label, build in builders.items():
        try:
            case = build()
            _check(_triples(case()))
        except ImportError:
            failed.append(Row(label, status="not installed"))
        except Exception as exc:
            failed.append(Row(label, status=f"error: {type(exc).__name__}: {exc}"[:120]))
        else:
            cases[label] = case
    return cases, failed


def run() -> list[str]:
    """Measure and return the Markdown tables."""
    response = workload()
    others = other_shapes(response)
    whole: dict[str, Callable[[], Case]] = {
        BASELINE: lambda: _openai_sdk(response),
        "**ours** `parse_tool_calls(dict)`": lambda: _ours(response),
        "**ours** `parse_tool_calls(ChatCompletion)`": lambda: _ours_object(response),
        "langchain-core `parse_tool_calls` (info)": lambda: _langchain(response),
        "pydantic-ai `ToolCallPart.args_as_dict` (info)": lambda: _pydantic_ai(response),
        "openai-agents `Converter` + `json.loads` (info)": lambda: _openai_agents(response),
    }
    for provider, shaped in others.items():
        whole[f"**ours** `{provider}` dict (info)"] = partial(_ours, shaped)
    chunks = stream_chunks(response)
    streamed: dict[str, Callable[[], Case]] = {
        STREAM_BASELINE: lambda: _stream_sdk(_chunk_objects(chunks)),
        "**ours** `ToolCallAccumulator` on `ChatCompletionChunk`s": lambda: _stream_ours(
            _chunk_objects(chunks)
        ),
        "**ours** `ToolCallAccumulator` on dicts (info)": lambda: _stream_ours(chunks),
    }
    return [
        _table(f"Parsing {CALLS:,} tool calls (µs per call)", whole, BASELINE),
        _table(f"Assembling {CALLS:,} streamed tool calls (µs per call)", streamed,
               STREAM_BASELINE),
    ]  # fmt: skip


def _chunk_objects(chunks: list[dict[str, Any]]) -> list[Any]:
    from openai.types.chat import ChatCompletionChunk

    return [ChatCompletionChunk.model_validate(c) for c in chunks]


def _table(title: str, builders: dict[str, Callable[[], Case]], baseline: str) -> str:
    cases, failed = _prepared(builders)
    times = {k: v / CALLS for k, v in compare_us(cases, repeat=5).items()}
    base = times.get(baseline)
    rows: list[Row] = []
    for label in builders:
        if label not in times:
            rows.extend(r for r in failed if r.label == label)
            continue
        target = 1.0 if label.startswith("**ours**") and "(info)" not in label else None
        rows.append(ratio_row(label, times[label], base, baseline, max_ratio=target))
    return render_rows(title, rows)


def main() -> None:
    """Print the tables."""
    for table in run():
        print(table, end="\n\n", flush=True)


if __name__ == "__main__":
    main()
