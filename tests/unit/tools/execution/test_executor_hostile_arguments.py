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


async def aecho(text: str) -> int:
    """Return the length of the text, asynchronously."""
    await asyncio.sleep(0)
    return len(text)


class Before:
    """A hook, so calls take the general pipeline."""

    def before_call(self, call: Any) -> None:
        return None


def _executors() -> dict[str, ToolExecutor]:
    registry = ToolRegistry()
    registry.register(echo)
    registry.register(aecho)
    return {
        "fast": ToolExecutor(registry),
        "pipeline": ToolExecutor(registry, hooks=[Before()]),
        "limited": ToolExecutor(registry, max_concurrency=2),
    }


EXECUTORS = _executors()


async def _each_call(executor: ToolExecutor, calls: list[Any]) -> list[ToolResult]:
    return [await executor.execute_call(call) for call in calls]


def _by_name(executor: ToolExecutor, calls: list[Any], run_async: bool) -> list[ToolResult]:
    """``run``/``run_sync`` with the argument text, tagged with each call's id."""
    out = []
    for call in calls:
        call_id = call["id"] if isinstance(call.get("id"), str) and call["id"] else None
        if run_async:
            result = asyncio.run(executor.run(call["name"], call["arguments"], call_id=call_id))
        else:
            result = executor.run_sync(call["name"], call["arguments"], call_id=call_id)
        out.append(result if call_id is not None else result.for_call("generated", call["name"]))
    return out


ENTRY_POINTS = {
    "execute_all": lambda ex, calls: asyncio.run(ex.execute_all(calls)),
    "execute_all_sequential": lambda ex, calls: asyncio.run(ex.execute_all(calls, parallel=False)),
    "execute_all_limited": lambda ex, calls: asyncio.run(ex.execute_all(calls, max_concurrency=2)),
    "execute_all_timeout": lambda ex, calls: asyncio.run(ex.execute_all(calls, timeout=5)),
    "execute_all_sync": lambda ex, calls: ex.execute_all_sync(calls),
    "execute_all_sync_sequential": lambda ex, calls: ex.execute_all_sync(calls, parallel=False),
    "execute_call": lambda ex, calls: asyncio.run(_each_call(ex, calls)),
    "execute_call_sync": lambda ex, calls: [ex.execute_call_sync(c) for c in calls],
    "execute_call_sync_timeout": lambda ex, calls: [
        ex.execute_call_sync(c, timeout=5) for c in calls
    ],
    "run": lambda ex, calls: _by_name(ex, calls, run_async=True),
    "run_sync": lambda ex, calls: _by_name(ex, calls, run_async=False),
}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(max_size=60) | st.sampled_from(HOSTILE),
    st.sampled_from(["c1", "", None]),
    st.sampled_from(["echo", "aecho"]),
    st.sampled_from(list(ENTRY_POINTS)),
    st.sampled_from(list(EXECUTORS)),
)
def test_every_entry_point_answers_any_argument_text_once_with_a_string_id(
    text: str, call_id: str | None, name: str, entry: str, path: str
) -> None:
    """Sync and async tools, fast paths and the pipeline, every entry point."""
    good = {**GOOD, "name": name}
    calls = [good, {"id": call_id, "name": name, "arguments": text}, good]
    check_batch(ENTRY_POINTS[entry](EXECUTORS[path], calls), calls)
