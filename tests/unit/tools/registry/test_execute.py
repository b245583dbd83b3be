"""Executing tools through the registry."""

import asyncio
import threading
from enum import Enum
from typing import Any, Literal

import pytest

from forge.core.errors import ToolDefinitionError, ToolNotFoundError, ToolValidationError
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

# -- tools used by the tests ---------------------------------------------------


class Speed(Enum):
    FAST = "fast"
    SLOW = "slow"


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first addend.
        b: The second addend.
    """
    return a + b


def configure(
    name: str,
    count: int,
    mode: Literal["fast", "slow"],
    ratio: float = 1.0,
    speed: Speed = Speed.FAST,
) -> dict[str, Any]:
    """Configure something with typed parameters."""
    return {"name": name, "count": count, "mode": mode, "ratio": ratio, "speed": speed}


def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


def fail_loudly() -> None:
    """Always raise."""
    raise RuntimeError("disk on fire")


async def async_double(x: int) -> int:
    """Double x asynchronously."""
    await asyncio.sleep(0)
    return 2 * x


def whoami(ctx: ExecutionContext, x: int) -> dict[str, Any]:
    """Return the injected context and the argument."""
    return {"ctx": ctx, "x": x}


async def async_whoami(context: ExecutionContext) -> ExecutionContext:
    """Return the injected context from an async handler."""
    await asyncio.sleep(0)
    return context


def thread_id() -> int:
    """Return the id of the thread that runs the handler."""
    return threading.get_ident()


def echo_arguments(args: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of the arguments dict (a plain record's handler)."""
    return dict(args)


def record_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
        },
        "required": ["count", "mode"],
        "additionalProperties": False,
    }


class EchoTool(BaseTool):
    """A class-based tool that records the context it ran with."""

    name = "echo"
    description = "Echo the text back."
    category = ToolCategory.UTILITY

    def __init__(self) -> None:
        self.contexts: list[ExecutionContext] = []

    @property
    def parameters(self) -> list[ToolParameter]:
        return [
            ToolParameter("text", "string", "The text"),
            ToolParameter("times", "integer", "Repetitions", required=False, default=1),
        ]

    async def _execute(self, context: ExecutionContext, **kwargs: Any) -> ToolResult:
        self.contexts.append(context)
        await asyncio.sleep(0)
        return ToolResult.ok(kwargs["text"] * kwargs.get("times", 1), session=context.session_id)


@pytest.fixture
def registry() -> ToolRegistry:
    r = ToolRegistry()
    r.register_many([add, configure, divide, fail_loudly, async_double, whoami, async_whoami])
    r.register(
        {
            "name": "rec",
            "description": "A schema-only record tool.",
            "parameters": record_schema(),
            "handler": echo_arguments,
        }
    )
    return r


# -- execute: success and lookup -------------------------------------------------


def test_execute_returns_ok_result_with_tool_name(registry: ToolRegistry) -> None:
    """execute() returns ToolResult.ok(<return value>) tagged with the tool name."""
    result = registry.execute("add", {"a": 2, "b": 40})
    assert isinstance(result, ToolResult)
    assert result.success is True
    assert result.output == 42
    assert result.error is None
    assert result.error_kind is None
    assert result.tool_name == "add"
    assert result.call_id is None


def test_execute_without_arguments_for_a_no_argument_tool() -> None:
    """A tool without parameters runs with arguments None or {}."""
    r = ToolRegistry([thread_id])
    assert r.execute("thread_id").success
    assert r.execute("thread_id", {}).success


def test_execute_unknown_tool_raises_not_found(registry: ToolRegistry) -> None:
    """execute() of an unknown name raises ToolNotFoundError with close suggestions."""
    with pytest.raises(ToolNotFoundError) as info:
        registry.execute("ad", {"a": 1, "b": 2})
    assert isinstance(info.value, LookupError)
    assert info.value.tool_name == "ad"
    assert "add" in info.value.suggestions


def test_execute_of_a_schema_record(registry: ToolRegistry) -> None:
    """A record tool receives the validated arguments dict."""
    result = registry.execute("rec", {"count": 2, "mode": "slow"})
    assert result.success
    assert result.output == {"count": 2, "mode": "slow"}
    assert result.tool_name == "rec"


def kwargs_record_handler(count: int, mode: str, ratio: float = 0.5) -> Any:
    """A record handler that takes the arguments by name."""
    if count < 0:
        raise ValueError("count must not be negative")
    if count == 0:
        return ToolResult.fail("nothing to do", error_kind=ErrorKind.DENIED)
    return {"count": count, "mode": mode, "ratio": ratio}


def kwargs_record(*, placement: str = "auto") -> dict[str, Any]:
    return {
        "name": "kwrec",
        "description": "A record whose handler takes keyword arguments.",
        "parameters": record_schema(),
        "handler": kwargs_record_handler,
        "placement": placement,
    }


def test_placement_has_no_aliases() -> None:
    """``placement`` is the one way to say where a handler runs: no ``cheap``/``isolated``."""
    with pytest.raises(ToolDefinitionError, match="cheap"):
        ToolRegistry([{**kwargs_record(), "cheap": True}])
    inline = ToolRegistry([kwargs_record(placement="inline")]).get_or_raise("kwrec")
    assert inline.placement == "inline"
    assert not hasattr(inline, "cheap")
    assert not hasattr(inline, "isolated")


def test_record_handler_with_keyword_arguments() -> None:
    """A record handler taking named arguments gets them as keywords, with its defaults."""
    r = ToolRegistry([kwargs_record()])
    result = r.execute("kwrec", {"count": 2, "mode": "fast"})
    assert result.success
    assert result.output == {"count": 2, "mode": "fast", "ratio": 0.5}
    assert result.tool_name == "kwrec"
    with pytest.raises(ToolValidationError) as info:
        r.execute("kwrec", {"mode": "fast"})
    assert info.value.missing == ("count",)


@pytest.mark.parametrize("placement", ["auto", "inline"])
def test_record_handler_outcomes_through_both_entry_points(placement: str) -> None:
    """Record handlers return ok, passed-through and failed results from execute and aexecute."""
    r = ToolRegistry([kwargs_record(placement=placement)])
    for run in (r.execute, lambda *a: asyncio.run(r.aexecute(*a))):
        ok = run("kwrec", {"count": 1, "mode": "slow", "ratio": 2})
        assert ok.success
        assert ok.output == {"count": 1, "mode": "slow", "ratio": 2}
        passed = run("kwrec", {"count": 0, "mode": "slow"})
        assert passed.error_kind is ErrorKind.DENIED
        assert passed.error == "nothing to do"
        assert passed.tool_name == "kwrec"
        failed = run("kwrec", {"count": -1, "mode": "slow"})
        assert failed.error_kind is ErrorKind.TOOL_ERROR
        assert "count must not be negative" in (failed.error or "")
        assert failed.tool_name == "kwrec"


# -- execute: validation -----------------------------------------------------------


def _field_errors(exc: ToolValidationError) -> dict[str, str]:
    return {e.path: e.kind for e in exc.errors}


@pytest.mark.parametrize(
    ("arguments", "path", "kind"),
    [
        pytest.param({"count": 1, "mode": "fast"}, "name", "missing", id="missing"),
        pytest.param({"name": "n", "count": "x", "mode": "fast"}, "count", "type", id="type"),
        pytest.param({"name": "n", "count": 1, "mode": "medium"}, "mode", "enum", id="literal"),
        pytest.param(
            {"name": "n", "count": 1, "mode": "fast", "speed": "warp"}, "speed", "enum", id="enum"
        ),
        pytest.param(
            {"name": "n", "count": 1, "mode": "fast", "colour": "red"},
            "colour",
            "unexpected",
            id="unexpected",
        ),
    ],
)
def test_execute_invalid_arguments_raise_validation_error(
    registry: ToolRegistry, arguments: dict[str, Any], path: str, kind: str
) -> None:
    """Each kind of bad argument raises ToolValidationError naming the field and its problem."""
    with pytest.raises(ToolValidationError) as info:
        registry.execute("configure", arguments)
    exc = info.value
    assert isinstance(exc, ValueError)
    assert exc.tool_name == "configure"
    assert _field_errors(exc) == {path: kind}
    assert path in str(exc)
    assert exc.missing == ((path,) if kind == "missing" else ())


def test_execute_validation_error_names_every_bad_field(registry: ToolRegistry) -> None:
    """One call with several problems reports every bad field, in .errors and in the message."""
    with pytest.raises(ToolValidationError) as info:
        registry.execute("configure", {"count": "2", "mode": "medium", "ratio": False, "extra": 1})
    exc = info.value
    assert _field_errors(exc) == {
        "name": "missing",
        "count": "type",
        "mode": "enum",
        "ratio": "type",
        "extra": "unexpected",
    }
    assert exc.missing == ("name",)
    for field in ("name", "count", "mode", "ratio", "extra"):
        assert field in str(exc)
        assert field in exc.message


def test_execute_validation_error_names_every_missing_parameter(registry: ToolRegistry) -> None:
    """All missing required parameters are listed in .missing."""
    with pytest.raises(ToolValidationError) as info:
        registry.execute("configure", {})
    assert set(info.value.missing) == {"name", "count", "mode"}


def test_execute_schema_record_validation_names_every_bad_field(registry: ToolRegistry) -> None:
    """A JSON Schema record tool reports missing, type, enum and unexpected fields too."""
    with pytest.raises(ToolValidationError) as info:
        registry.execute("rec", {"ratio": "1", "mode": "medium", "extra": 1})
    exc = info.value
    assert _field_errors(exc) == {
        "count": "missing",
        "ratio": "type",
        "mode": "enum",
        "extra": "unexpected",
    }
    assert exc.missing == ("count",)
    for field in ("count", "ratio", "mode", "extra"):
        assert field in str(exc)


def test_invalid_arguments_never_reach_the_handler() -> None:
    """When validation fails the handler is not called."""
    calls: list[int] = []

    def counted(n: int) -> int:
        calls.append(n)
        return n

    r = ToolRegistry([counted])
    with pytest.raises(ToolValidationError):
        r.execute("counted", {"n": "1"})
    assert calls == []


@pytest.mark.parametrize("arguments", [[1, 2], "a=1", 5, ("a", 1)])
def test_execute_rejects_arguments_that_are_not_an_object(
    registry: ToolRegistry, arguments: Any
) -> None:
    """Arguments that are not a JSON object raise ToolValidationError."""
    with pytest.raises(ToolValidationError):
        registry.execute("add", arguments)
    with pytest.raises(ToolValidationError):
        registry.execute("rec", arguments)


@pytest.mark.parametrize(
    ("tool_name", "field", "value"),
    [
        ("add", "a", True),
        ("add", "a", False),
        ("add", "a", "3"),
        ("add", "a", "3.0"),
        ("add", "a", 3.5),
        ("add", "a", None),
        ("divide", "a", True),
        ("divide", "a", "1.5"),
        ("divide", "a", "1"),
        ("divide", "a", None),
        ("rec", "count", True),
        ("rec", "count", "3"),
        ("rec", "ratio", False),
        ("rec", "ratio", "1.5"),
    ],
)
def test_numbers_reject_booleans_and_numeric_strings(
    registry: ToolRegistry, tool_name: str, field: str, value: Any
) -> None:
    """integer and number parameters reject booleans, numeric strings and non-whole ints."""
    arguments: dict[str, Any] = {
        "add": {"a": 1, "b": 2},
        "divide": {"a": 1.0, "b": 2.0},
        "rec": {"count": 1, "mode": "fast", "ratio": 1.0},
    }[tool_name]
    arguments[field] = value
    with pytest.raises(ToolValidationError) as info:
        registry.execute(tool_name, arguments)
    assert _field_errors(info.value) == {field: "type"}


def test_integer_accepts_a_whole_float_and_converts_it(registry: ToolRegistry) -> None:
    """3.0 is a valid integer and the handler receives the int 3."""
    result = registry.execute("configure", {"name": "n", "count": 3.0, "mode": "fast"})
    assert result.success
    count = result.output["count"]
    assert count == 3
    assert type(count) is int


def test_integer_accepts_a_whole_float_in_a_record(registry: ToolRegistry) -> None:
    """A JSON Schema record tool accepts 3.0 for an integer parameter."""
    result = registry.execute("rec", {"count": 3.0, "mode": "fast"})
    assert result.success
    assert result.output["count"] == 3


def test_number_accepts_ints_and_floats(registry: ToolRegistry) -> None:
    """A float parameter accepts both ints and floats."""
    assert registry.execute("divide", {"a": 3, "b": 2}).output == 1.5
    assert registry.execute("divide", {"a": 1.0, "b": 4}).output == 0.25


def test_enum_parameter_is_converted_to_the_enum(registry: ToolRegistry) -> None:
    """An Enum-typed parameter receives the Enum member for its value."""
    out = registry.execute("configure", {"name": "n", "count": 1, "mode": "fast", "speed": "slow"})
    assert out.output["speed"] is Speed.SLOW


# -- execute: handler outcomes -----------------------------------------------------


def test_handler_exception_becomes_a_failed_result(registry: ToolRegistry) -> None:
    """A handler exception is returned as a tool_error result carrying its message."""
    result = registry.execute("fail_loudly")
    assert result.success is False
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert result.error_kind == "tool_error"
    assert result.error is not None
    assert "disk on fire" in result.error
    assert result.tool_name == "fail_loudly"
    assert result.output is None


def test_execution_continues_after_a_handler_exception(registry: ToolRegistry) -> None:
    """After a handler raised, the registry keeps executing calls normally."""
    assert not registry.execute("fail_loudly").success
    assert not registry.execute("divide", {"a": 1, "b": 0}).success
    assert registry.execute("add", {"a": 1, "b": 1}).output == 2
    assert "ZeroDivisionError" in (registry.execute("divide", {"a": 1, "b": 0}).error or "")


def test_long_handler_error_messages_are_truncated() -> None:
    """A huge exception message is cut to a bounded size in the failed result."""

    def verbose() -> None:
        raise RuntimeError("x" * 50_000)

    r = ToolRegistry([verbose])
    result = r.execute("verbose")
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert result.error is not None
    assert "RuntimeError" in result.error
    assert len(result.error) < 5_000
    assert result.error.endswith("...")


def test_handler_returning_a_tool_result_is_passed_through() -> None:
    """A ToolResult returned by the handler is returned as is, tagged with the tool name."""

    def custom() -> ToolResult:
        return ToolResult.ok("payload", source="custom")

    def refusing() -> ToolResult:
        return ToolResult.fail("not allowed", error_kind=ErrorKind.DENIED)

    r = ToolRegistry([custom, refusing])
    via_async = asyncio.run(r.aexecute("custom"))
    assert via_async.output == "payload"
    assert via_async.metadata == {"source": "custom"}
    assert via_async.tool_name == "custom"
    ok = r.execute("custom")
    assert ok.success
    assert ok.output == "payload"
    assert not isinstance(ok.output, ToolResult)
    assert ok.metadata == {"source": "custom"}
    assert ok.tool_name == "custom"
    failed = r.execute("refusing")
    assert failed.success is False
    assert failed.error == "not allowed"
    assert failed.error_kind is ErrorKind.DENIED
    assert failed.tool_name == "refusing"


def test_async_handler_through_sync_execute(registry: ToolRegistry) -> None:
    """A coroutine handler runs to completion through the sync execute()."""
    result = registry.execute("async_double", {"x": 21})
    assert result.success
    assert result.output == 42
    assert result.tool_name == "async_double"


def test_async_handler_through_sync_execute_inside_a_running_loop(
    registry: ToolRegistry,
) -> None:
    """execute() of a coroutine handler works when called from inside a running event loop."""

    async def main() -> ToolResult:
        return registry.execute("async_double", {"x": 5})

    result = asyncio.run(main())
    assert result.success
    assert result.output == 10


def test_async_handler_exception_becomes_a_failed_result() -> None:
    """An exception from a coroutine handler becomes a tool_error result (sync and async)."""

    async def broken() -> None:
        await asyncio.sleep(0)
        raise ValueError("async boom")

    r = ToolRegistry([broken])
    result = r.execute("broken")
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert "async boom" in (result.error or "")
    aresult = asyncio.run(r.aexecute("broken"))
    assert aresult.error_kind is ErrorKind.TOOL_ERROR
    assert "async boom" in (aresult.error or "")


# -- aexecute ------------------------------------------------------------------------


def test_aexecute_runs_async_handlers(registry: ToolRegistry) -> None:
    """aexecute() awaits a coroutine handler and returns an ok result."""
    result = asyncio.run(registry.aexecute("async_double", {"x": 4}))
    assert result.success
    assert result.output == 8
    assert result.tool_name == "async_double"


def test_aexecute_runs_sync_handlers_off_the_event_loop() -> None:
    """aexecute() runs a sync handler on a worker thread, not the event loop's thread."""
    r = ToolRegistry([thread_id])

    async def main() -> tuple[int, ToolResult]:
        return threading.get_ident(), await r.aexecute("thread_id")

    loop_thread, result = asyncio.run(main())
    assert result.success
    assert result.tool_name == "thread_id"
    assert result.output != loop_thread


def test_aexecute_runs_inline_sync_handlers_inline() -> None:
    """aexecute() runs a sync handler placed inline on the event loop's own thread."""
    r = ToolRegistry([tool(placement="inline")(thread_id)])
    assert r.get_or_raise("thread_id").placement == "inline"

    async def main() -> tuple[int, ToolResult]:
        return threading.get_ident(), await r.aexecute("thread_id")

    loop_thread, result = asyncio.run(main())
    assert result.success
    assert result.output == loop_thread


def test_sync_execute_runs_sync_handlers_inline() -> None:
    """execute() runs a sync handler on the calling thread."""
    r = ToolRegistry([thread_id])
    assert r.execute("thread_id").output == threading.get_ident()


def test_aexecute_unknown_tool_and_invalid_arguments_raise(registry: ToolRegistry) -> None:
    """aexecute() raises ToolNotFoundError and ToolValidationError like execute()."""
    with pytest.raises(ToolNotFoundError):
        asyncio.run(registry.aexecute("nope"))
    with pytest.raises(ToolValidationError) as info:
        asyncio.run(registry.aexecute("add", {"a": 1}))
    assert info.value.missing == ("b",)
    with pytest.raises(ToolValidationError):
        asyncio.run(registry.aexecute("async_double", {"x": True}))


def test_aexecute_sync_handler_exception_becomes_a_failed_result(registry: ToolRegistry) -> None:
    """A sync handler raising inside aexecute() gives a tool_error result."""
    result = asyncio.run(registry.aexecute("fail_loudly"))
    assert result.success is False
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert "disk on fire" in (result.error or "")


def test_aexecute_validates_and_converts_like_execute(registry: ToolRegistry) -> None:
    """aexecute() of a sync tool converts a whole float to int like execute()."""
    result = asyncio.run(registry.aexecute("add", {"a": 2.0, "b": 3}))
    assert result.output == 5
    assert type(result.output) is int


# -- execute_all ---------------------------------------------------------------------


def test_execute_all_runs_in_order_and_tags_results() -> None:
    """execute_all() runs calls in order and tags each result with its call id and tool name."""
    order: list[str] = []

    def step(label: str) -> str:
        order.append(label)
        return label.upper()

    r = ToolRegistry([step])
    calls = [ToolCall(f"id{i}", "step", {"label": label}) for i, label in enumerate("abcd")]
    results = r.execute_all(calls)
    assert order == ["a", "b", "c", "d"]
    assert [res.output for res in results] == ["A", "B", "C", "D"]
    assert [res.call_id for res in results] == ["id0", "id1", "id2", "id3"]
    assert all(res.tool_name == "step" and res.success for res in results)


def test_execute_all_keeps_every_result_despite_bad_calls(registry: ToolRegistry) -> None:
    """Unknown tools, invalid arguments and handler errors become results; others survive."""
    calls: list[ToolCall | dict[str, Any]] = [
        ToolCall("c1", "add", {"a": 1, "b": 2}),
        {"id": "c2", "name": "no_such_tool", "arguments": {}},
        ToolCall("c3", "add", {"a": "1"}),
        {"id": "c4", "name": "fail_loudly"},
        {"id": "c5", "name": "async_double", "arguments": {"x": 3}},
    ]
    results = registry.execute_all(calls)
    assert len(results) == 5
    assert [r.call_id for r in results] == ["c1", "c2", "c3", "c4", "c5"]
    assert [r.tool_name for r in results] == [
        "add",
        "no_such_tool",
        "add",
        "fail_loudly",
        "async_double",
    ]
    ok, unknown, invalid, failed, ok_async = results
    assert ok.success
    assert ok.output == 3
    assert unknown.success is False
    assert unknown.error_kind is ErrorKind.UNKNOWN_TOOL
    assert "no_such_tool" in (unknown.error or "")
    assert "add" in (unknown.error or "")
    assert invalid.success is False
    assert invalid.error_kind is ErrorKind.INVALID_ARGUMENTS
    assert "a:" in (invalid.error or "")
    assert "b:" in (invalid.error or "")
    assert failed.error_kind is ErrorKind.TOOL_ERROR
    assert "disk on fire" in (failed.error or "")
    assert ok_async.success
    assert ok_async.output == 6


def test_execute_all_accepts_tool_calls_and_dicts(registry: ToolRegistry) -> None:
    """ToolCall objects and plain dicts (with or without id) are both accepted."""
    results = registry.execute_all(
        [
            ToolCall.create("add", {"a": 1, "b": 1}),
            {"id": "given", "name": "add", "arguments": {"a": 2, "b": 2}},
            {"name": "add", "arguments": {"a": 3, "b": 3}},
        ]
    )
    assert [r.output for r in results] == [2, 4, 6]
    assert results[1].call_id == "given"
    assert results[0].call_id
    assert results[2].call_id
    assert len({r.call_id for r in results}) == 3


def test_execute_all_of_nothing_is_empty(registry: ToolRegistry) -> None:
    """execute_all([]) returns []."""
    assert registry.execute_all([]) == []


def test_execute_all_passes_the_context(registry: ToolRegistry) -> None:
    """execute_all(context=...) injects the context into each call that asks for it."""
    ctx = ExecutionContext(session_id="batch")
    results = registry.execute_all(
        [ToolCall("1", "whoami", {"x": 1}), ToolCall("2", "async_whoami", {})], context=ctx
    )
    assert results[0].output["ctx"] is ctx
    assert results[1].output is ctx


class Opaque:
    """A type pydantic cannot build a schema for."""


def needs_opaque(thing: Opaque) -> str:
    """A tool whose parameter types cannot be turned into a schema."""
    return "never"


def test_execute_of_an_uncompilable_tool_raises_definition_error() -> None:
    """execute() of a tool whose types cannot be compiled raises ToolDefinitionError."""
    r = ToolRegistry([needs_opaque])
    with pytest.raises(ToolDefinitionError, match="needs_opaque"):
        r.execute("needs_opaque", {"thing": 1})


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_execute_all_keeps_other_results_when_a_tool_cannot_compile(mode: str) -> None:
    """A call to a tool whose schema cannot be built does not lose the other calls' results."""
    r = ToolRegistry([add, needs_opaque])
    calls = [
        ToolCall("1", "add", {"a": 1, "b": 1}),
        ToolCall("2", "needs_opaque", {"thing": 1}),
        ToolCall("3", "add", {"a": 2, "b": 2}),
    ]
    results = r.execute_all(calls) if mode == "sync" else asyncio.run(r.aexecute_all(calls))
    assert [res.call_id for res in results] == ["1", "2", "3"]
    assert results[0].output == 2
    assert results[1].success is False
    assert results[1].error_kind is ErrorKind.TOOL_ERROR
    assert results[1].tool_name == "needs_opaque"
    assert results[2].output == 4


# -- aexecute_all --------------------------------------------------------------------


def test_aexecute_all_returns_results_in_call_order() -> None:
    """aexecute_all() returns results in call order even when later calls finish first."""
    finished: list[int] = []

    async def nap(index: int, delay: float) -> int:
        """Sleep, then report."""
        await asyncio.sleep(delay)
        finished.append(index)
        return index

    r = ToolRegistry([nap])
    delays = [0.2, 0.1, 0.05, 0.0]
    calls = [ToolCall(f"c{i}", "nap", {"index": i, "delay": d}) for i, d in enumerate(delays)]
    results = asyncio.run(r.aexecute_all(calls))
    assert finished == [3, 2, 1, 0]
    assert [res.output for res in results] == [0, 1, 2, 3]
    assert [res.call_id for res in results] == ["c0", "c1", "c2", "c3"]
    assert all(res.tool_name == "nap" for res in results)


def test_aexecute_all_keeps_every_result_despite_bad_calls(registry: ToolRegistry) -> None:
    """aexecute_all() turns unknown tools and invalid arguments into results, in order."""
    calls: list[ToolCall | dict[str, Any]] = [
        {"id": "a", "name": "async_double", "arguments": {"x": 1}},
        ToolCall("b", "ghost", {}),
        {"id": "c", "name": "add", "arguments": {"a": 1, "b": "2"}},
        ToolCall("d", "fail_loudly", {}),
        ToolCall("e", "add", {"a": 1, "b": 2}),
    ]
    results = asyncio.run(registry.aexecute_all(calls))
    assert [r.call_id for r in results] == ["a", "b", "c", "d", "e"]
    assert [r.error_kind for r in results] == [
        None,
        ErrorKind.UNKNOWN_TOOL,
        ErrorKind.INVALID_ARGUMENTS,
        ErrorKind.TOOL_ERROR,
        None,
    ]
    assert results[0].output == 2
    assert results[4].output == 3
    assert [r.tool_name for r in results] == ["async_double", "ghost", "add", "fail_loudly", "add"]


# -- context injection ---------------------------------------------------------------


def test_context_parameter_is_hidden_from_the_schema(registry: ToolRegistry) -> None:
    """A parameter annotated ExecutionContext is not in the tool's parameters schema."""
    params = registry.get_or_raise("whoami").parameters
    assert set(params["properties"]) == {"x"}
    assert "ctx" not in params.get("required", [])
    assert registry.get_or_raise("async_whoami").parameters.get("properties", {}) == {}


def test_context_is_injected_when_passed(registry: ToolRegistry) -> None:
    """The context passed to execute() is the object the handler receives."""
    ctx = ExecutionContext(session_id="s-1", metadata={"user": "ada"})
    result = registry.execute("whoami", {"x": 7}, context=ctx)
    assert result.output["ctx"] is ctx
    assert result.output["x"] == 7


def test_a_default_context_is_injected_when_none_is_passed(registry: ToolRegistry) -> None:
    """Without a context the handler receives a default ExecutionContext."""
    result = registry.execute("whoami", {"x": 1})
    ctx = result.output["ctx"]
    assert isinstance(ctx, ExecutionContext)
    assert ctx.session_id is None
    assert ctx.dry_run is False


def test_context_is_injected_into_async_handlers_and_aexecute(registry: ToolRegistry) -> None:
    """Context injection works for async handlers and through aexecute()."""
    ctx = ExecutionContext(session_id="async")
    assert registry.execute("async_whoami", context=ctx).output is ctx
    assert asyncio.run(registry.aexecute("async_whoami", context=ctx)).output is ctx
    result = asyncio.run(registry.aexecute("whoami", {"x": 2}, context=ctx))
    assert result.output["ctx"] is ctx


def test_model_cannot_supply_the_context_parameter(registry: ToolRegistry) -> None:
    """An argument named like the context parameter is rejected as unexpected."""
    with pytest.raises(ToolValidationError) as info:
        registry.execute("whoami", {"x": 1, "ctx": {"session_id": "forged"}})
    assert _field_errors(info.value) == {"ctx": "unexpected"}


# -- BaseTool through the registry -------------------------------------------------------


def test_base_tool_executes_with_the_passed_context() -> None:
    """A BaseTool subclass runs through execute() and receives the passed context."""
    echo = EchoTool()
    r = ToolRegistry([echo])
    ctx = ExecutionContext(session_id="s-42")
    result = r.execute("echo", {"text": "ab", "times": 2}, context=ctx)
    assert result.success
    assert result.output == "abab"
    assert result.metadata == {"session": "s-42"}
    assert result.tool_name == "echo"
    assert echo.contexts == [ctx]
    assert echo.contexts[0] is ctx


def test_base_tool_gets_a_default_context_and_runs_through_aexecute() -> None:
    """A BaseTool runs through aexecute() and gets a default context when none is passed."""
    echo = EchoTool()
    r = ToolRegistry([echo])
    result = asyncio.run(r.aexecute("echo", {"text": "x"}))
    assert result.output == "x"
    assert len(echo.contexts) == 1
    assert isinstance(echo.contexts[0], ExecutionContext)
    assert echo.contexts[0].session_id is None


def test_base_tool_arguments_are_validated_by_execute() -> None:
    """Invalid BaseTool arguments raise ToolValidationError from execute() before _execute."""
    echo = EchoTool()
    r = ToolRegistry([echo])
    with pytest.raises(ToolValidationError) as info:
        r.execute("echo", {"times": True})
    assert _field_errors(info.value) == {"text": "missing", "times": "type"}
    assert echo.contexts == []
    results = r.execute_all([ToolCall("1", "echo", {}), ToolCall("2", "echo", {"text": "ok"})])
    assert results[0].error_kind is ErrorKind.INVALID_ARGUMENTS
    assert results[1].output == "ok"


def test_the_raising_run_methods_answer_alike_on_every_call(registry: ToolRegistry) -> None:
    """``execute`` and ``aexecute`` become the executor's own methods after the first call;
    from then on they raise and return exactly as on the first call, sync and async."""

    def outcomes() -> list[tuple[str, str]]:
        seen = []
        for name, arguments in (("addd", {}), ("add", {"a": "x", "b": 1}), ("add", {"a": 1})):
            for run in (
                lambda n=name, a=arguments: registry.execute(n, a),
                lambda n=name, a=arguments: asyncio.run(registry.aexecute(n, a)),
            ):
                with pytest.raises((ToolNotFoundError, ToolValidationError)) as caught:
                    run()
                seen.append((type(caught.value).__name__, str(caught.value)))
        seen.append(("ok", repr(registry.execute("add", {"a": 1, "b": 2}).output)))
        return seen

    first, again = outcomes(), outcomes()
    assert first == again
    assert [kind for kind, _ in first[:2]] == ["ToolNotFoundError"] * 2
    assert "Did you mean 'add'" in first[0][1]
    assert registry.execute("add", {"a": 1, "b": 2}, context=ExecutionContext()).output == 3


def test_a_subclass_keeps_its_own_execute() -> None:
    """A registry subclass that overrides ``execute`` is called on every call, not bypassed."""

    class Counting(ToolRegistry):
        calls = 0

        def execute(
            self, name: str, arguments: Any = None, *, context: ExecutionContext | None = None
        ) -> ToolResult:
            Counting.calls += 1
            return super().execute(name, arguments, context=context)

    counting = Counting([tool(add)])
    for _ in range(3):
        assert counting.execute("add", {"a": 1, "b": 2}).output == 3
    assert Counting.calls == 3
