"""The README's tool loops: each runs as written, with the official SDK client,
against a model played by a local HTTP server, in at most ten lines of glue.

Each scripted model first writes a little, then calls `get_weather` twice at once (Paris,
whose optional ``unit`` OpenAI's strict mode sends as ``null``, and Rome with a unit the
schema rejects, a failing call), then answers. The tests check what each SDK sent on the
second request against the SDK's request types and against the shape the provider
documents: the assistant turn echoed as it came, the results after it, matched by id.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.integration.turns.stub import StubAPI, exact, sse
from tests.unit.test_readme import blocks, run_block, session

pytestmark = pytest.mark.slow

WEATHER = {"location": "Paris", "temp": 21, "unit": "c"}
BAD_UNIT = {"location": "Rome", "unit": "kelvin"}
QUESTION = "What is the weather in Paris and in Rome?"
ANSWER = "Paris: 21 °C. Rome: I could not say."
ROME_ERROR = "Invalid arguments for tool 'get_weather': unit"


def code_lines(name: str) -> list[str]:
    """The lines of a README block that are not imports, blank or comments."""
    lines = [line.strip() for line in blocks()[name].splitlines()]
    code = [line for line in lines if line and not line.startswith("#")]
    return [line for line in code if not re.match(r"(import|from) \w", line)]


LOOPS = ["turn-openai", "turn-responses", "turn-anthropic", "turn-gemini",
         "turn-openai-stream", "turn-anthropic-stream", "turn-gemini-stream"]  # fmt: skip


@pytest.mark.parametrize("name", LOOPS)
def test_each_loop_is_at_most_ten_lines_of_glue(name: str) -> None:
    """The glue (the loop, from ``while`` or the coroutine around it, to the answer) is at
    most ten lines; with the client, the request and the first message, at most twelve."""
    code = code_lines(name)
    start = next(i for i, line in enumerate(code) if line.startswith(("while", "async def")))
    assert len(code[start:]) <= 10
    assert len(code) <= 12


# -- OpenAI Chat Completions --------------------------------------------------------------

CHAT_CALLS = [
    {"id": "call_1", "type": "function",
     "function": {"name": "get_weather", "arguments": '{"location": "Paris", "unit": null}'}},
    {"id": "call_2", "type": "function",
     "function": {"name": "get_weather", "arguments": json.dumps(BAD_UNIT)}},
]  # fmt: skip


def completion(message: dict[str, Any]) -> Any:
    from openai.types.chat import ChatCompletion

    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return ChatCompletion.model_validate({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-5.5",
        "choices": [{"index": 0, "finish_reason": finish, "logprobs": None,
                     "message": {"role": "assistant", "refusal": None, **message}}],
    })  # fmt: skip


def check_chat(body: dict[str, Any]) -> None:
    """The second request: the user, the assistant turn as sent, then one tool message each."""
    from openai.types.chat import (
        ChatCompletionAssistantMessageParam,
        ChatCompletionToolMessageParam,
    )

    user, assistant, paris, rome = body["messages"]
    assert user == {"role": "user", "content": QUESTION}
    assert assistant == {"role": "assistant", "content": "Let me check.", "tool_calls": CHAT_CALLS}
    exact(ChatCompletionAssistantMessageParam, assistant)
    for message in (paris, rome):
        exact(ChatCompletionToolMessageParam, message)
    assert paris == {"role": "tool", "tool_call_id": "call_1",
                     "content": json.dumps(WEATHER, separators=(",", ":"))}  # fmt: skip
    assert rome["tool_call_id"] == "call_2"
    assert rome["content"].startswith("Error: " + ROME_ERROR)


def test_openai_loop(api: StubAPI, capsys: pytest.CaptureFixture[str]) -> None:
    """Chat Completions: strict null understood, failing call answered, loop ends."""
    api.queue(completion({"content": "Let me check.", "tool_calls": CHAT_CALLS}),
              completion({"content": ANSWER}))  # fmt: skip
    namespace = run_block("turn-openai", session())

    assert capsys.readouterr().out == ANSWER + "\n"
    assert [path for path, _ in api.received] == ["/v1/chat/completions"] * 2
    first, second = api.bodies()
    assert first["tools"] == namespace["registry"].to_provider("openai")
    check_chat(second)
    assert namespace["turn"].done
    assert namespace["messages"][-1] == {"role": "assistant", "content": ANSWER}


def chunks(content: list[str], calls: list[dict[str, Any]]) -> list[Any]:
    """Chat completion chunks: the text in pieces, each call's arguments in three."""
    from openai.types.chat import ChatCompletionChunk

    def chunk(delta: dict[str, Any], finish: str | None = None) -> Any:
        return ChatCompletionChunk.model_validate({
            "id": "chatcmpl-2", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-5.5", "choices": [{"index": 0, "delta": delta,
                                             "finish_reason": finish}],
        })  # fmt: skip

    out = [chunk({"role": "assistant", "content": piece}) for piece in content]
    for index, call in enumerate(calls):
        text = call["function"]["arguments"]
        third = -(-len(text) // 3)
        out.append(chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                          "function": {"name": "get_weather",
                                                       "arguments": ""}}]}))  # fmt: skip
        pieces = [text[i : i + third] for i in range(0, len(text), third)]
        out += [chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                for piece in pieces]  # fmt: skip
    out.append(chunk({}, "tool_calls" if calls else "stop"))
    return out


def test_openai_streamed_loop(api: StubAPI, capsys: pytest.CaptureFixture[str]) -> None:
    """Chat Completions streamed: text printed as it comes, calls joined from fragments."""
    answer = chunks(["Paris: 21 °C. ", "Rome: I could not say."], [])
    api.queue(sse(chunks(["Let me ", "check."], CHAT_CALLS), named=False, done=True),
              sse(answer, named=False, done=True))  # fmt: skip
    run_block("turn-openai-stream", session())

    assert capsys.readouterr().out == "Let me check." + ANSWER
    first, second = api.bodies()
    assert first["stream"] is True
    check_chat(second)


# -- OpenAI Responses -----------------------------------------------------------------------

REASONING = {"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAAAB-opaque",
             "summary": [{"type": "summary_text", "text": "Two cities, two calls."}]}  # fmt: skip
FUNCTION_CALLS = [
    {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
     "arguments": '{"location": "Paris", "unit": null}', "status": "completed"},
    {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "get_weather",
     "arguments": json.dumps(BAD_UNIT), "status": "completed"},
]  # fmt: skip


def response(response_id: str, output: list[dict[str, Any]]) -> Any:
    from openai.types.responses import Response

    return Response.model_validate({
        "id": response_id, "object": "response", "created_at": 1, "model": "gpt-5.5",
        "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "status": "completed",
    })  # fmt: skip


def answer_item() -> dict[str, Any]:
    return {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": ANSWER, "annotations": []}]}  # fmt: skip


def test_responses_loop(api: StubAPI, capsys: pytest.CaptureFixture[str]) -> None:
    """Responses: reasoning and function_call items echoed, then function_call_output."""
    from openai.types.responses import ResponseInputItemParam

    api.queue(response("resp_1", [REASONING, *FUNCTION_CALLS]),
              response("resp_2", [answer_item()]))  # fmt: skip
    run_block("turn-responses", session())

    assert capsys.readouterr().out == ANSWER + "\n"
    assert [path for path, _ in api.received] == ["/v1/responses"] * 2
    user, reasoning, *calls, paris, rome = api.bodies()[1]["input"]
    assert user == {"role": "user", "content": QUESTION}
    assert (reasoning, calls) == (REASONING, FUNCTION_CALLS)
    for item in (user, reasoning, *calls, paris, rome):
        exact(ResponseInputItemParam, item)
    assert (paris["type"], paris["call_id"]) == ("function_call_output", "call_1")
    assert json.loads(paris["output"]) == WEATHER
    assert rome["call_id"] == "call_2"
    assert ROME_ERROR in rome["output"]


# -- Anthropic Messages ---------------------------------------------------------------------

THINKING = {"type": "thinking", "thinking": "Two cities: two calls.", "signature": "EqQBsig=="}
TOOL_USES = [
    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"location": "Paris"}},
    {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": BAD_UNIT},
]  # fmt: skip
FIRST_BLOCKS = [THINKING, {"type": "text", "text": "Let me check."}, *TOOL_USES]


def message(content: list[dict[str, Any]]) -> Any:
    from anthropic.types import Message

    tool_use = any(block["type"] == "tool_use" for block in content)
    return Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": content, "stop_reason": "tool_use" if tool_use else "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 10},
    })  # fmt: skip


def check_anthropic(body: dict[str, Any]) -> None:
    """The thinking block goes back signed and unchanged; the results come first."""
    from anthropic.types import MessageParam

    user, assistant, results = body["messages"]
    assert user == {"role": "user", "content": QUESTION}
    assert assistant == {"role": "assistant", "content": FIRST_BLOCKS}
    for turn in (assistant, results):
        exact(MessageParam, turn)
    assert results["role"] == "user"
    paris, rome = results["content"]  # tool_result blocks only, so first
    assert [paris["tool_use_id"], rome["tool_use_id"]] == ["toolu_1", "toolu_2"]
    assert (json.loads(paris["content"]), paris["is_error"]) == (WEATHER, False)
    assert rome["is_error"] is True
    assert rome["content"].startswith(ROME_ERROR)


def test_anthropic_loop(api: StubAPI, capsys: pytest.CaptureFixture[str]) -> None:
    """Messages: thinking with its signature echoed, tool_result blocks first."""
    api.queue(message(FIRST_BLOCKS), message([{"type": "text", "text": ANSWER}]))
    run_block("turn-anthropic", session())

    assert capsys.readouterr().out == ANSWER + "\n"
    assert [path for path, _ in api.received] == ["/v1/messages"] * 2
    check_anthropic(api.bodies()[1])


def events(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A streamed Anthropic message: thinking, signature and text deltas, JSON fragments."""
    start = message([]).model_dump(mode="json")
    out: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**start, "stop_reason": None}}
    ]
    for index, block in enumerate(blocks):
        kind = block["type"]
        opened = {**block, "input": {}} if kind == "tool_use" else {"type": kind, kind: ""}
        if kind == "thinking":
            opened["signature"] = ""
        out.append({"type": "content_block_start", "index": index, "content_block": opened})
        if kind == "tool_use":
            text = json.dumps(block["input"])
            out += [{"type": "content_block_delta", "index": index,
                     "delta": {"type": "input_json_delta", "partial_json": text[i:i + 7]}}
                    for i in range(0, len(text), 7)]  # fmt: skip
        else:
            out += [{"type": "content_block_delta", "index": index,
                     "delta": {"type": f"{kind}_delta", kind: block[kind][i:i + 9]}}
                    for i in range(0, len(block[kind]), 9)]  # fmt: skip
        if kind == "thinking":
            signed = {"type": "signature_delta", "signature": block["signature"]}
            out.append({"type": "content_block_delta", "index": index, "delta": signed})
        out.append({"type": "content_block_stop", "index": index})
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    out += [{"type": "message_delta", "usage": {"output_tokens": 20},
             "delta": {"stop_reason": stop, "stop_sequence": None}},
            {"type": "message_stop"}]  # fmt: skip
    return out


def test_anthropic_streamed_loop(api: StubAPI, capsys: pytest.CaptureFixture[str]) -> None:
    """Messages streamed through the executor: thinking rebuilt from deltas with its
    signature, calls run while the stream arrives, metrics counted."""
    api.queue(sse(events(FIRST_BLOCKS)), sse(events([{"type": "text", "text": ANSWER}])))
    namespace = run_block("turn-anthropic-stream", session())
    namespace["executor"].close()

    assert capsys.readouterr().out == "Let me check." + ANSWER
    first, second = api.bodies()
    assert first["stream"] is True
    check_anthropic(second)
    counts = namespace["executor"].metrics.snapshot()["get_weather"]
    assert (counts.calls, counts.successes, counts.failures) == (2, 1, 1)


# -- Gemini -----------------------------------------------------------------------------------

GEMINI_CALLS = [
    {"functionCall": {"id": "fc_1", "name": "get_weather", "args": {"location": "Paris"}},
     "thoughtSignature": "c2lnbmF0dXJl"},
    {"functionCall": {"id": "fc_2", "name": "get_weather", "args": BAD_UNIT}},
]  # fmt: skip


def generated(parts: list[dict[str, Any]]) -> Any:
    from google.genai import types

    return types.GenerateContentResponse.model_validate({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
        "modelVersion": "gemini-2.5-flash",
    })  # fmt: skip


def check_gemini(body: dict[str, Any]) -> None:
    """The model's content goes back with its signature; one response per call, by id."""
    from google.genai import types

    user, model, answers = body["contents"]
    assert user == {"role": "user", "parts": [{"text": QUESTION}]}
    assert model == {"role": "model", "parts": [{"text": "Let me check."}, *GEMINI_CALLS]}
    for content in (model, answers):
        validated = types.Content.model_validate(content)  # extra="forbid"
        assert validated.model_dump(mode="json", by_alias=True, exclude_none=True) == content
    paris, rome = (part["functionResponse"] for part in answers["parts"])
    assert answers["role"] == "user"
    assert paris == {"id": "fc_1", "name": "get_weather", "response": {"output": WEATHER}}
    assert (rome["id"], rome["name"]) == ("fc_2", "get_weather")
    assert rome["response"]["error"].startswith(ROME_ERROR)


def test_gemini_loop(api: StubAPI, capsys: pytest.CaptureFixture[str]) -> None:
    """Gemini: thought signature kept on its part, function responses matched by id."""
    api.queue(generated([{"text": "Let me check."}, *GEMINI_CALLS]),
              generated([{"text": ANSWER}]))  # fmt: skip
    run_block("turn-gemini", session())

    assert capsys.readouterr().out == ANSWER + "\n"
    paths = [path for path, _ in api.received]
    assert [p.rsplit("/", 1)[1] for p in paths] == ["gemini-2.5-flash:generateContent"] * 2
    check_gemini(api.bodies()[1])


def test_gemini_streamed_loop(api: StubAPI, capsys: pytest.CaptureFixture[str]) -> None:
    """Gemini streamed: text pieces joined into one part, calls kept whole with the signature."""
    first = [generated([{"text": "Let me "}]), generated([{"text": "check."}]),
             generated(GEMINI_CALLS)]  # fmt: skip
    second = [generated([{"text": "Paris: 21 °C. "}]),
              generated([{"text": "Rome: I could not say."}])]  # fmt: skip
    api.queue(sse(first, named=False), sse(second, named=False))
    run_block("turn-gemini-stream", session())

    assert capsys.readouterr().out == "Let me check." + ANSWER
    paths = [path for path, _ in api.received]
    streamed = "gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert [p.rsplit("/", 1)[1] for p in paths] == [streamed] * 2
    check_gemini(api.bodies()[1])
