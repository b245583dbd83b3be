"""Behaviour that spans the parsing, formats, executor and registry modules."""

from __future__ import annotations

import asyncio
from typing import Literal

import pytest

from forge.core.errors import ToolValidationError
from forge.tools import ToolCall, ToolExecutor, ToolRegistry, parse_tool_calls

CALLS: list[dict[str, object]] = []


def weather(city: str, unit: Literal["c", "f"] = "c", days: int = 1) -> str:
    """Report the weather.

    Args:
        city: The city.
        unit: Temperature unit.
        days: Days ahead.
    """
    CALLS.append({"city": city, "unit": unit, "days": days})
    return f"{city}:{unit}:{days}"


def broken_call() -> ToolCall:
    """A call whose JSON arguments were cut off, as parsed from an OpenAI message."""
    message = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city": "Par'},
            }
        ],
    }
    (call,) = parse_tool_calls(message, "openai")
    assert call.argument_error is not None
    return call


@pytest.mark.parametrize("mode", ["async", "sync", "batch", "sync-batch"])
def test_executor_returns_invalid_json_without_running_the_handler(mode: str) -> None:
    """Arguments that could not be decoded give invalid_json; the handler never runs."""
    CALLS.clear()
    executor = ToolExecutor(ToolRegistry([weather]), metrics=True)
    call = broken_call()
    if mode == "async":
        result = asyncio.run(executor.execute_call(call))
    elif mode == "sync":
        result = executor.execute_call_sync(call)
    elif mode == "batch":
        (result,) = asyncio.run(executor.execute_all([call, call]))[:1]
    else:
        (result,) = executor.execute_all_sync([call], parallel=False)
    assert not result.success
    assert result.error_kind == "invalid_json"
    assert result.call_id == "call_1"
    assert "city" in (result.error or "")
    assert CALLS == []


def test_unknown_tool_wins_over_invalid_json() -> None:
    """A broken call to a tool that does not exist is reported as unknown_tool."""
    executor = ToolExecutor(ToolRegistry([]))
    result = asyncio.run(executor.execute_call(broken_call()))
    assert result.error_kind == "unknown_tool"


def test_strict_nulls_take_the_python_defaults() -> None:
    """A null for a defaulted parameter applies its default everywhere, no switch."""
    CALLS.clear()
    registry = ToolRegistry([weather])
    strict_schema = registry.to_provider("openai", strict=True)[0]["function"]["parameters"]
    assert set(strict_schema["required"]) == {"city", "unit", "days"}
    call = ToolCall("c1", "weather", {"city": "Oslo", "unit": None, "days": None})
    (plain,) = registry.execute_all([call])
    assert plain.output == "Oslo:c:1"
    (in_async,) = asyncio.run(registry.aexecute_all([call]))
    assert in_async.output == "Oslo:c:1"
    executor = ToolExecutor(registry)
    assert asyncio.run(executor.execute_call(call)).output == "Oslo:c:1"
    assert executor.execute_call_sync(call).output == "Oslo:c:1"
    assert registry.execute("weather", call.arguments).output == "Oslo:c:1"


def test_the_strict_switches_of_runs_are_gone() -> None:
    """Strict-mode arguments are always understood, so runs take no ``strict=`` switch."""
    registry = ToolRegistry([weather])
    call = ToolCall("c1", "weather", {"city": "Oslo", "unit": None, "days": None})
    (result,) = registry.execute_all([call])
    assert result.output == "Oslo:c:1"
    with pytest.raises(TypeError, match="strict"):
        registry.execute_all([call], strict=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="strict"):
        asyncio.run(registry.aexecute_all([call], strict=True))  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="strict"):
        ToolExecutor(registry, strict=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="strict"):
        asyncio.run(ToolExecutor(registry).execute_all([call], strict=True))  # type: ignore[call-arg]


def test_absurdly_deep_arguments_are_rejected_not_crashing() -> None:
    """Schema-only tools reject arguments nested far too deep instead of crashing the process."""
    registry = ToolRegistry(
        [
            {
                "name": "tree",
                "description": "Take a tree.",
                "parameters": {
                    "type": "object",
                    "properties": {"node": {"$ref": "#/$defs/node"}},
                    "$defs": {
                        "node": {
                            "type": "object",
                            "properties": {"child": {"$ref": "#/$defs/node"}},
                        }
                    },
                },
                "handler": lambda node=None: "ok",
            }
        ]
    )
    deep: dict[str, object] = {}
    for _ in range(100_000):
        deep = {"child": deep}
    with pytest.raises(ToolValidationError, match="nested more than"):
        registry.execute("tree", {"node": deep})
    assert registry.execute("tree", {"node": {"child": {}}}).output == "ok"
