"""Foundation benchmarks: validated calls, lookup, registration, import time and memory.

Run directly (``python bench/bench_foundation.py``) or through ``bench/run_all.py``. Every
ratio compares measurements taken in this one process run (or, for import time and memory, in
fresh child interpreters started by it).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import random
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from _harness import (
    BatchCase,
    Row,
    acompare_us,
    compare_batch_us,
    compare_us,
    import_times_ms,
    memory_deltas,
    ratio_row,
    render_rows,
)
from _workload import ADD_ARGS, ADD_ARGS_JSON, aadd, add, make_functions

LOOKUP_TOOLS = 10_000
LOOKUP_SEQUENCE = 2_000
BUILD_TOOLS = 1_000
MEMORY_TOOLS = 10_000
MEMORY_REFERENCE_TOOLS = 2_000
MEMORY_BUDGET_BYTES = 8 * 1024

NOT_INSTALLED = "not installed"

FLOOR_SYNC = "the least a call returning a `ToolResult` can do: lookup, type check, call (info)"
FLOOR_ASYNC = "the same for the async tool (info)"
SyncCall = Callable[[], Any]
AsyncCall = Callable[[], Awaitable[Any]]


def version_of(distribution: str) -> str:
    """Installed version of ``distribution``, or ``"?"``."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"


@dataclass
class Outcome:
    """A prepared benchmark case, or the reason it could not be prepared."""

    call: Any = None
    status: str = ""


def prepare(builder: Callable[[], Any]) -> Outcome:
    """Run ``builder``; map a missing optional package to "not installed" and errors to text."""
    try:
        return Outcome(call=builder())
    except ImportError:
        return Outcome(status=NOT_INSTALLED)
    except Exception as exc:
        return Outcome(status=f"error: {type(exc).__name__}: {exc}"[:120])


def check_result(outcome: Outcome, output: Any) -> None:
    """Mark ``outcome`` as failed unless ``output`` is (a wrapper of) the expected sum 3."""
    if outcome.status or is_three(output):
        return
    outcome.status = f"error: unexpected result {output!r}"[:120]
    outcome.call = None


def is_three(output: Any) -> bool:
    """Whether a framework's call result carries the value 3 and no error flag."""
    if output == 3:
        return True
    if getattr(output, "success", None) is True:  # our ToolResult
        return bool(output.output == 3)
    structured = getattr(output, "structured_content", None)  # mcp 2.x CallToolResult
    if structured is not None:
        return not getattr(output, "is_error", False) and structured.get("result") == 3
    return False


# --------------------------------------------------------------------------- (a) call builders


def build_validate_call() -> SyncCall:
    """pydantic ``validate_call(add)(**args)``."""
    from pydantic import validate_call

    wrapped = validate_call(add)
    return lambda: wrapped(**ADD_ARGS)


def build_ours_sync() -> SyncCall:
    """forge ``reg.execute("add", args)``."""
    from forge.tools import ToolRegistry

    reg = ToolRegistry()
    reg.register(add)
    return lambda: reg.execute("add", ADD_ARGS)


def _floor_parts(handler: Callable[..., Any]) -> tuple[Callable[[str], Any], Any, Any, Any]:
    """What the sketches below hold: the lookup, the exact-type check, the handler, the result."""
    from forge.tools import ToolRegistry, ToolResult

    reg = ToolRegistry([handler])
    tool = reg.get(handler.__name__)
    assert tool is not None
    compiled = tool.compiled()
    assert compiled.admits is not None
    assert compiled.fn is not None
    return reg.get, compiled.admits, compiled.fn, ToolResult.succeeded


def build_floor_sync() -> SyncCall:
    """A sketch of the least a validated call by name can do and still return a `ToolResult`:
    look the tool up, check the arguments' exact types, call, build the result (no context,
    deadline, logging or error mapping). It bounds what any path of ours can reach."""
    get, admits, fn, succeeded = _floor_parts(add)

    def execute(name: str, arguments: dict[str, Any]) -> Any:
        if get(name) is None or not admits(arguments):
            raise AssertionError("the sketch takes only its one case")
        return succeeded(fn(**arguments), name, None)

    return lambda: execute("add", ADD_ARGS)


def build_langchain() -> SyncCall:
    """langchain-core ``StructuredTool.from_function(add).invoke(args)``."""
    from langchain_core.tools import StructuredTool

    structured = StructuredTool.from_function(add)
    return lambda: structured.invoke(ADD_ARGS)


def build_toolregistry() -> SyncCall:
    """toolregistry ``reg.get_tool("add").run(args)`` (lookup by name included)."""
    from toolregistry import ToolRegistry as PeerRegistry

    reg: Any = PeerRegistry()  # the peer is typed only where the bench extra is installed
    reg.register(add)
    return lambda: reg.get_tool("add").run(ADD_ARGS)


def build_validate_call_async() -> AsyncCall:
    """pydantic ``await validate_call(aadd)(**args)``."""
    from pydantic import validate_call

    wrapped = validate_call(aadd)
    return lambda: wrapped(**ADD_ARGS)


def build_ours_async() -> AsyncCall:
    """forge ``await reg.aexecute("aadd", args)``."""
    from forge.tools import ToolRegistry

    reg = ToolRegistry()
    reg.register(aadd)
    return lambda: reg.aexecute("aadd", ADD_ARGS)


def build_floor_async() -> AsyncCall:
    """`build_floor_sync` for the async tool: the handler's coroutine awaited, in a coroutine."""
    get, admits, fn, succeeded = _floor_parts(aadd)

    async def aexecute(name: str, arguments: dict[str, Any]) -> Any:
        if get(name) is None or not admits(arguments):
            raise AssertionError("the sketch takes only its one case")
        return succeeded(await fn(**arguments), name, None)

    return lambda: aexecute("aadd", ADD_ARGS)


def mcp_server() -> Any:
    """An empty MCP server (the SDK's ``MCPServer``)."""
    from mcp.server.mcpserver import MCPServer

    return MCPServer("bench")


def build_mcp(tool_fn: Callable[..., Any]) -> Callable[[], AsyncCall]:
    """``await server.call_tool(name, args)``: validation, call and result conversion."""

    def builder() -> AsyncCall:
        server = mcp_server()
        server.add_tool(tool_fn)
        name = tool_fn.__name__
        return lambda: server.call_tool(name, ADD_ARGS)

    return builder


def build_openai_agents() -> AsyncCall:
    """openai-agents ``function_tool(aadd).on_invoke_tool(ctx, json_string)``."""
    from agents import function_tool
    from agents.tool_context import ToolContext

    function = function_tool(aadd)
    context: ToolContext[Any] = ToolContext(
        context=None, tool_name="aadd", tool_call_id="call_0", tool_arguments=ADD_ARGS_JSON
    )
    return lambda: function.on_invoke_tool(context, ADD_ARGS_JSON)


def build_pydantic_ai() -> AsyncCall:
    """pydantic-ai ``Tool(aadd)``: its argument validator, then its ``call``."""
    from pydantic_ai import Tool

    schema = Tool(aadd).function_schema
    validate = schema.validator.validate_python
    return lambda: schema.call(validate(ADD_ARGS), None)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- (a) measurement


def prepare_sync(builders: dict[str, Callable[[], SyncCall]]) -> dict[str, Outcome]:
    """Build and sanity-check every synchronous case."""
    outcomes = {label: prepare(builder) for label, builder in builders.items()}
    for outcome in outcomes.values():
        if outcome.call is not None:
            try:
                check_result(outcome, outcome.call())
            except Exception as exc:
                outcome.status, outcome.call = f"error: {type(exc).__name__}: {exc}"[:120], None
    return outcomes


async def prepare_async(builders: dict[str, Callable[[], AsyncCall]]) -> dict[str, Outcome]:
    """Build and sanity-check every asynchronous case (inside the running loop)."""
    outcomes = {label: prepare(builder) for label, builder in builders.items()}
    for outcome in outcomes.values():
        if outcome.call is not None:
            try:
                check_result(outcome, await outcome.call())
            except Exception as exc:
                outcome.status, outcome.call = f"error: {type(exc).__name__}: {exc}"[:120], None
    return outcomes


def timed_rows(
    outcomes: dict[str, Outcome], timings: dict[str, float], baseline_label: str, baseline: str
) -> dict[str, Row]:
    """One row per case with its ratio to the ``baseline_label`` case."""
    base = timings.get(baseline_label)
    rows: dict[str, Row] = {}
    for label, outcome in outcomes.items():
        if outcome.status:
            rows[label] = Row(label, status=outcome.status, baseline=baseline)
        else:
            rows[label] = ratio_row(label, timings[label], base, baseline)
    return rows


def sync_call_rows() -> tuple[list[Row], float | None]:
    """Sync validated calls; returns the rows and the ``validate_call`` time (µs)."""
    vc_label = f"pydantic {version_of('pydantic')} `validate_call(add)(**args)`"
    ours_label = "**ours** `reg.execute('add', args)`"
    builders: dict[str, Callable[[], SyncCall]] = {
        "bare call `add(**args)`": lambda: lambda: add(**ADD_ARGS),
        vc_label: build_validate_call,
        ours_label: build_ours_sync,
        FLOOR_SYNC: build_floor_sync,
        f"langchain-core {version_of('langchain-core')} `StructuredTool.invoke`": build_langchain,
        f"toolregistry {version_of('toolregistry')} `get_tool('add').run`": build_toolregistry,
    }
    outcomes = prepare_sync(builders)
    times = compare_us({k: o.call for k, o in outcomes.items() if o.call is not None})
    rows = timed_rows(outcomes, times, vc_label, "validate_call")
    if ours_label in times:
        rows[ours_label] = ratio_row(
            ours_label, times[ours_label], times.get(vc_label), "validate_call", max_ratio=0.5
        )
    return list(rows.values()), times.get(vc_label)


def async_call_rows(sync_validate_call_us: float | None) -> list[Row]:
    """Async validated calls, each awaited inside one running event loop."""
    avc_label = "pydantic `await validate_call(aadd)(**args)`"
    ours_label = "**ours** `await reg.aexecute('aadd', args)`"
    builders: dict[str, Callable[[], AsyncCall]] = {
        avc_label: build_validate_call_async,
        ours_label: build_ours_async,
        FLOOR_ASYNC: build_floor_async,
        f"mcp {version_of('mcp')} `await server.call_tool('aadd', args)`": build_mcp(aadd),
        "mcp, sync `add` (SDK runs it on a worker thread)": build_mcp(add),
        f"openai-agents {version_of('openai-agents')} `on_invoke_tool(ctx, json)`": (
            build_openai_agents
        ),
        f"pydantic-ai {version_of('pydantic-ai-slim')} `Tool(aadd)` validate + call": (
            build_pydantic_ai
        ),
    }

    async def measure() -> tuple[dict[str, Outcome], dict[str, float]]:
        outcomes = await prepare_async(builders)
        cases = {k: o.call for k, o in outcomes.items() if o.call is not None}
        return outcomes, await acompare_us(cases)

    outcomes, times = asyncio.run(measure())
    rows = timed_rows(outcomes, times, avc_label, "async validate_call")
    if ours_label in times:
        rows[ours_label] = ratio_row(
            ours_label, times[ours_label], times.get(avc_label), "async validate_call",
            max_ratio=0.6,
        )  # fmt: skip
    versus_sync_label = "**ours** `aexecute` vs *sync* validate_call"
    if outcomes[ours_label].status:
        versus_sync = Row(versus_sync_label, status=outcomes[ours_label].status)
    else:
        versus_sync = ratio_row(
            versus_sync_label,
            times[ours_label],
            sync_validate_call_us,
            "sync validate_call",
            max_ratio=1.5,
        )
    head = [rows.pop(avc_label), rows.pop(ours_label), versus_sync]
    return [*head, *rows.values()]


def bench_calls() -> list[Row]:
    """(a) Validated call of ``add(a: int, b: int)`` by name, sync and async."""
    sync_rows, validate_call_us = sync_call_rows()
    return [*sync_rows, *async_call_rows(validate_call_us)]


# --------------------------------------------------------------------------- (b) lookup


def bench_lookup() -> list[Row]:
    """(b) ``reg.get(name)`` in a 10,000-tool registry vs ``dict.get`` on a same-size dict."""
    functions = make_functions(LOOKUP_TOOLS, prefix="lookup_")
    names = random.Random(3).choices([f.__name__ for f in functions], k=LOOKUP_SEQUENCE)
    plain = {f.__name__: f for f in functions}
    outcome = prepare(lambda: _registry_with(functions))
    dict_get = plain.get

    def loop_only() -> None:
        for _name in names:
            pass

    def dict_lookups() -> None:
        for name in names:
            dict_get(name)

    cases: dict[str, SyncCall] = {"loop": loop_only, "dict": dict_lookups}
    if outcome.call is not None:
        reg_get = outcome.call.get
        if reg_get(names[0]) is None:
            outcome.status = "error: reg.get returned None for a registered name"
        else:

            def registry_lookups() -> None:
                for name in names:
                    reg_get(name)

            cases["ours"] = registry_lookups
    per = {k: v / LOOKUP_SEQUENCE for k, v in compare_us(cases, repeat=9).items()}
    label = f"**ours** `reg.get(name)`, {LOOKUP_TOOLS:,} tools"
    rows = [
        ratio_row(f"`dict.get(name)`, {LOOKUP_TOOLS:,} keys", per["dict"], per["dict"], "dict.get")
    ]
    if outcome.status:
        return [*rows, Row(label, status=outcome.status, baseline="dict.get")]
    rows.append(ratio_row(label, per["ours"], per["dict"], "dict.get", max_ratio=1.5))
    rows.append(
        ratio_row(
            "**ours** `reg.get`, net of loop overhead (info)",
            per["ours"] - per["loop"],
            per["dict"] - per["loop"],
            "dict.get, net",
        )
    )
    return rows


def _registry_with(functions: list[Any]) -> Any:
    """A forge registry holding ``functions``."""
    from forge.tools import ToolRegistry

    reg = ToolRegistry()
    for function in functions:
        reg.register(function)
    return reg


# --------------------------------------------------------------------------- (c) build


def _fresh_functions() -> list[Any]:
    """1,000 fresh typed functions (new objects on every call)."""
    return make_functions(BUILD_TOOLS, prefix="build_")


def _register_each(functions: list[Any]) -> None:
    """Register each function, one ``register`` call at a time, into a fresh registry."""
    from forge.tools import ToolRegistry

    reg = ToolRegistry()
    for function in functions:
        reg.register(function)


def _register_many(functions: list[Any]) -> None:
    """Register all functions with one ``register_many`` call into a fresh registry."""
    from forge.tools import ToolRegistry

    ToolRegistry().register_many(functions)


def _registered_names() -> tuple[Any, list[str]]:
    """A fresh registry holding 1,000 fresh functions (not compiled yet), and their names."""
    functions = _fresh_functions()
    return _registry_with(functions), [f.__name__ for f in functions]


def _compile_all(prepared: tuple[Any, list[str]]) -> None:
    """Force schema and validator construction for every named tool."""
    reg, names = prepared
    for name in names:
        reg.get(name).compile()


def _validate_call_each(functions: list[Any]) -> None:
    """Wrap each function with pydantic ``validate_call`` (builds its validator eagerly)."""
    from pydantic import validate_call

    held = [validate_call(function) for function in functions]
    del held


def _langchain_each(functions: list[Any]) -> None:
    """Build a langchain-core ``StructuredTool`` from each function."""
    from langchain_core.tools import StructuredTool

    held = [StructuredTool.from_function(function) for function in functions]
    del held


def _importable(module: str) -> bool:
    """Whether ``module`` can be imported."""
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def _check_ours_build() -> str:
    """Register and compile a few tools once; return an error status, or "" when it works."""
    if not _importable("forge.tools"):
        return NOT_INSTALLED
    try:
        reg = _registry_with(make_functions(5, prefix="check_"))
        _compile_all((reg, [f"check_{i:05d}" for i in range(5)]))
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}"[:120]
    return ""


def bench_build() -> list[Row]:
    """(c) Per-tool cost of building a 1,000-tool registry from distinct typed functions."""
    vc = "pydantic `validate_call(fn)` each"
    ours = "**ours** `reg.register(fn)` each"
    many = "**ours** `reg.register_many(fns)` (info)"
    compile_label = "**ours** `reg.get(n).compile()` each (info)"
    lc = "langchain-core `StructuredTool.from_function` each (info)"
    ours_status = _check_ours_build()
    cases = {vc: BatchCase(_fresh_functions, _validate_call_each, BUILD_TOOLS)}
    if not ours_status:
        cases[ours] = BatchCase(_fresh_functions, _register_each, BUILD_TOOLS)
        cases[many] = BatchCase(_fresh_functions, _register_many, BUILD_TOOLS)
        cases[compile_label] = BatchCase(_registered_names, _compile_all, BUILD_TOOLS)
    if _importable("langchain_core.tools"):
        cases[lc] = BatchCase(_fresh_functions, _langchain_each, BUILD_TOOLS, repeat=3)
    times = compare_batch_us(cases)
    base = times[vc]
    rows = [ratio_row(vc, base, base, "validate_call")]
    for label in (ours, many, compile_label, lc):
        if label not in times:
            status = ours_status if label != lc else NOT_INSTALLED
            rows.append(Row(label, status=status, baseline="validate_call"))
        elif label == ours:
            bounded = ratio_row(
                label, times[label], base, "validate_call", max_ratio=1.0, strict=True
            )
            rows.append(bounded)
        else:
            rows.append(ratio_row(label, times[label], base, "validate_call"))
    return rows


# --------------------------------------------------------------------------- (d) import time


def bench_import() -> list[Row]:
    """(d) Fresh-interpreter import time, net of ``python -c pass``."""
    pydantic_stmt = "import pydantic"
    ours_stmt = "import forge.tools"
    names_stmt = "from forge.tools import ToolRegistry, tool"
    realistic_stmt = "from pydantic import BaseModel, validate_call"
    times = import_times_ms([pydantic_stmt, ours_stmt, names_stmt, realistic_stmt])
    base = times[pydantic_stmt]
    specs = [
        (pydantic_stmt, None),
        (ours_stmt, 1.3),
        (names_stmt, None),
        (realistic_stmt, None),
    ]
    rows = []
    for stmt, bound in specs:
        label = f"`{stmt}`" + ("" if bound or stmt == pydantic_stmt else " (info)")
        if times[stmt] is None:
            rows.append(Row(label, status=NOT_INSTALLED, baseline="import pydantic"))
        else:
            rows.append(
                ratio_row(label, times[stmt], base, "import pydantic", max_ratio=bound, unit="ms")
            )
    return rows


# --------------------------------------------------------------------------- (e) memory

_MEMORY_SETUP_OURS = """
from _workload import make_functions
from forge.tools import ToolRegistry
FUNCTIONS = make_functions({count}, prefix="mem_")
_warm = ToolRegistry()
for _f in make_functions(50, prefix="warm_"):
    _warm.register(_f)
    _warm.get(_f.__name__).compile()
REG = None
def _register():
    global REG
    REG = ToolRegistry()
    for f in FUNCTIONS:
        REG.register(f)
def _compile():
    for f in FUNCTIONS:
        REG.get(f.__name__).compile()
STAGES = [_register, _compile]
"""

_MEMORY_SETUP_PYDANTIC = """
from _workload import make_functions
from pydantic import validate_call
FUNCTIONS = make_functions({count}, prefix="mem_")
_warm = [validate_call(f) for f in make_functions(50, prefix="warm_")]
HELD = []
def _wrap():
    HELD.extend(validate_call(f) for f in FUNCTIONS)
STAGES = [_wrap]
"""


def _per_tool(setup: str, count: int, mode: str) -> list[float] | str:
    """Bytes per tool retained by each stage, or an error/status string."""
    if "forge.tools" in setup and not _importable("forge.tools"):
        return NOT_INSTALLED
    try:
        return [delta / count for delta in memory_deltas(setup.format(count=count), mode)]
    except RuntimeError as exc:
        return f"error: {exc}"[:120]


def bench_memory() -> list[Row]:
    """(e) Memory held by a 10,000-tool registry, per tool, before and after compiling."""
    rows: list[Row] = []
    reference: dict[str, float] = {}
    for mode, mode_label in (("tracemalloc", "Python heap"), ("rss", "RSS")):
        vc = _per_tool(_MEMORY_SETUP_PYDANTIC, MEMORY_REFERENCE_TOOLS, mode)
        if not isinstance(vc, str):
            reference[mode] = vc[0]
        ours = _per_tool(_MEMORY_SETUP_OURS, MEMORY_TOOLS, mode)
        registered = f"**ours** {MEMORY_TOOLS:,} tools registered, {mode_label}"
        compiled = f"**ours** ... + all compiled, {mode_label} (info)"
        if isinstance(ours, str):
            rows.append(Row(registered, status=ours))
        else:
            row = ratio_row(registered, ours[0], reference.get(mode), "validate_call", unit="B")
            if mode == "tracemalloc":
                row.target = "≤ 8 KiB/tool"
                row.passed = ours[0] <= MEMORY_BUDGET_BYTES
            rows.append(row)
            total = ours[0] + ours[1]
            rows.append(ratio_row(compiled, total, reference.get(mode), "validate_call", unit="B"))
        label = f"pydantic `validate_call(fn)`, per function, {mode_label} (info)"
        rows.append(
            Row(label, status=vc)
            if isinstance(vc, str)
            else ratio_row(label, vc[0], vc[0], "validate_call", unit="B")
        )
    return rows


# --------------------------------------------------------------------------- entry point


SECTIONS: list[tuple[str, Callable[[], list[Row]]]] = [
    ("(a) Validated call of `add(a: int, b: int)` by name (µs per call)", bench_calls),
    (f"(b) Lookup by name in a {LOOKUP_TOOLS:,}-tool registry (µs per lookup)", bench_lookup),
    (f"(c) Building a {BUILD_TOOLS:,}-tool registry (µs per tool)", bench_build),
    ("(d) Import time in a fresh interpreter (ms, net of `python -c pass`)", bench_import),
    ("(e) Memory per tool (bytes retained per tool)", bench_memory),
]


def run() -> Iterator[str]:
    """Run every section, yielding each rendered Markdown table as soon as it is measured."""
    for title, section in SECTIONS:
        yield render_rows(title, section())


def main() -> None:
    """Print the foundation tables."""
    for table in run():
        print(table, end="\n\n", flush=True)


if __name__ == "__main__":
    main()
