"""parse_tool_calls on every provider's responses, as dicts and as the SDKs' own objects."""

from __future__ import annotations

import json
from typing import Any

import pytest

from forge.core.errors import UnsupportedProviderError
from forge.tools import ToolCall, ToolCallFormatError, parse_tool_calls
from forge.tools.parsing import GENERATED_ID_PREFIX, PROVIDERS, detect_provider

ARGS_1 = {"query": "weather in Paris", "limit": 3}
ARGS_2 = {"query": "ünïcode ✓", "filters": {"lang": ["fr", "en"], "since": None}}


def _check(calls: list[ToolCall], sample: Any) -> None:
    assert [c.name for c in calls] == ["search", "lookup"]
    assert [c.arguments for c in calls] == [ARGS_1, ARGS_2]
    for call, expected in zip(calls, sample.ids, strict=True):
        if expected is None:
            assert call.id.startswith(GENERATED_ID_PREFIX)
        else:
            assert call.id == expected
    assert not any(c.repaired or c.argument_error for c in calls)


def test_every_sample_is_accepted_by_its_sdk(sample: Any) -> None:
    """The recorded shapes are real: the provider's own SDK type accepts each one."""
    assert sample.load(sample.response) is not None


def test_parses_the_wire_dict(sample: Any) -> None:
    """A whole response dict gives both calls, in order, with the provider's ids."""
    _check(parse_tool_calls(sample.response, sample.provider), sample)


def test_parses_the_sdk_object(sample: Any) -> None:
    """The SDK's response object gives the same calls as its wire dict, provider detected."""
    from_object = parse_tool_calls(sample.load(sample.response))
    assert from_object == parse_tool_calls(sample.response, sample.provider)
    _check(from_object, sample)


def test_detects_the_provider_of_the_dict(sample: Any) -> None:
    """With no provider given, the wire dict's shape names it."""
    assert detect_provider(sample.response) == sample.provider
    _check(parse_tool_calls(sample.response), sample)


def test_detects_the_provider_of_the_sdk_object(sample: Any) -> None:
    """SDK objects are recognised by the package that defines them (boto3 gives dicts)."""
    loaded = sample.load(sample.response)
    assert detect_provider(loaded) == sample.provider


def test_parses_json_text(sample: Any) -> None:
    """The raw HTTP body (text or bytes) parses like the dict."""
    text = json.dumps(sample.response)
    assert parse_tool_calls(text) == parse_tool_calls(sample.response)
    assert parse_tool_calls(text.encode()) == parse_tool_calls(sample.response)


def test_generated_ids_are_stable_and_distinct(sample: Any) -> None:
    """Parsing twice gives equal calls; two calls never share an id."""
    first = parse_tool_calls(sample.response)
    assert first == parse_tool_calls(sample.response)
    assert len({c.id for c in first}) == 2


# -- every level of a response --------------------------------------------------------

LEVELS: list[tuple[str, Any]] = [
    ("openai", lambda r: r["choices"][0]["message"]),
    ("openai", lambda r: r["choices"][0]["message"]["tool_calls"]),
    ("openai-responses", lambda r: r["output"]),
    ("anthropic", lambda r: r["content"]),
    ("gemini", lambda r: r["candidates"][0]["content"]),
    ("gemini", lambda r: r["candidates"][0]["content"]["parts"]),
    ("ollama", lambda r: r["message"]),
    ("ollama", lambda r: r["message"]["tool_calls"]),
    ("bedrock", lambda r: r["output"]["message"]),
    ("bedrock", lambda r: r["output"]["message"]["content"]),
    ("mistral", lambda r: r["choices"][0]["message"]),
]


@pytest.mark.parametrize(("provider", "part"), LEVELS)
def test_parses_inner_levels(provider: str, part: Any, samples: dict[str, Any]) -> None:
    """A message, content, or list of blocks/parts/calls parses like the whole response."""
    sample = samples[provider]
    inner = part(sample.response)
    assert parse_tool_calls(inner, provider) == parse_tool_calls(sample.response, provider)
    assert parse_tool_calls(inner) == parse_tool_calls(sample.response, provider)


@pytest.mark.parametrize(
    ("provider", "part"),
    [
        ("openai", lambda r: r["choices"][0]["message"]["tool_calls"][0]),
        ("openai-responses", lambda r: r["output"][1]),
        ("anthropic", lambda r: r["content"][1]),
        ("gemini", lambda r: r["candidates"][0]["content"]["parts"][0]),
        ("gemini", lambda r: r["candidates"][0]["content"]["parts"][0]["functionCall"]),
        ("bedrock", lambda r: r["output"]["message"]["content"][1]),
        ("bedrock", lambda r: r["output"]["message"]["content"][1]["toolUse"]),
    ],
)
def test_parses_one_call(provider: str, part: Any, samples: dict[str, Any]) -> None:
    """One call, block, part or item on its own gives one call."""
    (call,) = parse_tool_calls(part(samples[provider].response), provider)
    assert (call.name, call.arguments) == ("search", ARGS_1)


# -- provider specifics --------------------------------------------------------------


def test_gemini_snake_case_dump_parses(samples: dict[str, Any]) -> None:
    """A google-genai object dumped without aliases (snake_case) still parses."""
    sample = samples["gemini"]
    dumped = sample.load(sample.response).model_dump(exclude_none=True)
    assert "function_call" in dumped["candidates"][0]["content"]["parts"][0]
    assert parse_tool_calls(dumped) == parse_tool_calls(sample.response)


def test_gemini_without_ids_numbers_calls_in_order(no_id_gemini: Any) -> None:
    """Id-less Gemini calls get ids that say their position and differ by content."""
    calls = parse_tool_calls(no_id_gemini.response)
    assert calls[0].id.startswith(f"{GENERATED_ID_PREFIX}0-")
    assert calls[1].id.startswith(f"{GENERATED_ID_PREFIX}1-")


def test_openai_skips_custom_tool_calls() -> None:
    """Free-text ``custom`` tool calls are not function calls."""
    message = {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "custom", "custom": {"name": "grammar", "input": "text"}},
        {"id": "c2", "type": "function", "function": {"name": "search", "arguments": "{}"}},
    ]}  # fmt: skip
    assert parse_tool_calls(message, "openai") == [ToolCall("c2", "search", {})]


def test_openai_legacy_function_call() -> None:
    """The deprecated single ``function_call`` message field gives one call."""
    message = {"role": "assistant", "function_call": {"name": "search", "arguments": '{"q": 1}'}}
    (call,) = parse_tool_calls(message)
    assert (call.name, call.arguments) == ("search", {"q": 1})


def test_openai_without_tool_calls_is_empty() -> None:
    """A text answer holds no calls."""
    completion = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}}]}
    assert parse_tool_calls(completion) == []
    assert parse_tool_calls({"choices": []}, "openai") == []
    assert parse_tool_calls(None) == []


def test_openai_empty_arguments_mean_no_arguments() -> None:
    """``arguments: ""`` (sent for tools without parameters) is ``{}``, not an error."""
    message = {"tool_calls": [{"id": "c", "function": {"name": "now", "arguments": ""}}]}
    assert parse_tool_calls(message, "openai") == [ToolCall("c", "now", {})]


def test_anthropic_skips_server_tools() -> None:
    """Server-run tool blocks are executed by the API, not by us."""
    content = [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
        {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {}},
    ]
    assert [c.id for c in parse_tool_calls(content, "anthropic")] == ["toolu_1"]


def test_bedrock_skips_tools_bedrock_runs_itself() -> None:
    """A ``server_tool_use`` toolUse, answered in the same message, is not a client call."""
    import botocore.session
    from botocore.validate import ParamValidator

    server = {
        "toolUseId": "tooluse_srv1",
        "name": "nova_code_interpreter",
        "type": "server_tool_use",
        "input": {"code": "print(2 ** 10)"},
    }
    response = {
        "output": {"message": {"role": "assistant", "content": [
            {"toolUse": server},
            {"toolResult": {"toolUseId": "tooluse_srv1", "type": "nova_code_interpreter_result",
                            "status": "success", "content": [{"json": {"stdout": "1024"}}]}},
            {"text": "2^10 is 1024. Saving it."},
            {"toolUse": {"toolUseId": "tooluse_AbC1", "name": "save", "input": {"n": 1024}}},
        ]}},
        "stopReason": "tool_use",
        "usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3},
        "metrics": {"latencyMs": 10},
    }  # fmt: skip
    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    report = ParamValidator().validate(response, model.operation_model("Converse").output_shape)
    assert not report.has_errors(), report.generate_report()
    expected = [ToolCall("tooluse_AbC1", "save", {"n": 1024})]
    assert parse_tool_calls(response) == expected
    assert parse_tool_calls(response["output"]["message"]["content"], "bedrock") == expected
    assert parse_tool_calls(server, "bedrock") == []
    assert parse_tool_calls({"toolUse": server}, "bedrock") == []


def test_anthropic_input_as_text_is_decoded() -> None:
    """A proxy that sends ``input`` as JSON text still gives an object."""
    block = {"type": "tool_use", "id": "t", "name": "s", "input": '{"a": 1}'}
    assert parse_tool_calls(block, "anthropic")[0].arguments == {"a": 1}


def test_responses_skips_other_items() -> None:
    """Messages and reasoning items are not calls; ``call_id`` (not ``id``) is the id."""
    output = [
        {"type": "message", "id": "m", "role": "assistant", "content": []},
        {"type": "function_call", "id": "fc_9", "call_id": "call_9", "name": "s",
         "arguments": "{}"},
    ]  # fmt: skip
    assert parse_tool_calls(output) == [ToolCall("call_9", "s", {})]


def test_mistral_default_null_id_is_replaced() -> None:
    """mistralai's ``ToolCall.id`` defaults to the text "null": such a call gets a real id."""
    from mistralai.client.models import ToolCall as MistralCall

    raw = MistralCall.model_validate({"function": {"name": "s", "arguments": {}}})
    assert raw.id == "null"
    (call,) = parse_tool_calls([raw], "mistral")
    assert call.id.startswith(GENERATED_ID_PREFIX)


def test_mistral_stream_event_wrapper(samples: dict[str, Any]) -> None:
    """A mistralai ``CompletionEvent`` dict (``{"data": chunk}``) is unwrapped."""
    response = samples["mistral"].response
    assert parse_tool_calls({"data": response}) == parse_tool_calls(response, "mistral")


def test_mcp_requests_and_batch(mcp_requests: list[Any]) -> None:
    """JSON-RPC ids become call ids (as text); a batch gives one call per request."""
    calls = parse_tool_calls(mcp_requests)
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("7", "search", ARGS_1),
        ("req-8", "lookup", ARGS_2),
    ]
    other = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert parse_tool_calls([other, mcp_requests[0]], "mcp") == calls[:1]


def test_mcp_sdk_request_and_params(mcp_requests: list[Any], load_mcp: Any) -> None:
    """The SDK's ``CallToolRequest`` and bare params parse; they have no JSON-RPC id."""
    request = load_mcp(mcp_requests[0])
    (call,) = parse_tool_calls(request)
    assert (call.name, call.arguments) == ("search", ARGS_1)
    assert call.id.startswith(GENERATED_ID_PREFIX)
    assert parse_tool_calls(request.params) == [call]
    assert parse_tool_calls({"name": "search", "arguments": ARGS_1}) == [call]


# -- errors --------------------------------------------------------------------------


def test_unknown_provider_lists_the_supported_ones() -> None:
    """An unknown provider name fails and names every supported provider."""
    with pytest.raises(UnsupportedProviderError) as info:
        parse_tool_calls({}, "cohere")
    for name in PROVIDERS:
        assert name in str(info.value)


def test_provider_aliases(samples: dict[str, Any]) -> None:
    """Common aliases are accepted."""
    sample = samples["gemini"]
    assert parse_tool_calls(sample.response, "google") == parse_tool_calls(sample.response)


@pytest.mark.parametrize("given", PROVIDERS)
def test_the_wrong_provider_never_loses_the_calls_silently(given: str, sample: Any) -> None:
    """A response given with the wrong ``provider=`` either still gives its calls (shared
    shapes) or fails naming the provider whose shape it has, never ``[]``."""
    if given == sample.provider:
        return
    for value in (sample.response, sample.load(sample.response)):
        problem = ""
        calls: list[Any] = []
        try:
            calls = parse_tool_calls(value, given)
        except ToolCallFormatError as exc:
            problem = str(exc)
        assert calls or problem, (given, sample.provider)
        if "was given" in problem:
            assert f"pass provider={sample.provider!r}" in problem


@pytest.mark.parametrize(
    ("provider", "value"),
    [
        ("openai", {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}}]}),
        ("anthropic", {"type": "message", "role": "assistant", "model": "claude",
                       "content": [{"type": "text", "text": "Hi"}]}),
        ("gemini", {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}}]}),
        ("openai", {"type": "message", "role": "assistant", "model": "claude",
                    "content": [{"type": "text", "text": "Hi"}]}),
    ],
)  # fmt: skip
def test_a_response_without_calls_gives_none(provider: str, value: Any) -> None:
    """No call in the response, whichever provider is given (even a wrong one): ``[]``."""
    assert parse_tool_calls(value, provider) == []


@pytest.mark.parametrize("value", [{"foo": 1}, [], [1, 2], 42, "not json"])
def test_undetectable_input_fails_clearly(value: Any) -> None:
    """A shape no provider uses fails with an error asking for ``provider=``."""
    with pytest.raises(ToolCallFormatError, match=r"provider|JSON"):
        parse_tool_calls(value)


@pytest.mark.parametrize(
    ("provider", "value"),
    [
        ("openai", {"tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}),
        ("openai", {"tool_calls": [{"id": "c"}]}),
        ("anthropic", [{"type": "tool_use", "id": "t", "input": {}}]),
        ("gemini", [{"functionCall": {"args": {}}}]),
        ("bedrock", [{"toolUse": {"toolUseId": "x", "input": {}}}]),
        ("openai-responses", [{"type": "function_call", "call_id": "c", "arguments": "{}"}]),
        ("mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}),
        ("mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}),
        ("openai", {"tool_calls": "not a list"}),
    ],
)
def test_calls_without_a_name_fail(provider: str, value: Any) -> None:
    """A call with no tool name cannot be answered: that is a format error, not a guess."""
    with pytest.raises(ToolCallFormatError):
        parse_tool_calls(value, provider)


def test_importing_forge_tools_does_not_load_the_parsers() -> None:
    """Parsing, streaming and result formatting load on first use, not with forge.tools."""
    import subprocess
    import sys

    code = (
        "import sys, forge.tools\n"
        "names = ('forge.tools.parsing', 'forge.tools.streaming', 'forge.tools.replies',"
        " 'json_repair')\n"
        "print(sorted(n for n in names if n in sys.modules))\n"
        "from forge.tools import parse_tool_calls, ToolCallAccumulator, format_results\n"
        "print(parse_tool_calls.__module__, ToolCallAccumulator.__module__,"
        " format_results.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.splitlines()  # fmt: skip
    assert out == [
        "[]",
        "forge.tools.parsing forge.tools.streaming forge.tools.replies",
    ]
