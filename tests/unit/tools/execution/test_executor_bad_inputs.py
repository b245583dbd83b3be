"""A table of bad inputs: each gets the right error kind and the process keeps running."""

import asyncio
import math
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from forge.tools import ErrorKind, ToolCall, ToolRegistry, tool
from forge.tools.execution.executor import ToolExecutor
from forge.tools.execution.failures import MAX_MESSAGE_CHARS


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def scale(x: float) -> float:
    """Double a number."""
    return 2 * x


def echo(text: str) -> int:
    """Return the length of the text."""
    return len(text)


def tree(node: dict[str, Any]) -> str:
    """Accept any JSON object."""
    return "ok"


class Node(BaseModel):
    """A node of a tree."""

    children: list["Node"] = []


def walk(root: Node) -> str:
    """Accept a tree of nodes."""
    return "ok"


def deep_nodes(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"children": []}
    for _ in range(depth):
        value = {"children": [value]}
    return value


def returns_object() -> object:
    """Return something JSON cannot hold."""
    return object()


def returns_set_of_objects() -> dict[str, Any]:
    """Return a dict holding something JSON cannot hold."""
    return {"fine": 1, "bad": {object()}}


def returns_huge_error() -> None:
    """Raise with a megabyte of message."""
    raise ValueError("x" * 1_000_000)


RECURSIVE = {
    "name": "recursive",
    "description": "A schema-only tool with a recursive schema.",
    "parameters": {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
    },
    "handler": lambda args: "ok",
}


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


@dataclass(frozen=True)
class Case:
    tool: str
    arguments: Any
    kind: ErrorKind | None


CASES = {
    "list instead of an object": Case("add", [1, 2], ErrorKind.INVALID_ARGUMENTS),
    "a number instead of an object": Case("add", 5, ErrorKind.INVALID_ARGUMENTS),
    "JSON text of an array": Case("add", "[1, 2]", ErrorKind.INVALID_JSON),
    "JSON text that does not parse": Case("add", '{"a": 1,', ErrorKind.INVALID_JSON),
    "wrong types": Case("add", {"a": "one", "b": [2]}, ErrorKind.INVALID_ARGUMENTS),
    "a boolean for an integer": Case("add", {"a": True, "b": 1}, ErrorKind.INVALID_ARGUMENTS),
    "missing argument": Case("add", {"a": 1}, ErrorKind.INVALID_ARGUMENTS),
    "extra argument": Case("add", {"a": 1, "b": 2, "c": 3}, ErrorKind.INVALID_ARGUMENTS),
    "unknown tool": Case("subtract", {"a": 1}, ErrorKind.UNKNOWN_TOOL),
    "huge unknown tool name": Case("x" * 100_000, {}, ErrorKind.UNKNOWN_TOOL),
    "huge string where an int belongs": Case(
        "add", {"a": "9" * 10_000_000, "b": 1}, ErrorKind.INVALID_ARGUMENTS
    ),
    "huge string that is valid": Case("echo", {"text": "y" * 10_000_000}, None),
    "NaN": Case("scale", {"x": math.nan}, ErrorKind.INVALID_ARGUMENTS),
    "infinity": Case("scale", {"x": math.inf}, ErrorKind.INVALID_ARGUMENTS),
    "NaN in JSON text": Case("scale", '{"x": NaN}', ErrorKind.INVALID_ARGUMENTS),
    "deeply nested value, typed tree": Case(
        "walk", {"root": deep_nodes(100_000)}, ErrorKind.INVALID_ARGUMENTS
    ),
    "deeply nested value under Any": Case(
        "tree", {"node": {"a": nested(100_000)}}, ErrorKind.INVALID_ARGUMENTS
    ),
    "deeply nested value, recursive schema": Case(
        "recursive", {"tree": nested(100_000)}, ErrorKind.INVALID_ARGUMENTS
    ),
    "deeply nested JSON text": Case("tree", '{"node": ' + "[" * 100_000, ErrorKind.INVALID_JSON),
    "handler returns a non-JSON object": Case("returns_object", {}, ErrorKind.TOOL_ERROR),
    "handler returns a nested non-JSON value": Case(
        "returns_set_of_objects", {}, ErrorKind.TOOL_ERROR
    ),
    "handler raises with a huge message": Case("returns_huge_error", {}, ErrorKind.TOOL_ERROR),
}


@pytest.fixture(scope="module")
def executor() -> ToolExecutor:
    return ToolExecutor(
        ToolRegistry(
            [add, scale, echo, tree, walk, returns_object, returns_set_of_objects,
             returns_huge_error, RECURSIVE]
        )
    )  # fmt: skip


def _check(case: Case, result: Any) -> None:
    assert result.error_kind is case.kind
    assert result.success is (case.kind is None)
    if case.kind is not None:
        assert result.error
        assert len(result.error) <= MAX_MESSAGE_CHARS
        assert "Traceback" not in result.error
        assert isinstance(result.metadata["retryable"], bool)


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_async_entry_point(executor: ToolExecutor, case: Case) -> None:
    """The async entry point returns a result of the expected kind for each bad input."""
    _check(case, asyncio.run(executor.run(case.tool, case.arguments)))


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_sync_entry_point(executor: ToolExecutor, case: Case) -> None:
    """The sync entry point agrees with the async one."""
    _check(case, executor.run_sync(case.tool, case.arguments))


def test_bad_inputs_in_one_batch(executor: ToolExecutor) -> None:
    """All the bad inputs in one parallel batch: each fails alone, in order; a good call works."""
    calls = [ToolCall(name, c.tool, c.arguments) for name, c in CASES.items()]  # type: ignore[arg-type]
    calls.append(ToolCall("good", "add", {"a": 1, "b": 2}))
    results = asyncio.run(executor.execute_all(calls))
    for case, result in zip(CASES.values(), results, strict=False):
        _check(case, result)
    assert results[-1].output == 3
    assert [r.call_id for r in results] == [c.id for c in calls]


def test_argument_errors_show_the_schema_and_say_retry(executor: ToolExecutor) -> None:
    """An argument error names the field, shows its schema and says the model may retry."""
    result = executor.run_sync("add", {"a": "one", "b": 2})
    assert result.error is not None
    assert "a:" in result.error
    assert '"a":{"type":"integer"}' in result.error
    assert "required: a, b" in result.error
    assert "call again" in result.error
    assert result.metadata["errors"][0]["path"] == "a"


def interrupt() -> None:
    """Raise KeyboardInterrupt."""
    raise KeyboardInterrupt


async def ainterrupt() -> None:
    """Raise KeyboardInterrupt from async code."""
    await asyncio.sleep(0)
    raise KeyboardInterrupt


def exit_now() -> None:
    """Raise SystemExit."""
    raise SystemExit(3)


@pytest.mark.parametrize(
    ("handler", "expected"), [(interrupt, KeyboardInterrupt), (ainterrupt, KeyboardInterrupt)]
)
def test_keyboard_interrupt_is_not_swallowed(handler: Any, expected: type[BaseException]) -> None:
    """KeyboardInterrupt from a handler propagates through every entry point."""
    ex = ToolExecutor(ToolRegistry([handler]))
    name = handler.__name__
    with pytest.raises(expected):
        asyncio.run(ex.run(name))
    with pytest.raises(expected):
        ex.run_sync(name)
    with pytest.raises(expected):
        asyncio.run(ex.execute_all([ToolCall.create(name), ToolCall.create(name)]))
    assert ex.run_sync("missing").error_kind is ErrorKind.UNKNOWN_TOOL  # still usable


def test_system_exit_from_a_handler_is_a_failed_result() -> None:
    """A tool calling ``sys.exit`` fails its call; it does not stop the program."""
    ex = ToolExecutor(ToolRegistry([exit_now]))
    assert ex.run_sync("exit_now").error_kind is ErrorKind.TOOL_ERROR
    results = asyncio.run(ex.execute_all([ToolCall.create("exit_now")] * 2))
    assert [r.metadata["exception_type"] for r in results] == ["SystemExit"] * 2


HOLDING: list[int] = []  # one entry per `hold` call still running


async def hold() -> None:
    """Run until cancelled."""
    HOLDING.append(1)
    try:
        await asyncio.sleep(10)
    finally:
        HOLDING.pop()


def test_an_interrupt_in_a_batch_cancels_and_waits_for_the_other_calls() -> None:
    """KeyboardInterrupt from one call of a plain batch stops the others before it propagates."""
    ex = ToolExecutor(ToolRegistry([hold, ainterrupt]))
    calls = [ToolCall.create("hold") for _ in range(20)] + [ToolCall.create("ainterrupt")]

    async def go() -> None:
        with pytest.raises(KeyboardInterrupt):
            await ex.execute_all(calls)
        assert HOLDING == []

    asyncio.run(go())


def test_inline_calls_of_a_batch_run_in_order_and_an_interrupt_still_stops_the_rest() -> None:
    """Calls of a tool placed inline run in the batch's own task, in call order, between the
    calls started in tasks; an interrupt from one of them still cancels and waits for those."""
    seen: list[tuple[int, bool]] = []

    def record(n: int) -> int:
        """Note the call and the task it runs in."""
        seen.append((n, asyncio.current_task() is batch_task))
        return n

    def stop() -> None:
        """Raise KeyboardInterrupt."""
        raise KeyboardInterrupt

    registry = ToolRegistry(
        [hold, tool(record, placement="inline"), tool(stop, placement="inline")]
    )
    ex = ToolExecutor(registry)
    batch_task: asyncio.Task[Any] | None = None

    async def go() -> None:
        nonlocal batch_task
        batch_task = asyncio.current_task()
        mixed = [ToolCall.create("record", {"n": n}) for n in range(3)]
        mixed.insert(1, ToolCall.create("hold"))
        with pytest.raises(KeyboardInterrupt):
            await ex.execute_all(
                [*mixed, ToolCall.create("stop"), ToolCall.create("record", {"n": 9})]
            )
        assert HOLDING == []
        assert seen == [(0, True), (1, True), (2, True)]  # the call after the interrupt never ran
        seen.clear()
        results = await ex.execute_all([ToolCall.create("record", {"n": n}) for n in range(3)])
        assert [r.output for r in results] == [0, 1, 2]

    asyncio.run(go())


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
EXPECTED_KINDS = {None, ErrorKind.INVALID_ARGUMENTS, ErrorKind.INVALID_JSON}


@settings(max_examples=150, deadline=None)
@given(arguments=JSON_VALUES, name=st.sampled_from(["add", "scale", "tree", "recursive"]))
def test_any_json_value_as_arguments_is_a_result(
    executor: ToolExecutor, arguments: Any, name: str
) -> None:
    """Whatever JSON value arrives as arguments, the executor answers with a result."""
    result = executor.run_sync(name, arguments)
    assert result.error_kind in EXPECTED_KINDS
    assert len(result.error or "") <= MAX_MESSAGE_CHARS


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=40))
def test_any_text_as_arguments_is_a_result(executor: ToolExecutor, text: str) -> None:
    """Arbitrary arguments text is parsed or rejected as invalid_json, never raised."""
    result = asyncio.run(executor.run("add", text))
    assert result.error_kind in EXPECTED_KINDS
