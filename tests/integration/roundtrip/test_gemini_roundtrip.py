"""Google Gemini: the google-genai client against the local stub (warnings are errors)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from forge.tools import ToolRegistry, format_results, parse_tool_calls
from forge.tools.parsing import GENERATED_ID_PREFIX

MODEL = "gemini-2.5-flash"


@pytest.fixture(autouse=True)
def _warnings_are_errors() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def _client(stub: Any) -> Any:
    from google import genai
    from google.genai import types

    options = types.HttpOptions(
        base_url=stub.url, timeout=10_000, retry_options=types.HttpRetryOptions(attempts=1)
    )
    return genai.Client(api_key="test-key", http_options=options)


def _response(parts: list[Any]) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
        "modelVersion": MODEL,
    }


@pytest.mark.parametrize("with_ids", [True, False], ids=["gemini-3-ids", "no-ids"])
def test_generate_content_round_trip(
    stub: Any, registry: ToolRegistry, calls: Any, with_ids: bool
) -> None:
    """functionCall parts in, functionResponse parts out; ids kept, or matched by order."""
    from google.genai import types

    ids = ["8f2b1a3c", "9d4e5f6a"]
    parts = [
        {"functionCall": {**({"id": i} if with_ids else {}), "name": n, "args": a},
         **({"thoughtSignature": "c2lnbmF0dXJl"} if k == 0 else {})}
        for k, (i, (n, a)) in enumerate(zip(ids, calls, strict=True))
    ]  # fmt: skip
    stub.reply_json(_response(parts))
    stub.reply_json(_response([{"text": "Paris is 21°C; 42."}]))
    client = _client(stub)
    tools = registry.to_provider("gemini")
    config = types.GenerateContentConfig(tools=tools)
    history: list[Any] = [{"role": "user", "parts": [{"text": "Weather in Paris, and 2+40?"}]}]

    first = client.models.generate_content(model=MODEL, contents=history, config=config)

    sent = stub.requests[0]
    assert sent.path.endswith(f"/models/{MODEL}:generateContent")
    assert sent.body["tools"] == tools
    parsed = parse_tool_calls(first)
    assert [(c.name, dict(c.arguments)) for c in parsed] == calls
    if with_ids:
        assert [c.id for c in parsed] == ids
    else:
        assert all(c.id.startswith(GENERATED_ID_PREFIX) for c in parsed)
    replies = format_results(registry.execute_all(parsed), "gemini")
    model_turn = first.candidates[0].content.model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    history += [model_turn, *replies]

    second = client.models.generate_content(model=MODEL, contents=history, config=config)

    assert second.text == "Paris is 21°C; 42."
    contents = stub.requests[1].body["contents"]
    assert contents[-1] == replies[0]
    assert contents[1]["parts"][0]["thoughtSignature"] == "c2lnbmF0dXJl"  # kept in its part
    responses = [p["functionResponse"] for p in contents[-1]["parts"]]
    assert [r["name"] for r in responses] == ["get_weather", "add"]  # the calls' order
    assert [r.get("id") for r in responses] == (ids if with_ids else [None, None])
    assert responses[0]["response"]["output"]["temperature"] == 21
    assert responses[1]["response"] == {"output": 42}
