"""One engine, one set of rules: every entry point gives the same result for the same call.

Each case goes through every public way of running a tool, sync and async. The
executor has six run methods, three sync/async pairs (``run``, ``execute_call``,
``execute_all``), each tried on the engine's fast path and, with a hook
installed, on the general path. The rest delegate to them and stay as cases:
the original design's ``execute``/``execute_sync``, a sequential sync batch, the registry's
run methods (the raising ones must raise with the same text), `BaseTool.execute`,
the MCP server (in process) and the LangChain bridge. All
must agree on ``error_kind`` and on the message the model sees. The MCP server
answers an unknown tool with a protocol error, as the MCP specification asks, so
that case skips it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from forge.core.errors import ToolError
from forge.tools import (
    BaseTool,
    ExecutionContext,
    ExecutionHook,
    ToolCall,
    ToolCategory,
    ToolExecutor,
    ToolParameter,
    ToolRegistry,
    ToolResult,
    tool,
)
from forge.tools.execution.permissions import Decision


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def aadd(a: int, b: int) -> int:
    """Add two integers, asynchronously."""
    return a + b


@tool
def weather(city: str, unit: str = "c") -> str:
    """Report the weather unit for a city."""
    return f"{city}:{unit}"


@tool
def boom(x: int) -> int:
    """Always fail."""
    raise ValueError("kaboom")


@tool
async def aboom(x: int) -> int:
    """Always fail, asynchronously."""
    raise ValueError("kaboom")


@tool
def slow(x: int) -> int:
    """Sleep longer than the context allows (a sync handler)."""
    time.sleep(0.4)
    return x


@tool
async def aslow(x: int) -> int:
    """Sleep longer than the context allows (an async handler)."""
    await asyncio.sleep(0.4)
    return x


@tool
def gives_up(x: int) -> int:
    """Raise CancelledError by itself (a sync handler)."""
    raise asyncio.CancelledError


@tool
async def agives_up(x: int) -> int:
    """Raise CancelledError by itself (an async handler)."""
    raise asyncio.CancelledError


class Calc(BaseTool):
    """A class-based tool whose mode picks the outcome."""

    name = "calc"
    description = "Compute, fail, dawdle or give up."
    category = ToolCategory.OTHER
    parameters = [  # noqa: RUF012 - the original design declares parameters like this
        ToolParameter(name="x", type="integer", description="A number."),
        ToolParameter(name="mode", type="string", description="What to do.", required=False),
    ]

    async def _execute(self, context: ExecutionContext, **kwargs: Any) -> ToolResult:
        mode = kwargs.get("mode", "ok")
        if mode == "boom":
            raise ValueError("kaboom")
        if mode == "slow":
            await asyncio.sleep(0.4)
        if mode == "cancel":
            raise asyncio.CancelledError
        return ToolResult.ok(kwargs["x"] * 2)


@tool
async def apair(a: int, b: int) -> dict[str, int]:
    """Answer the sum as an object, asynchronously."""
    return {"sum": a + b}


@tool(placement="inline")
def inline_add(a: int, b: int) -> int:
    """Add two integers on the caller's thread."""
    return a + b


CALC = Calc()
REGISTRY = ToolRegistry(
    [add, aadd, weather, boom, aboom, slow, aslow, gives_up, agives_up, CALC, inline_add, apair]
)


def deny(_request: Any) -> Decision:
    return Decision.deny("not today")


def ask(_request: Any) -> Decision:
    return Decision.ask("needs a person")


def refuse(_request: Any, _decision: Decision) -> bool:
    return False


@dataclass(frozen=True)
class Case:
    """One call and the outcome every entry point must agree on."""

    name: str
    arguments: Any
    kind: str | None
    context: dict[str, Any] = field(default_factory=dict)
    output: Any = None


CASES = {
    "unknown tool": Case("nope", {"a": 1}, "unknown_tool"),
    "invalid JSON": Case("add", '{"a": 1, "b": ', "invalid_json"),
    "invalid arguments": Case("add", {"a": "x", "b": 2}, "invalid_arguments"),
    "invalid arguments, async": Case("aadd", {"a": 1}, "invalid_arguments"),
    "invalid arguments, BaseTool": Case("calc", {"x": "one"}, "invalid_arguments"),
    "strict null for a default": Case(
        "weather", {"city": "Oslo", "unit": None}, None, output="Oslo:c"
    ),
    "handler error": Case("boom", {"x": 1}, "tool_error"),
    "handler error, async": Case("aboom", {"x": 1}, "tool_error"),
    "success, async": Case("aadd", {"a": 1, "b": 2}, None, output=3),
    "handler error, BaseTool": Case("calc", {"x": 1, "mode": "boom"}, "tool_error"),
    "context timeout, sync handler": Case("slow", {"x": 1}, "timeout", {"timeout": 0.1}),
    "context timeout, async handler": Case("aslow", {"x": 1}, "timeout", {"timeout": 0.1}),
    "context timeout, BaseTool": Case(
        "calc", {"x": 1, "mode": "slow"}, "timeout", {"timeout": 0.1}
    ),
    "permission denied": Case("add", {"a": 1, "b": 2}, "denied", {"permissions": deny}),
    "approval refused": Case("calc", {"x": 1}, "denied", {"permissions": ask, "approve": refuse}),
    "dry run": Case("add", {"a": 1, "b": 2}, None, {"dry_run": True}),
    "cancelled by the handler, sync": Case("gives_up", {"x": 1}, "cancelled"),
    "cancelled by the handler, async": Case("agives_up", {"x": 1}, "cancelled"),
    "cancelled by the handler, BaseTool": Case("calc", {"x": 1, "mode": "cancel"}, "cancelled"),
    "success": Case("add", {"a": 1, "b": 2}, None, output=3),
    "success, async, an object": Case("apair", {"a": 1, "b": 2}, None, output={"sum": 3}),
    "success, inline": Case("inline_add", {"a": 1, "b": 2}, None, output=3),
    "invalid arguments, inline": Case("inline_add", {"a": "x", "b": 2}, "invalid_arguments"),
}

Outcome = tuple[bool, str | None, str | None, Any]
Entry = Callable[[Case, ExecutionContext | None], Any]

PLAIN = ToolExecutor(REGISTRY)


class _After(ExecutionHook):
    """A hook that changes nothing: it only moves calls onto the general path."""

    def after_call(self, call: Any, result: ToolResult) -> ToolResult | None:
        return None


HOOKED = ToolExecutor(REGISTRY, hooks=[_After()])


def _kwargs_only(case: Case) -> bool:
    return isinstance(case.arguments, dict)


def _raising(call: Callable[[], ToolResult]) -> ToolResult:
    """The raising API: its exception must carry the message of the engine's result."""
    try:
        return call()
    except ToolError as exc:
        kind = {"ToolNotFoundError": "unknown_tool"}.get(type(exc).__name__)
        if kind is None:
            kind = "invalid_json" if "Invalid JSON" in exc.message else "invalid_arguments"
        return ToolResult.fail(exc.message, error_kind=kind)


def _langchain(case: Case, _ctx: ExecutionContext | None) -> ToolResult:
    """A model's tool call: a failure is an error ToolMessage; a success, the output itself."""
    from forge.tools.integrations.langchain import to_langchain

    lc = to_langchain(REGISTRY.get_or_raise(case.name))
    call = {"name": case.name, "args": case.arguments, "id": "call_1", "type": "tool_call"}
    message = lc.invoke(call)
    if message.status == "error":
        return ToolResult.fail(message.content)
    return ToolResult.ok(lc.invoke(case.arguments))


def _mcp_server(case: Case, ctx: ExecutionContext | None) -> ToolResult:
    """A ``tools/call`` through the MCP server, in process; the kind travels in ``_meta``."""
    from mcp import Client

    from forge.mcp import MCPToolServer
    from forge.mcp._convert import from_call_result

    async def call() -> ToolResult:
        server = MCPToolServer(REGISTRY, executor=ToolExecutor(REGISTRY, context=ctx))
        async with Client(server.lowlevel) as client:
            answer = await client.call_tool(case.name, case.arguments)
        result: ToolResult = from_call_result(case.name, answer)
        return result

    return asyncio.run(call())


def _executor_entries(
    label: str, ex: ToolExecutor
) -> dict[str, tuple[Entry, Callable[[Case], bool]]]:
    def call(c: Case) -> ToolCall:
        return ToolCall.coerce({"id": "c1", "name": c.name, "arguments": c.arguments})

    every = _always
    return {
        f"{label}.run": (lambda c, x: asyncio.run(ex.run(c.name, c.arguments, x)), every),
        f"{label}.run_sync": (lambda c, x: ex.run_sync(c.name, c.arguments, x), every),
        f"{label}.execute_call": (lambda c, x: asyncio.run(ex.execute_call(call(c), x)), every),
        f"{label}.execute_call_sync": (lambda c, x: ex.execute_call_sync(call(c), x), every),
        f"{label}.execute_all": (
            lambda c, x: asyncio.run(ex.execute_all([call(c)] * 2, x))[1],
            every,
        ),
        f"{label}.execute_all_sync": (lambda c, x: ex.execute_all_sync([call(c)] * 2, x)[1], every),
    }


def _delegates(ex: ToolExecutor) -> dict[str, tuple[Entry, Callable[[Case], bool]]]:
    """The executor's seed names and its sequential sync batch: thin delegates."""

    def call(c: Case) -> ToolCall:
        return ToolCall.coerce({"id": "c1", "name": c.name, "arguments": c.arguments})

    return {
        "executor.execute": (
            lambda c, x: asyncio.run(ex.execute(c.name, x, **c.arguments)),
            _kwargs_only,
        ),
        "executor.execute_sync": (
            lambda c, x: ex.execute_sync(c.name, x, **c.arguments),
            _kwargs_only,
        ),
        "executor.execute_all_sync(parallel=False)": (
            lambda c, x: ex.execute_all_sync([call(c)], x, parallel=False)[0],
            _always,
        ),
    }


def _batch(c: Case) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": c.arguments}] * 2


def _registry_execute(c: Case, x: ExecutionContext | None) -> ToolResult:
    return _raising(lambda: REGISTRY.execute(c.name, c.arguments, context=x))


def _registry_aexecute(c: Case, x: ExecutionContext | None) -> ToolResult:
    return _raising(lambda: asyncio.run(REGISTRY.aexecute(c.name, c.arguments, context=x)))


def _registry_execute_all(c: Case, x: ExecutionContext | None) -> ToolResult:
    return REGISTRY.execute_all(_batch(c), context=x)[1]


def _registry_aexecute_all(c: Case, x: ExecutionContext | None) -> ToolResult:
    return asyncio.run(REGISTRY.aexecute_all(_batch(c), context=x))[1]


def _base_tool(c: Case, x: ExecutionContext | None) -> ToolResult:
    return asyncio.run(CALC.execute(x or ExecutionContext(), **c.arguments))


def _always(_c: Case) -> bool:
    return True


ENTRIES: dict[str, tuple[Entry, Callable[[Case], bool]]] = {
    **_executor_entries("executor", PLAIN),
    **_executor_entries("executor+hooks", HOOKED),
    **_delegates(PLAIN),
    "registry.execute": (_registry_execute, _always),
    "registry.aexecute": (_registry_aexecute, _always),
    "registry.execute_all": (_registry_execute_all, _always),
    "registry.aexecute_all": (_registry_aexecute_all, _always),
    "BaseTool.execute": (_base_tool, lambda c: c.name == "calc"),
    # A dry run has no output, which an MCP client checks against the tool's output schema.
    "mcp server": (
        _mcp_server,
        lambda c: _kwargs_only(c) and c.name != "nope" and not c.context.get("dry_run"),
    ),
    "langchain": (_langchain, lambda c: _kwargs_only(c) and not c.context and c.name != "nope"),
}


def _outcome(result: ToolResult) -> Outcome:
    return (result.success, result.error_kind, result.error, result.output)


def _reference(case: Case, ctx: ExecutionContext | None) -> ToolResult:
    return PLAIN.run_sync(case.name, case.arguments, ctx)


PAIRS = [(case, entry) for case in CASES for entry in ENTRIES if ENTRIES[entry][1](CASES[case])]


@pytest.mark.parametrize(("case", "entry"), PAIRS)
def test_every_entry_point_gives_the_same_result(case: str, entry: str) -> None:
    """The same call gives the same kind, message and output through every entry point."""
    c = CASES[case]
    run = ENTRIES[entry][0]
    ctx = ExecutionContext(**c.context) if c.context else None
    expected = _reference(c, ctx)
    assert expected.error_kind == c.kind
    if c.output is not None:
        assert expected.output == c.output
    if c.context.get("dry_run"):
        assert expected.metadata.get("dry_run") is True
    got = run(c, ctx)
    if entry == "mcp server":  # the output travels as text, the kind in _meta
        assert _outcome(got)[:3] == _outcome(expected)[:3]
        return
    if entry == "langchain":  # LangChain's error ToolMessage carries the message, not the kind
        assert (got.success, got.error, got.output) == (
            expected.success,
            expected.error,
            expected.output,
        )
        return
    if entry.startswith("registry.a") or entry == "registry.execute":
        assert _outcome(got)[:3] == _outcome(expected)[:3]
    else:
        assert _outcome(got) == _outcome(expected)


def _async_entries() -> dict[str, Callable[[], Any]]:
    args = {"x": 1}
    call = ToolCall("c1", "aslow", args)
    return {
        "executor.execute": lambda: PLAIN.execute("aslow", None, **args),
        "executor.run": lambda: PLAIN.run("aslow", args),
        "executor+hooks.run": lambda: HOOKED.run("aslow", args),
        "executor.execute_call": lambda: PLAIN.execute_call(call),
        "executor.execute_all": lambda: PLAIN.execute_all([call, call]),
        "registry.aexecute": lambda: REGISTRY.aexecute("aslow", args),
        "registry.aexecute_all": lambda: REGISTRY.aexecute_all([call, call]),
        "BaseTool.execute": lambda: CALC.execute(ExecutionContext(), x=1, mode="slow"),
    }


@pytest.mark.parametrize("entry", list(_async_entries()))
def test_cancelling_the_caller_cancels_the_call_everywhere(entry: str) -> None:
    """Cancelling the awaiting task raises CancelledError from every async entry point."""
    start = _async_entries()[entry]

    async def main() -> None:
        task = asyncio.ensure_future(start())
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_a_dry_run_executor_never_calls_a_handler() -> None:
    """ToolExecutor(dry_run=True) validates and checks every call but runs no handler."""
    ex = ToolExecutor(REGISTRY, dry_run=True)
    result = ex.run_sync("boom", {"x": 1})
    assert (result.success, result.metadata.get("dry_run")) == (True, True)
    assert asyncio.run(ex.run("add", {"a": "x"})).error_kind == "invalid_arguments"
    denied = ex.run_sync("add", {"a": 1, "b": 2}, ExecutionContext(permissions=deny))
    assert denied.error_kind == "denied"


def test_a_context_can_ask_for_a_dry_run_but_not_out_of_one() -> None:
    """A context's dry_run is the engine's setting for its calls: it turns it on, never off."""
    real, dry = ToolExecutor(REGISTRY), ToolExecutor(REGISTRY, dry_run=True)
    asked = real.run_sync("add", {"a": 1, "b": 2}, ExecutionContext(dry_run=True))
    kept = dry.run_sync("add", {"a": 1, "b": 2}, ExecutionContext(dry_run=False))
    assert (asked.output, asked.metadata.get("dry_run")) == (None, True)
    assert (kept.output, kept.metadata.get("dry_run")) == (None, True)
    assert real.run_sync("add", {"a": 1, "b": 2}, ExecutionContext()).output == 3
