"""AWS Bedrock Converse: botocore's client against the local stub.

botocore validates every request against its service model (ParamValidator) before it
sends it, so a request that reaches the stub is one the SDK accepts.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import pytest

from forge.tools import ToolRegistry, format_results, parse_tool_calls

MODEL = "anthropic.claude-sonnet-4-v1:0"


def _client(stub: Any) -> Any:
    import botocore.session
    from botocore.config import Config

    session = botocore.session.get_session()
    return session.create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=stub.url,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=10),
    )


def _converse(content: list[Any], stop: str) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {"inputTokens": 10, "outputTokens": 10, "totalTokens": 20},
        "metrics": {"latencyMs": 100},
    }


def test_converse_round_trip(stub: Any, registry: ToolRegistry, calls: Any) -> None:
    """toolUse blocks in, toolResult blocks with status out, toolUseIds exact."""
    ids = ["tooluse_Ab1Cd2Ef3", "tooluse_Gh4Ij5Kl6"]
    stub.reply_json(_converse([
        {"text": "Checking."},
        *[{"toolUse": {"toolUseId": i, "name": n, "input": a}}
          for i, (n, a) in zip(ids, calls, strict=True)],
    ], "tool_use"))  # fmt: skip
    stub.reply_json(_converse([{"text": "Paris is 21°C; 42."}], "end_turn"))
    client = _client(stub)
    tool_config = {"tools": registry.to_provider("bedrock")}
    history: list[Any] = [{"role": "user", "content": [{"text": "Weather in Paris, and 2+40?"}]}]

    first = client.converse(modelId=MODEL, messages=history, toolConfig=tool_config)

    sent = stub.requests[0]
    assert unquote(sent.path) == f"/model/{MODEL}/converse"
    assert sent.body["toolConfig"] == tool_config
    parsed = parse_tool_calls(first)
    assert [(c.id, c.name, dict(c.arguments)) for c in parsed] == [
        (i, n, a) for i, (n, a) in zip(ids, calls, strict=True)
    ]
    replies = format_results(registry.execute_all(parsed), "bedrock")
    history += [first["output"]["message"], *replies]

    second = client.converse(modelId=MODEL, messages=history, toolConfig=tool_config)

    assert second["output"]["message"]["content"][0]["text"] == "Paris is 21°C; 42."
    sent_messages = stub.requests[1].body["messages"]
    assert sent_messages[-1] == replies[0]
    blocks = [b["toolResult"] for b in sent_messages[-1]["content"]]
    assert [b["toolUseId"] for b in blocks] == ids
    assert [b["status"] for b in blocks] == ["success", "success"]
    assert blocks[0]["content"][0]["json"]["temperature"] == 21
    assert blocks[1]["content"] == [{"text": "42"}]


def test_botocore_rejects_a_malformed_result_before_sending(stub: Any) -> None:
    """The oracle bites: a toolResult without toolUseId never leaves the client."""
    from botocore.exceptions import ParamValidationError

    bad = {"role": "user", "content": [{"toolResult": {"content": [{"text": "x"}]}}]}
    with pytest.raises(ParamValidationError):
        _client(stub).converse(modelId=MODEL, messages=[bad])
    assert stub.requests == []
