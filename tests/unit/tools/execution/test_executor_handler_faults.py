"""Handler faults and outputs that would pass as success and break later.

Whatever a handler raises (short of ``KeyboardInterrupt``) or returns, every
entry point answers each call with one result, and a value JSON cannot carry
becomes a failed result instead of an exception in ``format_results`` or the
MCP server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from mcp import Client

from forge.mcp import MCPToolServer
from forge.tools import (
    ErrorKind,
    ToolCall,
    ToolRegistry,
    ToolResult,
    format_results,
    tool,
)
from forge.tools.execution.executor import ToolExecutor
from forge.tools.replies import FORMATTERS


class UnprintableError(Exception):
    """An exception whose message cannot be read."""

    def __str__(self) -> str:
        raise RuntimeError("no message")


class CustomBase(BaseException):
    """A BaseException subclass that is not an Exception."""


def raiser(exc: BaseException) -> Callable[[], str]:
    def handler() -> str:
        raise exc

    return handler


def async_raiser(exc: BaseException) -> Callable[[], Any]:
    async def handler() -> str:
        await asyncio.sleep(0)
        raise exc

    return handler


FAULTS: dict[str, BaseException] = {
    "unprintable": UnprintableError(),
    "system_exit": SystemExit(3),
    "generator_exit": GeneratorExit(),
    "custom_base": CustomBase("boom"),
}


class Before:
    """A hook, so calls take the general pipeline instead of a fast path."""

    def before_call(self, call: Any) -> None:
        return None


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(tool(name="fine", description="Return fine.")(lambda: "fine"))
    for label, exc in FAULTS.items():
        reg.register(tool(name=f"sync_{label}", description="Raise.")(raiser(exc)))
        reg.register(tool(name=f"async_{label}", description="Raise.")(async_raiser(exc)))
    cancelled = raiser(asyncio.CancelledError())
    reg.register(tool(name="sync_cancelled", description="Raise CancelledError.")(cancelled))
    return reg


def every_entry_point(executor: ToolExecutor, name: str) -> list[ToolResult]:
    """The result of one call of ``name`` on every entry point (batches: the middle one)."""
    calls = [
        ToolCall(id="a", name="fine", arguments={}),
        ToolCall(id="b", name=name, arguments={}),
        ToolCall(id="c", name="fine", arguments={}),
    ]
    batches = [
        asyncio.run(executor.execute_all(calls)),
        asyncio.run(executor.execute_all(calls, parallel=False)),
        asyncio.run(executor.execute_all(calls, timeout=5)),
        executor.execute_all_sync(calls),
        executor.execute_all_sync(calls, parallel=False),
    ]
    for batch in batches:
        assert [r.call_id for r in batch] == ["a", "b", "c"]
        assert batch[0].output == batch[2].output == "fine"
    singles = [
        executor.run_sync(name, {}),
        executor.run_sync(name, {}, timeout=5),
        asyncio.run(executor.run(name, {})),
        asyncio.run(executor.run(name, {}, timeout=5)),
    ]
    return [batch[1] for batch in batches] + singles


@pytest.mark.parametrize("hooked", [False, True], ids=["fast", "pipeline"])
@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("label", list(FAULTS))
def test_a_handler_fault_is_a_failed_result_and_keeps_the_batch(
    hooked: bool, kind: str, label: str
) -> None:
    """SystemExit, GeneratorExit, custom BaseExceptions and unreadable messages are failures."""
    executor = ToolExecutor(registry(), hooks=[Before()] if hooked else [])
    for result in every_entry_point(executor, f"{kind}_{label}"):
        assert result.error_kind is ErrorKind.TOOL_ERROR
        assert type(FAULTS[label]).__name__ in (result.error or "")
        assert result.metadata["exception_type"] == type(FAULTS[label]).__name__


def test_an_unreadable_message_is_named_as_such() -> None:
    """An exception whose ``__str__`` raises gets a note in place of its message."""
    result = ToolExecutor(registry()).run_sync("sync_unprintable", {})
    assert "its message could not be read" in (result.error or "")


@pytest.mark.parametrize("hooked", [False, True], ids=["fast", "pipeline"])
def test_a_sync_handler_raising_cancelled_error_is_a_cancelled_result(hooked: bool) -> None:
    """A sync handler's own CancelledError is a ``cancelled`` result on every entry point."""
    executor = ToolExecutor(registry(), hooks=[Before()] if hooked else [])
    for result in every_entry_point(executor, "sync_cancelled"):
        assert result.error_kind is ErrorKind.CANCELLED


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_keyboard_interrupt_from_a_handler_propagates(kind: str) -> None:
    """KeyboardInterrupt is never swallowed: the user asked to stop."""
    reg = ToolRegistry()
    make = raiser if kind == "sync" else async_raiser
    reg.register(tool(name="interrupt", description="Raise.")(make(KeyboardInterrupt())))
    executor = ToolExecutor(reg)
    with pytest.raises(KeyboardInterrupt):
        executor.run_sync("interrupt", {})
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(executor.execute_all([ToolCall(id="i", name="interrupt", arguments={})] * 2))


# -- outputs that JSON cannot carry -------------------------------------------------------


def numbers() -> Any:
    """Yield numbers (a generator is not a value: it can be read once)."""
    return (i for i in range(3))


def cycle() -> list[Any]:
    """A list that holds itself."""
    items: list[Any] = []
    items.append(items)
    return items


BAD_OUTPUTS: dict[str, Callable[[], Any]] = {
    "generator": numbers,
    "iterator": lambda: iter([1, 2]),
    "map": lambda: map(str, [1, 2]),
    "huge_int": lambda: 10**10_000,
    "nested_huge_int": lambda: {"n": [10**10_000]},
    "surrogate": lambda: "\ud800",
    "nested_surrogate": lambda: {"text": ["ok", "\udfff"]},
    "surrogate_key": lambda: {"\ud800": 1},
    "cycle": cycle,
    "result_with_huge_int": lambda: ToolResult.ok(10**10_000),
}


def async_returner(make: Callable[[], Any]) -> Callable[[], Any]:
    async def handler() -> Any:
        return make()

    return handler


def output_registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(tool(name="fine", description="Return fine.")(lambda: "fine"))
    for label, make in BAD_OUTPUTS.items():
        reg.register(tool(name=label, description="Return a bad output.")(make))
        reg.register(tool(name=f"async_{label}", description="Return it.")(async_returner(make)))
    return reg


@pytest.mark.parametrize("hooked", [False, True], ids=["fast", "pipeline"])
@pytest.mark.parametrize("kind", ["", "async_"])
@pytest.mark.parametrize("label", list(BAD_OUTPUTS))
def test_an_output_json_cannot_carry_is_a_clear_failure(
    hooked: bool, kind: str, label: str
) -> None:
    """Generators, over-long integers, lone surrogates and cycles never pass as success."""
    executor = ToolExecutor(output_registry(), hooks=[Before()] if hooked else [])
    for result in every_entry_point(executor, kind + label):
        assert result.error_kind is ErrorKind.TOOL_ERROR, result
        assert "cannot be sent as JSON" in (result.error or "")
        for provider in FORMATTERS:
            format_results([result.for_call("x", "t")], provider)  # a failure always formats


def test_a_generator_says_what_to_return_instead() -> None:
    """The message tells the tool's author to return a list."""
    result = ToolExecutor(output_registry()).run_sync("generator", {})
    assert "return a list" in (result.error or "")


def test_the_registry_fast_paths_check_outputs_too() -> None:
    """`ToolRegistry.execute` and ``aexecute`` reject the same outputs."""
    reg = output_registry()
    for name in ("huge_int", "surrogate", "generator"):
        assert not reg.execute(name, {}).success
        assert not asyncio.run(reg.aexecute(f"async_{name}", {})).success


@pytest.mark.parametrize("provider", list(FORMATTERS))
def test_format_results_turns_an_unsendable_output_into_error_text(provider: str) -> None:
    """A result built by hand with ``10**10000`` formats as an error; the others stay."""
    results = [
        ToolResult.ok("fine").for_call("c1", "t"),
        ToolResult.ok({"n": 10**10_000}).for_call("c2", "t"),
    ]
    wire = format_results(results, provider)
    text = repr(wire)
    assert "cannot be sent as JSON" in text
    assert "fine" in text


def test_the_mcp_server_answers_an_unsendable_output_with_a_tool_error() -> None:
    """Over MCP the call gets ``isError`` with the message, not a JSON-RPC error."""

    @tool
    def huge() -> int:
        """Return an integer of 10,001 digits."""
        return 10**10_000  # type: ignore[no-any-return]

    server = MCPToolServer(ToolRegistry([huge]))

    async def body() -> Any:
        async with Client(server.lowlevel) as client:
            return await client.call_tool("huge", {})

    result = asyncio.run(asyncio.wait_for(body(), 60))
    assert result.is_error
    assert "cannot be sent as JSON" in result.content[0].text


# -- depth limit for typed tools ----------------------------------------------------------


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@tool
def takes_any(payload: Any) -> str:
    """Accept anything."""
    return "ran"


@tool
def takes_list(items: list[Any]) -> str:
    """Accept a list."""
    return "ran"


@tool
def takes_dict(mapping: dict[str, Any]) -> str:
    """Accept an object."""
    return "ran"


@pytest.mark.parametrize(
    ("name", "parameter", "value"),
    [
        ("takes_any", "payload", nested(5_000)),
        ("takes_list", "items", nested(5_000)),
        ("takes_dict", "mapping", {"k": nested(5_000)}),
    ],
)
def test_typed_tools_refuse_values_nested_too_deep(name: str, parameter: str, value: Any) -> None:
    """The 256-level limit holds for typed parameters, naming the parameter."""
    reg = ToolRegistry([takes_any, takes_list, takes_dict])
    executor = ToolExecutor(reg)
    results = [
        executor.run_sync(name, {parameter: value}),
        asyncio.run(executor.run(name, {parameter: value})),
        executor.execute_all_sync([ToolCall(id="d", name=name, arguments={parameter: value})])[0],
    ]
    for result in results:
        assert result.error_kind is ErrorKind.INVALID_ARGUMENTS
        assert f"{parameter}: nested more than 256 levels deep" in (result.error or "")
    assert executor.run_sync(name, {parameter: value if name != "takes_dict" else {}}) is not None
    shallow = {"k": nested(200)} if name == "takes_dict" else nested(200)
    assert executor.run_sync(name, {parameter: shallow}).output == "ran"
