"""ToolExecutor: the never-raising contract, entry points and results."""

import asyncio
import logging
import threading
from typing import Any

import pytest

from forge.tools import (
    BaseTool,
    ErrorKind,
    ExecutionContext,
    ToolCall,
    ToolCategory,
    ToolParameter,
    ToolRegistry,
    ToolResult,
    tool,
)
from forge.tools.execution.executor import ToolExecutor


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def aadd(a: int, b: int) -> int:
    """Add two integers, asynchronously."""
    await asyncio.sleep(0)
    return a + b


def boom() -> None:
    """Always fail."""
    raise RuntimeError("disk on fire")


def thread_name() -> str:
    """Return the name of the thread running the handler."""
    return threading.current_thread().name


@tool(placement="inline")
def cheap_thread_name() -> str:
    """Return the name of the thread running the handler (marked cheap)."""
    return threading.current_thread().name


def whoami(ctx: ExecutionContext, x: int) -> dict[str, Any]:
    """Return the session of the injected context."""
    return {"session": ctx.session_id, "x": x}


class Shout(BaseTool):
    """A `BaseTool` class."""

    name = "shout"
    description = "Upper-case the text."
    category = ToolCategory.OTHER
    parameters = [ToolParameter("text", "string", "The text")]  # noqa: RUF012 - the original design's class-attribute style

    async def _execute(self, context: ExecutionContext, **kwargs: Any) -> ToolResult:
        return ToolResult.ok(kwargs["text"].upper(), session=context.session_id)


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry([add, aadd, boom, thread_name, cheap_thread_name, whoami, Shout()])


@pytest.fixture
def executor(registry: ToolRegistry) -> ToolExecutor:
    with ToolExecutor(registry) as ex:
        yield ex


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# -- the executor API of the original design -------------------------------------------


def test_execute_runs_sync_and_async_tools_by_name(executor: ToolExecutor) -> None:
    """execute(name, context, **kwargs) returns ToolResult.ok for sync and async handlers."""
    ctx = ExecutionContext(session_id="s1")
    for name in ("add", "aadd"):
        result = run(executor.execute(name, ctx, a=2, b=40))
        assert (result.success, result.output, result.tool_name) == (True, 42, name)


def test_execute_without_a_context_uses_the_executors(registry: ToolRegistry) -> None:
    """A call without a context gets the executor's default context."""
    ex = ToolExecutor(registry, context=ExecutionContext(session_id="default"))
    assert run(ex.execute("whoami", x=1)).output == {"session": "default", "x": 1}
    ctx = ExecutionContext(session_id="mine")
    assert run(ex.execute("whoami", ctx, x=1)).output == {"session": "mine", "x": 1}


def test_execute_accepts_tool_arguments_named_like_its_own_parameters() -> None:
    """Arguments called tool_name or context reach the tool (execute's own are positional)."""

    def clash(tool_name: str, context: str) -> str:
        """Echo two arguments whose names clash with execute's."""
        return f"{tool_name}/{context}"

    ex = ToolExecutor(ToolRegistry([clash]))
    assert run(ex.execute("clash", None, tool_name="a", context="b")).output == "a/b"


def test_execute_accepts_every_seed_004_call_form(registry: ToolRegistry) -> None:
    """tool_name and context by position or keyword, as the original executor API calls them."""
    ctx = ExecutionContext(session_id="mine")
    expected = {"session": "mine", "x": 1}
    with ToolExecutor(registry) as ex:
        forms = [
            ex.execute("whoami", ctx, x=1),
            ex.execute("whoami", context=ctx, x=1),
            ex.execute(tool_name="whoami", context=ctx, x=1),
            ex.execute(context=ctx, tool_name="whoami", x=1),
        ]
        for coro in forms:
            assert run(coro).output == expected
        assert ex.execute_sync("whoami", context=ctx, x=1).output == expected
        assert ex.execute_sync(tool_name="whoami", context=ctx, x=1).output == expected
        assert run(ex.execute(tool_name="whoami", x=1)).output["x"] == 1
        assert ex.execute_sync(tool_name="whoami", context=None, x=1).output["x"] == 1


def test_execute_without_a_tool_name_raises_type_error(executor: ToolExecutor) -> None:
    """A call naming no tool is a programming error, reported like a missing argument."""
    with pytest.raises(TypeError, match="missing the tool name"):
        run(executor.execute(context=ExecutionContext(), a=1))  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="positionally"):
        executor.execute_sync("add", None, 1)  # type: ignore[call-overload]


def test_keyword_context_that_is_not_a_context_reaches_the_tool() -> None:
    """execute("clash", context="b") passes "b" to a tool parameter called context."""

    def clash(tool_name: str, context: str) -> str:
        """Echo two arguments whose names clash with execute's."""
        return f"{tool_name}/{context}"

    ex = ToolExecutor(ToolRegistry([clash]))
    assert run(ex.execute("clash", tool_name="a", context="b")).output == "a/b"


def test_base_tool_results_pass_through(executor: ToolExecutor) -> None:
    """A BaseTool's own ToolResult (and its metadata) comes back, tagged with the tool name."""
    result = run(executor.execute("shout", ExecutionContext(session_id="s"), text="hi"))
    assert (result.output, result.metadata["session"], result.tool_name) == ("HI", "s", "shout")


def test_unknown_tool_is_a_result_not_an_exception(executor: ToolExecutor) -> None:
    """An unknown tool returns 'Unknown tool: <name>' with kind unknown_tool and suggestions."""
    result = run(executor.execute("ad", a=1))
    assert result.success is False
    assert result.error_kind is ErrorKind.UNKNOWN_TOOL
    assert result.error is not None
    assert result.error.startswith("Unknown tool: ad.")
    assert "'add'" in result.error


def test_handler_exception_is_a_tool_error(executor: ToolExecutor) -> None:
    """A handler exception becomes a tool_error naming the exception, without a traceback."""
    result = run(executor.execute("boom"))
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert result.error is not None
    assert "RuntimeError" in result.error
    assert "disk on fire" in result.error
    assert "Traceback" not in result.error
    assert result.metadata["exception_type"] == "RuntimeError"


def test_get_all_schemas_uses_the_registry_formats(executor: ToolExecutor) -> None:
    """get_all_schemas(format) returns registry.to_provider(format); unknown formats raise."""
    assert executor.get_all_schemas() == executor.registry.to_provider("openai")
    anthropic = executor.get_all_schemas("anthropic")
    assert {t["name"] for t in anthropic} >= {"add", "shout"}
    with pytest.raises(ValueError, match="unsupported provider"):
        executor.get_all_schemas("carrier-pigeon")


def test_logs_start_and_outcome(executor: ToolExecutor, caplog: pytest.LogCaptureFixture) -> None:
    """Each call logs its start and outcome at DEBUG; failures at INFO."""
    with caplog.at_level(logging.DEBUG, logger="forge.tools.executor"):
        run(executor.execute("add", a=1, b=2))
        run(executor.execute("boom"))
    messages = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert any(level == logging.DEBUG and "Executing tool: add" in m for level, m in messages)
    assert any(level == logging.DEBUG and "add succeeded" in m for level, m in messages)
    assert any(level == logging.INFO and "boom failed (tool_error)" in m for level, m in messages)


def test_failures_are_logged_even_when_debug_is_off(
    executor: ToolExecutor, caplog: pytest.LogCaptureFixture
) -> None:
    """With DEBUG off, successes are silent and failures still log at INFO."""
    with caplog.at_level(logging.INFO, logger="forge.tools.executor"):
        run(executor.execute("add", a=1, b=2))
        run(executor.execute("add", a="x", b=2))
    assert [r.levelno for r in caplog.records] == [logging.INFO]


def test_the_fast_paths_see_a_level_turned_on_after_calls_ran_without_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The fast paths read the logger's cached answer: turning DEBUG on (or off) between
    calls takes effect on the next call, from sync and async code alike."""

    def add(a: int, b: int) -> int:
        return a + b

    async def aadd(a: int, b: int) -> int:
        return a + b

    registry = ToolRegistry([tool(add), tool(aadd)])
    with caplog.at_level(logging.INFO, logger="forge.tools.executor"):
        registry.execute("add", {"a": 1, "b": 2})  # the logger now caches "DEBUG is off"
        run(registry.aexecute("aadd", {"a": 1, "b": 2}))
    assert caplog.records == []
    with caplog.at_level(logging.DEBUG, logger="forge.tools.executor"):
        registry.execute("add", {"a": 1, "b": 2})
        run(registry.aexecute("aadd", {"a": 1, "b": 2}))
    started = [r.getMessage() for r in caplog.records if "Executing tool" in r.getMessage()]
    assert [line.split(" with ")[0] for line in started] == [
        "Executing tool: add",
        "Executing tool: aadd",
    ]
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="forge.tools.executor"):
        registry.execute("add", {"a": 1, "b": 2})
    assert caplog.records == []


# -- run, execute_call and call ids -----------------------------------------------------


def test_run_takes_a_mapping_or_json_text(executor: ToolExecutor) -> None:
    """run(name, arguments) accepts a dict, JSON text, or None for no arguments."""
    assert run(executor.run("add", {"a": 1, "b": 2})).output == 3
    assert run(executor.run("add", '{"a": 1, "b": 2}')).output == 3
    assert run(executor.run("thread_name", None)).success
    assert run(executor.run("thread_name", "")).success


def test_run_reports_invalid_json(executor: ToolExecutor) -> None:
    """Arguments text that is not JSON gives an invalid_json result telling the model to resend."""
    result = run(executor.run("add", '{"a": 1, "b": ', call_id="c7"))
    assert result.error_kind is ErrorKind.INVALID_JSON
    assert result.call_id == "c7"
    assert result.metadata["retryable"] is True
    assert "Invalid JSON in the arguments of add" in (result.error or "")


def test_execute_call_tags_the_result_with_the_call_id(executor: ToolExecutor) -> None:
    """execute_call returns a result carrying the ToolCall's id and tool name, success or not."""
    ok = run(executor.execute_call(ToolCall("call_a", "add", {"a": 1, "b": 2})))
    assert (ok.call_id, ok.tool_name, ok.output) == ("call_a", "add", 3)
    bad = run(executor.execute_call({"id": "call_b", "name": "add", "arguments": {"a": 1}}))
    assert (bad.call_id, bad.tool_name, bad.error_kind) == (
        "call_b",
        "add",
        ErrorKind.INVALID_ARGUMENTS,
    )
    unknown = run(executor.execute_call(ToolCall("call_c", "nope", {})))
    assert (unknown.call_id, unknown.error_kind) == ("call_c", ErrorKind.UNKNOWN_TOOL)


def test_a_malformed_call_is_a_result(executor: ToolExecutor) -> None:
    """A call that is not a mapping or lacks a name becomes a failed result, not an exception."""
    for bad in (42, {"arguments": {}}):
        result = run(executor.execute_call(bad))  # type: ignore[arg-type]
        assert result.success is False
        assert result.error_kind is ErrorKind.INVALID_JSON


def test_per_call_timeout_overrides_tool_and_context(executor: ToolExecutor) -> None:
    """run(..., timeout=) sets the limit of one call."""

    async def go() -> ToolResult:
        return await executor.run("aadd", {"a": 1, "b": 1}, timeout=5)

    assert run(go()).output == 2


# -- sync and async entry points ---------------------------------------------------


def test_sync_entry_points_run_both_kinds(executor: ToolExecutor) -> None:
    """The *_sync methods run sync handlers inline and async handlers on a private loop."""
    assert executor.execute_sync("add", None, a=1, b=2).output == 3
    assert executor.execute_sync("aadd", None, a=1, b=2).output == 3
    assert executor.run_sync("add", '{"a": 2, "b": 2}').output == 4
    call = executor.execute_call_sync(ToolCall("c1", "aadd", {"a": 1, "b": 1}))
    assert (call.call_id, call.output) == ("c1", 2)
    assert executor.run_sync("nope").error_kind is ErrorKind.UNKNOWN_TOOL
    assert executor.run_sync("add", {"a": "x"}).error_kind is ErrorKind.INVALID_ARGUMENTS


def test_sync_entry_point_runs_a_sync_handler_where_its_deadline_holds(
    executor: ToolExecutor,
) -> None:
    """Through a sync entry point a sync handler runs on a worker, a cheap one inline."""
    assert executor.run_sync("thread_name").output.startswith("forge-tool")
    here = threading.current_thread().name
    assert executor.run_sync("cheap_thread_name").output == here
    assert ToolRegistry([thread_name]).execute("thread_name").output == here  # no deadline


def test_sync_entry_point_works_inside_a_running_loop(executor: ToolExecutor) -> None:
    """A sync entry point called from async code (e.g. by a cheap tool) still runs async tools."""

    async def go() -> ToolResult:
        return executor.run_sync("aadd", {"a": 3, "b": 4})

    assert run(go()).output == 7


def test_async_entry_point_moves_sync_handlers_off_the_loop(executor: ToolExecutor) -> None:
    """From async code a sync handler runs on a worker thread, a cheap one inline."""

    async def go() -> tuple[str, str, str]:
        here = threading.current_thread().name
        worker = await executor.run("thread_name")
        inline = await executor.run("cheap_thread_name")
        return here, worker.output, inline.output

    here, worker, inline = run(go())
    assert worker != here
    assert worker.startswith("forge-tool")
    assert inline == here


def test_sync_handlers_do_not_block_the_event_loop() -> None:
    """While a slow sync handler runs, the event loop keeps serving other tasks."""
    release = threading.Event()

    def slow() -> str:
        """Wait until released."""
        release.wait(5)
        return "done"

    ex = ToolExecutor(ToolRegistry([slow]))

    async def go() -> str:
        task = asyncio.create_task(ex.run("slow"))
        ticks = 0
        for _ in range(5):
            await asyncio.sleep(0.01)
            ticks += 1
        release.set()
        result = await task
        assert ticks == 5
        return str(result.output)

    assert run(go()) == "done"


def test_execute_all_sync_sequential_and_parallel(executor: ToolExecutor) -> None:
    """execute_all_sync returns results in call order, sequentially or in parallel."""
    calls = [ToolCall(f"c{i}", "add" if i % 2 else "aadd", {"a": i, "b": 1}) for i in range(6)]
    for parallel in (False, True):
        results = executor.execute_all_sync(calls, parallel=parallel)
        assert [r.call_id for r in results] == [c.id for c in calls]
        assert [r.output for r in results] == [i + 1 for i in range(6)]


def test_the_executor_sees_registry_changes(registry: ToolRegistry) -> None:
    """Tools registered or removed after the executor was made are seen at once."""
    ex = ToolExecutor(registry)
    registry.deregister("add")
    assert ex.run_sync("add", {"a": 1, "b": 1}).error_kind is ErrorKind.UNKNOWN_TOOL
    registry.register(add)
    assert ex.run_sync("add", {"a": 1, "b": 1}).output == 2


# -- dry run ----------------------------------------------------------------------


def test_dry_run_never_calls_the_handler_but_validates() -> None:
    """In a dry run validation and lookup happen, the handler does not, and the result says so."""
    calls: list[int] = []

    def counted(n: int) -> int:
        """Record the call."""
        calls.append(n)
        return n

    ex = ToolExecutor(ToolRegistry([counted]))
    dry = ExecutionContext(dry_run=True)
    for result in (run(ex.execute("counted", dry, n=1)), ex.run_sync("counted", {"n": 1}, dry)):
        assert result.success is True
        assert result.metadata["dry_run"] is True
        assert result.tool_name == "counted"
    bad = run(ex.execute("counted", dry, n="one"))
    assert bad.error_kind is ErrorKind.INVALID_ARGUMENTS
    assert ex.run_sync("nope", None, dry).error_kind is ErrorKind.UNKNOWN_TOOL
    assert calls == []


def test_a_cheap_sync_tool_with_bad_arguments_is_invalid(executor: ToolExecutor) -> None:
    """The cheap inline path validates like every other."""
    result = run(executor.run("cheap_thread_name", {"x": 1}))
    assert result.error_kind is ErrorKind.INVALID_ARGUMENTS


def test_misconfigured_tool_is_a_non_retryable_tool_error() -> None:
    """A tool whose schema cannot be built fails with a result telling the model not to retry."""

    class Opaque:
        pass

    def broken(thing: Opaque) -> None:
        """Takes a type that has no JSON Schema."""

    ex = ToolExecutor(ToolRegistry([broken]))
    result = run(ex.execute("broken", thing=1))
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert result.metadata["retryable"] is False
    assert "unavailable" in (result.error or "")


def test_invalid_max_concurrency_is_rejected(registry: ToolRegistry) -> None:
    """max_concurrency and max_threads must be positive integers."""
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="max_concurrency"):
            ToolExecutor(registry, max_concurrency=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_threads"):
        ToolExecutor(registry, max_threads=0)
    ex = ToolExecutor(registry)
    with pytest.raises(ValueError, match="max_concurrency"):
        run(ex.execute_all([], max_concurrency=0))


def test_repr_names_the_registry(executor: ToolExecutor) -> None:
    """repr shows the registry and the hook count."""
    assert "ToolRegistry" in repr(executor)
    assert "hooks=0" in repr(executor)
