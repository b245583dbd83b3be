"""Provider replies checked by the official SDKs' own validators (shared by the reply tests)."""

from __future__ import annotations

from typing import Any


def check_bedrock(messages: list[Any]) -> None:
    """Validate ``messages`` (Bedrock tool results) inside a whole Converse request."""
    import botocore.session
    from botocore.validate import ParamValidator

    service = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = service.operation_model("Converse").input_shape
    calls = [
        {"toolUse": {"toolUseId": b["toolResult"]["toolUseId"], "name": "t", "input": {}}}
        for m in messages
        for b in m["content"]
    ]
    request = {
        "modelId": "anthropic.claude-sonnet-4",
        "messages": [
            {"role": "user", "content": [{"text": "go"}]},
            {"role": "assistant", "content": calls},
            *messages,
        ],
        "toolConfig": {"tools": [{"toolSpec": {"name": "t", "inputSchema": {"json": {}}}}]},
    }
    report = ParamValidator().validate(request, shape)
    assert not report.has_errors(), report.generate_report()


def check_mcp(results: list[Any]) -> None:
    """Validate MCP ``CallToolResult`` dicts and check the SDK reads back exactly them."""
    from mcp.types import CallToolResult

    for result in results:
        model = CallToolResult.model_validate(result)
        dumped = model.model_dump(mode="json", by_alias=True, exclude_none=True)
        dumped.pop("resultType", None)  # the 2026-07-28 SDK always adds it
        assert dumped == result
