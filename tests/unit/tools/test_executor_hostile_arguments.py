"""Hostile argument text: every executor entry point answers each call with a string id."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forge.tools import ErrorKind, ToolRegistry, ToolResult
from forge.tools.execution.executor import ToolExecutor


def echo(text: str) -> int:
    """Return the length of the text."""
    return len(text)


@pytest.fixture(scope="module")
def executor() -> ToolExecutor:
    registry = ToolRegistry()
    registry.register(echo)
    return ToolExecutor(registry)


GOOD = {"id": "good", "name": "echo", "arguments": '{"text": "abc"}'}
HOSTILE = [
    '{"text": ' + "[" * 5_000 + "]" * 5_000 + "}",
    '{"text": ' + "7" * 5_000 + "}",
    "{'text': " + "7" * 5_000 + "}",
    '{"text": "\ud800"}',
    '{"text": "\\ud800"}',
]


def run_everywhere(executor: ToolExecutor, calls: list[Any]) -> list[list[ToolResult]]:
    return [
        asyncio.run(executor.execute_all(calls)),
        asyncio.run(executor.execute_all(calls, parallel=False)),
        executor.execute_all_sync(calls),
        executor.execute_all_sync(calls, parallel=False),
        [executor.execute_call_sync(call) for call in calls],
    ]


def check_batch(results: list[ToolResult], calls: list[Any]) -> None:
    assert len(results) == len(calls)
    for result, call in zip(results, calls, strict=True):
        assert isinstance(result.call_id, str)
        assert result.call_id
        if isinstance(call.get("id"), str) and call["id"]:
            assert result.call_id == call["id"]
    assert results[0].success
    assert results[-1].success


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_argument_text_fails_one_call_and_keeps_the_batch(
    executor: ToolExecutor, text: str
) -> None:
    calls = [GOOD, {"id": "bad", "name": "echo", "arguments": text}, GOOD]
    for results in run_everywhere(executor, calls):
        check_batch(results, calls)


@pytest.mark.parametrize("odd_id", [None, "", 10**5_000], ids=["none", "empty", "huge"])
def test_a_malformed_call_without_a_usable_id_still_gets_a_string_id(
    executor: ToolExecutor, odd_id: Any
) -> None:
    calls = [GOOD, {"id": odd_id, "name": "echo", "arguments": '{"text": ' + "7" * 5_000}, GOOD]
    for results in run_everywhere(executor, calls):
        check_batch(results, calls)
        assert results[1].error_kind is ErrorKind.INVALID_JSON


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60) | st.sampled_from(HOSTILE), st.sampled_from(["c1", "", None]))
def test_any_argument_text_gives_one_result_per_call_with_a_string_id(
    executor: ToolExecutor, text: str, call_id: str | None
) -> None:
    calls = [GOOD, {"id": call_id, "name": "echo", "arguments": text}, GOOD]
    check_batch(asyncio.run(executor.execute_all(calls)), calls)
    check_batch(executor.execute_all_sync(calls, parallel=False), calls)
