"""Execution hooks: order, short-circuits, replacements, failures and async hooks."""

import asyncio
import logging
from typing import Any

import pytest

from forge.tools import ErrorKind, ExecutionContext, ToolCall, ToolRegistry, ToolResult
from forge.tools.execution.executor import ToolExecutor
from forge.tools.execution.hooks import ExecutionHook, ToolInvocation

CALLS: list[int] = []


def add(a: int, b: int) -> int:
    """Add two integers."""
    CALLS.append(a)
    return a + b


async def aadd(a: int, b: int) -> int:
    """Add two integers asynchronously."""
    CALLS.append(a)
    return a + b


@pytest.fixture(autouse=True)
def clear_calls() -> None:
    CALLS.clear()


class Journal(ExecutionHook):
    """Records every hook call under a label."""

    def __init__(self, label: str, log: list[str]) -> None:
        self.label = label
        self.log = log

    def before_call(self, call: ToolInvocation) -> None:
        self.log.append(f"{self.label}.before:{call.name}:{call.kwargs}")
        call.state[self.label] = "seen"

    def after_call(self, call: ToolInvocation, result: ToolResult) -> None:
        self.log.append(f"{self.label}.after:{call.name}:{result.success}:{call.state}")


def registry() -> ToolRegistry:
    return ToolRegistry([add, aadd])


@pytest.mark.parametrize("name", ["add", "aadd"])
def test_hooks_run_in_order_around_the_handler(name: str) -> None:
    """before_call hooks run in order, after_call hooks in reverse, around the handler."""
    log: list[str] = []
    ex = ToolExecutor(registry(), hooks=[Journal("a", log), Journal("b", log)])
    for result in (
        asyncio.run(ex.run(name, {"a": 1, "b": 2})),
        ex.run_sync(name, {"a": 1, "b": 2}),
    ):
        assert result.output == 3
    kwargs = {"a": 1, "b": 2}
    state = {"a": "seen", "b": "seen"}
    expected = [
        f"a.before:{name}:{kwargs}",
        f"b.before:{name}:{kwargs}",
        f"b.after:{name}:True:{state}",
        f"a.after:{name}:True:{state}",
    ]
    assert log == expected * 2


def test_a_before_hook_can_end_the_call() -> None:
    """A before_call that returns a result stops the call: the handler never runs."""

    class Block(ExecutionHook):
        def before_call(self, call: ToolInvocation) -> ToolResult:
            return ToolResult.fail("blocked by policy", error_kind=ErrorKind.DENIED)

    log: list[str] = []
    ex = ToolExecutor(registry(), hooks=[Block(), Journal("j", log)])
    result = asyncio.run(ex.run("add", {"a": 1, "b": 2}, call_id="c1"))
    assert (result.error, result.call_id, result.tool_name) == ("blocked by policy", "c1", "add")
    assert CALLS == []
    assert log == ["j.after:add:False:{}"]


def test_an_after_hook_can_replace_the_result() -> None:
    """after_call returning a ToolResult replaces the result (call id kept)."""

    class Redact(ExecutionHook):
        def after_call(self, call: ToolInvocation, result: ToolResult) -> ToolResult:
            return ToolResult.ok("[redacted]")

    ex = ToolExecutor(registry(), hooks=[Redact()])
    result = ex.execute_call_sync(ToolCall("c9", "add", {"a": 1, "b": 2}))
    assert (result.output, result.call_id, result.tool_name) == ("[redacted]", "c9", "add")


def test_after_hooks_see_unknown_tools_and_invalid_arguments() -> None:
    """after_call sees every outcome: tool None for unknown names, kwargs None if invalid."""
    seen: list[tuple[str, bool, bool, Any]] = []

    class Watch(ExecutionHook):
        def after_call(self, call: ToolInvocation, result: ToolResult) -> None:
            seen.append((call.name, call.tool is None, call.kwargs is None, result.error_kind))

    ex = ToolExecutor(registry(), hooks=[Watch()])
    asyncio.run(ex.run("nope"))
    asyncio.run(ex.run("add", {"a": "x"}))
    ex.run_sync("add", "{not json")
    assert seen == [
        ("nope", True, True, ErrorKind.UNKNOWN_TOOL),
        ("add", False, True, ErrorKind.INVALID_ARGUMENTS),
        ("add", False, True, ErrorKind.INVALID_JSON),
    ]


def test_async_hooks_are_awaited_in_both_entry_points() -> None:
    """Hook methods may be async, for async and sync entry points alike."""
    log: list[str] = []

    class AsyncHook:
        async def before_call(self, call: ToolInvocation) -> None:
            await asyncio.sleep(0)
            log.append("before")

        async def after_call(self, call: ToolInvocation, result: ToolResult) -> ToolResult:
            await asyncio.sleep(0)
            log.append("after")
            return result.replace(metadata={"traced": True})

    ex = ToolExecutor(registry(), hooks=[AsyncHook()])
    assert asyncio.run(ex.run("aadd", {"a": 1, "b": 1})).metadata == {"traced": True}
    assert ex.run_sync("add", {"a": 1, "b": 1}).metadata == {"traced": True}
    assert log == ["before", "after", "before", "after"]


def test_a_failing_before_hook_fails_the_call_safely(caplog: pytest.LogCaptureFixture) -> None:
    """A before_call that raises is logged; the call fails without running the handler."""

    class Broken(ExecutionHook):
        def before_call(self, call: ToolInvocation) -> None:
            raise RuntimeError("tracing backend down")

    ex = ToolExecutor(registry(), hooks=[Broken()])
    with caplog.at_level(logging.ERROR, logger="forge.tools.executor"):
        for result in (
            asyncio.run(ex.run("add", {"a": 1, "b": 1})),
            ex.run_sync("add", {"a": 1, "b": 1}),
        ):
            assert result.error_kind is ErrorKind.TOOL_ERROR
            assert result.metadata["retryable"] is False
            assert "tracing backend down" not in (result.error or "")
    assert CALLS == []
    assert "before_call hook" in caplog.text


def test_a_before_hook_returning_garbage_fails_the_call(caplog: pytest.LogCaptureFixture) -> None:
    """A before_call must return None or a ToolResult; anything else fails the call."""

    class Wrong(ExecutionHook):
        def before_call(self, call: ToolInvocation) -> Any:
            return "yes"

    ex = ToolExecutor(registry(), hooks=[Wrong()])
    with caplog.at_level(logging.ERROR, logger="forge.tools.executor"):
        assert ex.run_sync("add", {"a": 1, "b": 1}).error_kind is ErrorKind.TOOL_ERROR
    assert CALLS == []


def test_a_failing_after_hook_keeps_the_result(caplog: pytest.LogCaptureFixture) -> None:
    """An after_call that raises is logged and the result stands."""

    class Broken(ExecutionHook):
        def after_call(self, call: ToolInvocation, result: ToolResult) -> None:
            raise RuntimeError("metrics backend down")

    ex = ToolExecutor(registry(), hooks=[Broken()])
    with caplog.at_level(logging.ERROR, logger="forge.tools.executor"):
        assert asyncio.run(ex.run("add", {"a": 1, "b": 1})).output == 2
        assert ex.run_sync("add", {"a": 1, "b": 1}).output == 2
    assert caplog.text.count("after_call hook") == 2


def test_hooks_can_be_added_and_removed() -> None:
    """add_hook and remove_hook change what runs on the next call."""
    log: list[str] = []
    hook = Journal("j", log)
    ex = ToolExecutor(registry())
    ex.add_hook(hook)
    assert ex.hooks == (hook,)
    ex.run_sync("add", {"a": 1, "b": 1})
    ex.remove_hook(hook)
    ex.remove_hook(hook)
    ex.run_sync("add", {"a": 1, "b": 1})
    assert len(log) == 2
    with pytest.raises(TypeError, match="before_call or after_call"):
        ex.add_hook(object())


def test_hooks_see_the_context_and_timeout() -> None:
    """The invocation carries the context, call id and effective timeout."""
    seen: list[ToolInvocation] = []

    class Keep(ExecutionHook):
        def before_call(self, call: ToolInvocation) -> None:
            seen.append(call)

    ex = ToolExecutor(registry(), hooks=[Keep()])
    ctx = ExecutionContext(session_id="s", timeout=9)
    ex.execute_call_sync(ToolCall("c1", "add", {"a": 1, "b": 2}), ctx)
    call = seen[0]
    assert (call.context, call.call_id, call.timeout, call.arguments) == (
        ctx,
        "c1",
        9,
        {"a": 1, "b": 2},
    )
    assert call.started > 0


def test_a_base_hook_adds_no_per_call_work() -> None:
    """Installing a hook that overrides nothing keeps the executor on its plain path."""
    ex = ToolExecutor(registry(), hooks=[ExecutionHook()])
    assert ex._plain is True
    ex.add_hook(Journal("j", []))
    assert ex._plain is False
