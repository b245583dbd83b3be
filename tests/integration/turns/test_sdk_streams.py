"""Turns over each SDK's own stream helpers and async clients, against the local API
: what the SDK yields (raw events, helper events, dicts) gives the same turn."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from forge.tools import ToolExecutor, ToolRegistry
from tests.integration.turns.stub import StubAPI, running, sse
from tests.integration.turns.test_readme_loops import (
    ANSWER,
    BAD_UNIT,
    CHAT_CALLS,
    FIRST_BLOCKS,
    FUNCTION_CALLS,
    QUESTION,
    REASONING,
    WEATHER,
    check_anthropic,
    check_chat,
    chunks,
    events,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def api() -> Iterator[StubAPI]:
    yield from running()


@pytest.fixture(autouse=True)
def empty(api: StubAPI, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    api.reset()
    yield
    assert not api.replies


def test_anthropic_message_stream_helper(api: StubAPI) -> None:
    """`client.messages.stream()` yields raw and derived events: the turn is the same."""
    from anthropic import Anthropic

    api.queue(sse(events(FIRST_BLOCKS)), sse(events([{"type": "text", "text": ANSWER}])))
    client = Anthropic(base_url=api.url, api_key="test", max_retries=0)
    tools = _readme_registry()
    request = {"model": "claude-sonnet-4-6", "max_tokens": 1024,
               "tools": tools.to_provider("anthropic")}  # fmt: skip
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    texts: list[str] = []
    while True:
        with client.messages.stream(**request, messages=messages) as stream:
            streamed = tools.stream_turn(stream)
            texts += streamed
        messages += streamed.turn.messages
        if streamed.turn.done:
            break
    client.close()
    assert "".join(texts) == "Let me check." + ANSWER
    check_anthropic(api.bodies()[1])


def test_openai_async_client_and_stream_helper(api: StubAPI) -> None:
    """The async client's stream through the executor, then `chat.completions.stream()`."""
    from openai import AsyncOpenAI, OpenAI

    answer = chunks(["Paris: 21 °C. ", "Rome: I could not say."], [])
    api.queue(sse(chunks(["Let me ", "check."], CHAT_CALLS), named=False, done=True),
              sse(answer, named=False, done=True))  # fmt: skip
    assert asyncio.run(_async_loop(api, AsyncOpenAI)) == "Let me check." + ANSWER

    api.queue(sse(chunks(["Let me ", "check."], CHAT_CALLS), named=False, done=True),
              sse(answer, named=False, done=True))  # fmt: skip
    client = OpenAI(base_url=f"{api.url}/v1", api_key="sk-test", max_retries=0)
    readme = _readme_registry()
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    request = {"model": "gpt-5.5", "tools": readme.to_provider("openai")}
    while True:
        with client.chat.completions.stream(**request, messages=messages) as stream:
            turn = readme.run_turn(stream)  # read to its end
        messages += turn.messages
        if turn.done:
            break
    client.close()
    check_chat(api.bodies()[3])
    assert turn.text == ANSWER


async def _async_loop(api: StubAPI, kind: Any) -> str:
    client = kind(base_url=f"{api.url}/v1", api_key="sk-test", max_retries=0)
    readme = _readme_registry()
    request = {"model": "gpt-5.5", "tools": readme.to_provider("openai"), "stream": True}
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    texts: list[str] = []
    with ToolExecutor(readme) as executor:
        while True:
            stream = await client.chat.completions.create(**request, messages=messages)
            streamed = executor.stream_turn(stream)
            texts += [text async for text in streamed]
            messages += streamed.turn.messages
            if streamed.turn.done:
                break
    await client.close()
    check_chat(api.bodies()[1])
    return "".join(texts)


def _readme_registry() -> ToolRegistry:
    """The README's `get_weather`, whose ``unit`` is a Literal (so ``kelvin`` is invalid)."""
    from tests.unit.test_readme import session

    registry: ToolRegistry = session()["registry"]
    return registry


def responses_events(response_id: str, output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A Responses stream: items added, text and argument deltas, items done, completed."""
    shell = {"id": response_id, "object": "response", "created_at": 1, "model": "gpt-5.5",
             "output": [], "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
             "status": "in_progress"}  # fmt: skip
    out: list[dict[str, Any]] = [{"type": "response.created", "response": shell}]
    for index, item in enumerate(output):
        out.append({"type": "response.output_item.added", "output_index": index, "item": item})
        if item["type"] == "function_call":
            out.append({"type": "response.function_call_arguments.delta", "output_index": index,
                        "item_id": item["id"], "delta": item["arguments"]})  # fmt: skip
        if item["type"] == "message":
            text = item["content"][0]["text"]
            out += [{"type": "response.output_text.delta", "output_index": index,
                     "item_id": item["id"], "content_index": 0, "delta": piece, "logprobs": []}
                    for piece in (text[:5], text[5:])]  # fmt: skip
        out.append({"type": "response.output_item.done", "output_index": index, "item": item})
    out.append({"type": "response.completed",
                "response": {**shell, "status": "completed", "output": output}})  # fmt: skip
    return [{**event, "sequence_number": n} for n, event in enumerate(out)]


def test_responses_stream(api: StubAPI) -> None:
    """Responses with stream=True: text as it comes, the output items echoed, then the
    function_call_output items answering each call_id."""
    from openai import OpenAI

    message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": ANSWER, "annotations": []}]}  # fmt: skip
    api.queue(sse(responses_events("resp_1", [REASONING, *FUNCTION_CALLS])),
              sse(responses_events("resp_2", [message])))  # fmt: skip
    client = OpenAI(base_url=f"{api.url}/v1", api_key="sk-test", max_retries=0)
    readme = _readme_registry()
    request = {"model": "gpt-5.5", "tools": readme.to_provider("openai-responses")}
    items: list[Any] = [{"role": "user", "content": QUESTION}]
    texts: list[str] = []
    while True:
        streamed = readme.stream_turn(client.responses.create(**request, input=items, stream=True))
        texts += streamed
        items += streamed.turn.messages
        if streamed.turn.done:
            break
    client.close()
    assert "".join(texts) == ANSWER
    _, reasoning, *calls, paris, rome = api.bodies()[1]["input"]
    assert (reasoning, calls) == (REASONING, FUNCTION_CALLS)
    assert (paris["call_id"], json.loads(paris["output"])) == ("call_1", WEATHER)
    assert rome["call_id"] == "call_2"


def test_anthropic_whole_final_message_from_a_stream(api: StubAPI) -> None:
    """`run_turn` on `get_final_message()` equals the streamed turn."""
    from anthropic import Anthropic

    api.queue(sse(events(FIRST_BLOCKS)), sse(events(FIRST_BLOCKS)))
    client = Anthropic(base_url=api.url, api_key="test", max_retries=0)
    readme = _readme_registry()
    request = {"model": "claude-sonnet-4-6", "max_tokens": 1024,
               "messages": [{"role": "user", "content": QUESTION}]}  # fmt: skip
    with client.messages.stream(**request) as stream:
        whole = readme.run_turn(stream.get_final_message())
    streamed = readme.run_turn(client.messages.create(**request, stream=True))
    client.close()
    assert whole.messages == streamed.messages
    check_anthropic({"messages": [request["messages"][0], *whole.messages]})


# -- Mistral and Ollama: the same loop, whole and streamed ------------------------------------

MISTRAL_CALLS = [
    {"id": "D681PevKs", "type": "function", "index": 0,
     "function": {"name": "get_weather", "arguments": '{"location": "Paris"}'}},
    {"id": "aB3dE5fG7", "type": "function", "index": 1,
     "function": {"name": "get_weather", "arguments": json.dumps(BAD_UNIT)}},
]  # fmt: skip


def mistral_completion(message: dict[str, Any]) -> tuple[str, bytes]:
    body = {
        "id": "cmpl-1", "object": "chat.completion", "model": "mistral-large-latest",
        "created": 1, "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
        "choices": [{"index": 0, "message": {"role": "assistant", **message},
                     "finish_reason": "tool_calls" if "tool_calls" in message else "stop"}],
    }  # fmt: skip
    return "application/json", json.dumps(body).encode()


def mistral_stream(message: dict[str, Any]) -> tuple[str, bytes]:
    finish = "tool_calls" if "tool_calls" in message else "stop"
    base = {"id": "cmpl-2", "object": "chat.completion.chunk", "model": "mistral-large-latest",
            "created": 1}  # fmt: skip
    deltas = [{"role": "assistant", "content": message.get("content", "")}]
    deltas += [{"tool_calls": [call]} for call in message.get("tool_calls", [])]
    chunks = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]}
              for d in deltas]  # fmt: skip
    chunks[-1]["choices"][0]["finish_reason"] = finish
    return sse(chunks, named=False, done=True)


@pytest.mark.parametrize("streamed", [False, True])
def test_mistral_loop(api: StubAPI, streamed: bool) -> None:
    """Mistral: the assistant message echoed, a tool message with id and name per call."""
    from mistralai.client import Mistral
    from mistralai.client.models import AssistantMessage, ToolMessage

    reply = mistral_stream if streamed else mistral_completion
    api.queue(reply({"content": "Checking.", "tool_calls": MISTRAL_CALLS}),
              reply({"content": ANSWER}))  # fmt: skip
    client = Mistral(api_key="test", server_url=api.url, timeout_ms=10_000)
    readme = _readme_registry()
    request = {"model": "mistral-large-latest", "tools": readme.to_provider("mistral")}
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    while True:
        if streamed:
            turn = readme.run_turn(client.chat.stream(**request, messages=messages))
        else:
            turn = readme.run_turn(client.chat.complete(**request, messages=messages))
        messages += turn.messages
        if turn.done:
            break
    assert (turn.provider, turn.text) == ("mistral", ANSWER)
    _, assistant, paris, rome = api.bodies()[1]["messages"]
    assert [c["id"] for c in assistant["tool_calls"]] == ["D681PevKs", "aB3dE5fG7"]
    AssistantMessage.model_validate(assistant)
    for answer in (paris, rome):
        ToolMessage.model_validate(answer)
    assert (paris["tool_call_id"], paris["name"]) == ("D681PevKs", "get_weather")
    assert json.loads(paris["content"]) == WEATHER
    assert rome["content"].startswith("Error: Invalid arguments")


def ollama_chunk(message: dict[str, Any], done: bool) -> dict[str, Any]:
    return {"model": "qwen3", "created_at": "2026-01-01T00:00:00Z", "done": done,
            "message": {"role": "assistant", **message}}  # fmt: skip


@pytest.mark.parametrize("streamed", [False, True])
def test_ollama_loop(api: StubAPI, streamed: bool) -> None:
    """Ollama: thinking and calls echoed, a tool message per call, whole or streamed."""
    import ollama

    calls = [{"function": {"name": "get_weather", "arguments": {"location": "Paris"}}},
             {"function": {"name": "get_weather", "arguments": BAD_UNIT}}]  # fmt: skip
    first = [ollama_chunk({"content": "", "thinking": "Two calls."}, False),
             ollama_chunk({"content": "", "tool_calls": calls}, True)]  # fmt: skip
    second = [ollama_chunk({"content": "Paris: 21 °C. "}, False),
              ollama_chunk({"content": "Rome: I could not say."}, True)]  # fmt: skip
    if streamed:
        api.queue(*[("application/x-ndjson", "".join(json.dumps(c) + "\n" for c in chunks).encode())
                    for chunks in (first, second)])  # fmt: skip
    else:
        whole = [ollama_chunk({"content": "", "thinking": "Two calls.", "tool_calls": calls}, True),
                 ollama_chunk({"content": ANSWER}, True)]  # fmt: skip
        api.queue(*[("application/json", json.dumps(c).encode()) for c in whole])
    client = ollama.Client(host=api.url, timeout=10)
    readme = _readme_registry()
    request = {"model": "qwen3", "tools": readme.to_provider("ollama"), "stream": streamed}
    messages: list[Any] = [{"role": "user", "content": QUESTION}]
    while True:
        turn = readme.run_turn(client.chat(**request, messages=messages))
        messages += turn.messages
        if turn.done:
            break
    assert (turn.provider, turn.text) == ("ollama", ANSWER)
    _, assistant, paris, rome = api.bodies()[1]["messages"]
    # (the client leaves the empty content out of what it sends)
    assert assistant == {"role": "assistant", "thinking": "Two calls.", "tool_calls": calls}
    for message in (assistant, paris, rome):
        ollama.Message.model_validate(message)
    assert (paris["role"], json.loads(paris["content"])) == ("tool", WEATHER)
    assert rome["content"].startswith("Error: Invalid arguments")


def test_responses_with_previous_response_id_takes_the_replies(api: StubAPI) -> None:
    """With previous_response_id, `turn.replies` alone is the next input: the outputs."""
    from openai import OpenAI
    from openai.types.responses import Response

    def response(response_id: str, output: list[dict[str, Any]]) -> Any:
        return Response.model_validate({
            "id": response_id, "object": "response", "created_at": 1, "model": "gpt-5.5",
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "status": "completed"})  # fmt: skip

    message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": ANSWER, "annotations": []}]}  # fmt: skip
    api.queue(response("resp_1", [REASONING, *FUNCTION_CALLS]), response("resp_2", [message]))
    client = OpenAI(base_url=f"{api.url}/v1", api_key="sk-test", max_retries=0)
    readme = _readme_registry()
    request = {"model": "gpt-5.5", "tools": readme.to_provider("openai-responses")}
    first = client.responses.create(**request, input=QUESTION)
    turn = readme.run_turn(first)
    last = client.responses.create(**request, input=list(turn.replies),
                                   previous_response_id=first.id)  # fmt: skip
    client.close()
    assert readme.run_turn(last).text == ANSWER
    body = api.bodies()[1]
    assert body["previous_response_id"] == "resp_1"
    assert [(i["type"], i["call_id"]) for i in body["input"]] == [
        ("function_call_output", "call_1"), ("function_call_output", "call_2")]  # fmt: skip
