"""Recorded-shape responses of every provider, each with the SDK type that accepts it.

Each sample is the wire JSON a provider returns for a turn with two tool calls (the
shapes in provider-formats.md), the SDK loader that must accept it (the oracle: a sample
the SDK rejects is not a real shape), and the calls it holds.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

ARGS_1 = {"query": "weather in Paris", "limit": 3}
ARGS_2 = {"query": "ünïcode ✓", "filters": {"lang": ["fr", "en"], "since": None}}


@dataclass(frozen=True)
class Sample:
    provider: str
    response: dict[str, Any]
    load: Callable[[dict[str, Any]], Any]
    ids: tuple[str | None, str | None]


def _load_openai(d: dict[str, Any]) -> Any:
    from openai.types.chat import ChatCompletion

    return ChatCompletion.model_validate(d)


def _load_responses(d: dict[str, Any]) -> Any:
    from openai.types.responses import Response

    return Response.model_validate(d)


def _load_anthropic(d: dict[str, Any]) -> Any:
    from anthropic.types import Message

    return Message.model_validate(d)


def _load_gemini(d: dict[str, Any]) -> Any:
    from google.genai import types

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return types.GenerateContentResponse.model_validate(d)


def _load_ollama(d: dict[str, Any]) -> Any:
    import ollama

    return ollama.ChatResponse.model_validate(d)


def _load_mistral(d: dict[str, Any]) -> Any:
    from mistralai.client.models import ChatCompletionResponse

    return ChatCompletionResponse.model_validate(d)


def _load_mcp(d: dict[str, Any]) -> Any:
    from mcp.types import CallToolRequest

    return CallToolRequest.model_validate({k: v for k, v in d.items() if k in ("method", "params")})


def _load_bedrock(d: dict[str, Any]) -> Any:
    import botocore.session
    from botocore.validate import ParamValidator

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    report = ParamValidator().validate(d, model.operation_model("Converse").output_shape)
    assert not report.has_errors(), report.generate_report()
    return d  # boto3 returns plain dicts


def _chat_calls(first_args: Any, second_args: Any, ids: tuple[str, str]) -> list[Any]:
    return [
        {"id": ids[0], "type": "function", "function": {"name": "search", "arguments": first_args}},
        {
            "id": ids[1],
            "type": "function",
            "function": {"name": "lookup", "arguments": second_args},
        },
    ]


SAMPLES = [
    Sample(
        "openai",
        {
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000,
            "model": "gpt-4.1",
            "choices": [{
                "index": 0, "finish_reason": "tool_calls", "logprobs": None,
                "message": {
                    "role": "assistant", "content": None, "refusal": None,
                    "tool_calls": _chat_calls(
                        json.dumps(ARGS_1), json.dumps(ARGS_2, ensure_ascii=False),
                        ("call_Ab1", "call_Cd2"),
                    ),
                },
            }],
        },
        _load_openai,
        ("call_Ab1", "call_Cd2"),
    ),
    Sample(
        "openai-responses",
        {
            "id": "resp_1", "object": "response", "created_at": 1700000000, "model": "gpt-4.1",
            "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto",
            "tools": [],
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search",
                 "arguments": json.dumps(ARGS_1), "status": "completed"},
                {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "lookup",
                 "arguments": json.dumps(ARGS_2), "status": "completed"},
            ],
        },
        _load_responses,
        ("call_1", "call_2"),
    ),
    Sample(
        "anthropic",
        {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 20},
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_01A", "name": "search", "input": ARGS_1},
                {"type": "tool_use", "id": "toolu_01B", "name": "lookup", "input": ARGS_2},
            ],
        },
        _load_anthropic,
        ("toolu_01A", "toolu_01B"),
    ),
    Sample(
        "gemini",
        {
            "candidates": [{
                "content": {"role": "model", "parts": [
                    {"functionCall": {"id": "8f2b1a3c", "name": "search", "args": ARGS_1},
                     "thoughtSignature": "c2lnbmF0dXJl"},
                    {"text": "and"},
                    {"functionCall": {"id": "9a0c2b4d", "name": "lookup", "args": ARGS_2}},
                ]},
                "finishReason": "STOP",
            }],
            "modelVersion": "gemini-3-pro",
        },
        _load_gemini,
        ("8f2b1a3c", "9a0c2b4d"),
    ),
    Sample(
        "gemini",
        {
            "candidates": [{
                "content": {"role": "model", "parts": [
                    {"functionCall": {"name": "search", "args": ARGS_1}},
                    {"functionCall": {"name": "lookup", "args": ARGS_2}},
                ]},
                "finishReason": "STOP",
            }],
        },
        _load_gemini,
        (None, None),
    ),
    Sample(
        "ollama",
        {
            "model": "qwen3", "created_at": "2025-01-01T00:00:00Z", "done": True,
            "message": {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"index": 0, "name": "search", "arguments": ARGS_1}},
                {"function": {"index": 1, "name": "lookup", "arguments": ARGS_2}},
            ]},
        },
        _load_ollama,
        (None, None),
    ),
    Sample(
        "bedrock",
        {
            "output": {"message": {"role": "assistant", "content": [
                {"text": "Looking."},
                {"toolUse": {"toolUseId": "tooluse_AbC1", "name": "search", "input": ARGS_1}},
                {"toolUse": {"toolUseId": "tooluse_DeF2", "name": "lookup", "input": ARGS_2}},
            ]}},
            "stopReason": "tool_use",
            "usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3},
            "metrics": {"latencyMs": 10},
        },
        _load_bedrock,
        ("tooluse_AbC1", "tooluse_DeF2"),
    ),
    Sample(
        "mistral",
        {
            "id": "cmpl-1", "object": "chat.completion", "model": "mistral-large-latest",
            "created": 1700000000,
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            "choices": [{
                "index": 0, "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant", "content": "",
                    "tool_calls": _chat_calls(
                        ARGS_1, json.dumps(ARGS_2), ("D681PevKs", "aB3dE5fG7")
                    ),
                },
            }],
        },
        _load_mistral,
        ("D681PevKs", "aB3dE5fG7"),
    ),
]  # fmt: skip

MCP_REQUESTS = [
    {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
     "params": {"name": "search", "arguments": ARGS_1}},
    {"jsonrpc": "2.0", "id": "req-8", "method": "tools/call",
     "params": {"name": "lookup", "arguments": ARGS_2}},
]  # fmt: skip


@pytest.fixture(params=SAMPLES, ids=lambda s: f"{s.provider}-{'ids' if s.ids[0] else 'no-ids'}")
def sample(request: pytest.FixtureRequest) -> Sample:
    return request.param


@pytest.fixture
def samples() -> dict[str, Sample]:
    """The first sample of each provider."""
    out: dict[str, Sample] = {}
    for s in SAMPLES:
        out.setdefault(s.provider, s)
    return out


@pytest.fixture
def no_id_gemini() -> Sample:
    return next(s for s in SAMPLES if s.provider == "gemini" and s.ids[0] is None)


@pytest.fixture
def mcp_requests() -> list[dict[str, Any]]:
    return json.loads(json.dumps(MCP_REQUESTS))


@pytest.fixture
def args() -> tuple[dict[str, Any], dict[str, Any]]:
    return ARGS_1, ARGS_2


@pytest.fixture
def load_mcp() -> Callable[[dict[str, Any]], Any]:
    return _load_mcp
