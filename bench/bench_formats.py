"""Provider-format benchmarks: converting 1,000 tools to every format, cold and cached.

Run directly (``python bench/bench_formats.py``) or through ``bench/run_all.py``. Every ratio
compares measurements taken in this one process run. Peers convert the same 1,000 generated
typed functions to the OpenAI tool format, each from its own precomputed tool objects:

- mcp SDK: ``await server.list_tools()`` on an ``MCPServer`` (``FastMCP`` in mcp 1.x) holding
  the 1,000 tools: **the baseline** (target: our cold conversion no slower).
- langchain-core: ``convert_to_openai_tool(fn)`` for each function.
- pydantic-ai: ``OpenAIJsonSchemaTransformer(tool_def.parameters_json_schema).walk()`` plus the
  OpenAI envelope, for each prebuilt ``Tool``.
- openai-agents: ``Converter.tool_to_openai(tool)`` for each prebuilt ``function_tool``.

Both sides build their schemas before the timed listing: the mcp SDK when a tool is added, we
when a tool compiles (the canonical schema, its validator and, for a flat schema, the parameter
table the Gemini and strict compilers render from). Two info rows show what that leaves out: the
cost of the parameter tables alone, and the whole path from 1,000 plain functions to a listing
(``add_tool`` + ``list_tools()`` against registration + ``compile_all()`` + a cold strict
conversion).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import BatchCase, Row, compare_batch_us, compare_us, ratio_row, render_rows
from _workload import make_functions, mcp_listing

TOOLS = 1_000
FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "ollama", "bedrock",
           "mistral", "mcp")  # fmt: skip
BASELINE = "mcp SDK `list_tools()`"
TABLE = "parameter tables, built once when the tools compile (info)"
MCP_END_TO_END = "mcp SDK: `add_tool` for 1,000 + `list_tools()` (end to end, info)"
OURS_END_TO_END = "**ours**: register + `compile_all()` + cold `openai` strict (end to end, info)"
CACHED_BUDGET_US = 1_000.0

Batch = Callable[[], Any]


def _ours(functions: list[Any]) -> tuple[Any, list[Any]]:
    from forge.tools import ToolRegistry

    registry = ToolRegistry(functions)
    registry.compile_all()
    return registry, registry.list_all()


def _mcp(functions: list[Any]) -> Batch:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench")
    for fn in functions:
        server.add_tool(fn)
    loop = asyncio.new_event_loop()

    def run() -> Any:
        return loop.run_until_complete(server.list_tools())

    return run


def _langchain(functions: list[Any]) -> Batch:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return lambda: [convert_to_openai_tool(fn) for fn in functions]


def _pydantic_ai(functions: list[Any]) -> Batch:
    from pydantic_ai import Tool
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

    tools = [Tool(fn) for fn in functions]

    def run() -> list[dict[str, Any]]:
        out = []
        for t in tools:
            td = t.tool_def
            schema = OpenAIJsonSchemaTransformer(td.parameters_json_schema).walk()
            out.append({"type": "function", "function": {
                "name": td.name, "description": td.description, "parameters": schema}})  # fmt: skip
        return out

    return run


def _openai_agents(functions: list[Any]) -> Batch:
    from agents import function_tool
    from agents.models.chatcmpl_converter import Converter

    tools = [function_tool(fn) for fn in functions]
    return lambda: [Converter.tool_to_openai(t) for t in tools]


def _peer(builder: Callable[[list[Any]], Batch], functions: list[Any]) -> Batch | str:
    try:
        batch = builder(functions)
        out = batch()
        count = len(out.tools) if hasattr(out, "tools") else len(out)
    except ImportError:
        return "not installed"
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}"[:120]
    return batch if count == TOOLS else f"error: {count} tools converted"


def run() -> list[str]:
    """Measure and return the Markdown tables."""
    from forge.tools.formats import _memo, to_provider

    functions = make_functions(TOOLS, prefix="fmt_")
    registry, tools = _ours(functions)
    peers = {
        BASELINE: _peer(_mcp, functions),
        "langchain-core `convert_to_openai_tool` (info)": _peer(_langchain, functions),
        "pydantic-ai transformer + envelope (info)": _peer(_pydantic_ai, functions),
        "openai-agents `Converter.tool_to_openai` (info)": _peer(_openai_agents, functions),
    }
    cases = {k: BatchCase(_nothing, _call(v), TOOLS, repeat=2 if "langchain" in k else 5)
             for k, v in peers.items() if callable(v)}  # fmt: skip
    targets = [(fmt, False) for fmt in FORMATS] + [("openai", True), ("anthropic", True)]
    for fmt, strict in targets:
        label = f"`{fmt}`{' strict' if strict else ''}"
        convert = _converter(to_provider, tools, fmt, strict)
        cases[f"**ours** cold {label}"] = BatchCase(_memo.clear, convert, TOOLS)
        changed = _after_change(registry, fmt, strict)
        cases[f"**ours** after one tool changed {label}"] = BatchCase(*changed, TOOLS)
    cases[TABLE] = BatchCase(_nothing, _analyse_all(tools), TOOLS)
    if callable(peers[BASELINE]):
        cases[MCP_END_TO_END] = BatchCase(_fresh_functions, _mcp_end_to_end, TOOLS, repeat=3)
        cases[OURS_END_TO_END] = BatchCase(_fresh_functions, _ours_end_to_end, TOOLS, repeat=3)
    times = compare_batch_us(cases)  # µs per tool == ms per 1,000 tools
    base = times.get(BASELINE)
    rows = []
    for label, value in peers.items():
        if not callable(value):
            rows.append(Row(label, status=value, baseline=BASELINE))
        else:
            rows.append(ratio_row(label, times[label], base, BASELINE, unit="ms"))
    for label in cases:
        if label.startswith("**ours**") and label != OURS_END_TO_END:
            rows.append(ratio_row(label, times[label], base, BASELINE, max_ratio=1.0, unit="ms"))
    rows.append(ratio_row(TABLE, times[TABLE], base, BASELINE, unit="ms"))
    if MCP_END_TO_END in times:
        whole = times[MCP_END_TO_END]
        rows.append(ratio_row(MCP_END_TO_END, whole, whole, MCP_END_TO_END, unit="ms"))
        rows.append(ratio_row(OURS_END_TO_END, times[OURS_END_TO_END], whole, MCP_END_TO_END,
                              unit="ms"))  # fmt: skip
    return [render_rows(f"Converting {TOOLS:,} tools (ms per {TOOLS:,} tools)", rows),
            _cached(registry)]  # fmt: skip


def _analyse_all(tools: list[Any]) -> Callable[[Any], Any]:
    """Time what `Tool.compile()` adds for the formats: reading each schema into its table."""
    from forge.tools.schema import analyse

    schemas = [t.parameters for t in tools]
    return lambda _inputs: [analyse(schema) for schema in schemas]


def _fresh_functions() -> list[Any]:
    return make_functions(TOOLS, prefix="e2e_")


def _mcp_end_to_end(functions: list[Any]) -> Any:
    """Everything the baseline does from plain functions to its listing."""
    return mcp_listing(functions)


def _ours_end_to_end(functions: list[Any]) -> Any:
    """Everything we do from plain functions to strict OpenAI definitions (tables included)."""
    from forge.tools import ToolRegistry

    registry = ToolRegistry(functions)
    registry.compile_all()
    return registry.to_provider("openai", strict=True)


def _nothing() -> None:
    return None


def _call(batch: Batch) -> Callable[[Any], Any]:
    return lambda _inputs: batch()


def _converter(to_provider: Any, tools: list[Any], fmt: str, strict: bool) -> Callable[[Any], Any]:
    return lambda _inputs: to_provider(tools, fmt, strict=strict)


def _after_change(registry: Any, fmt: str, strict: bool) -> tuple[Batch, Callable[[Any], Any]]:
    """Setup: register one more tool (a new version). Timed: the registry's conversion."""
    from forge.tools import tool

    spare = [tool(fn) for fn in make_functions(8, prefix=f"spare_{fmt.replace('-', '_')}_")]
    cycle = iter(spare * 4)

    def setup() -> None:
        registry.register(next(cycle), replace=True)

    return setup, lambda _inputs: registry.to_provider(fmt, strict=strict)


def _cached(registry: Any) -> str:
    cases = {f"**ours** cached `registry.to_provider({fmt!r})`": partial(registry.to_provider, fmt)
             for fmt in (*FORMATS, "langchain")}  # fmt: skip
    for fn in cases.values():
        fn()
    times = compare_us(cases)
    rows = [Row(label, value, "µs", target="< 1 ms", passed=value < CACHED_BUDGET_US)
            for label, value in times.items()]  # fmt: skip
    return render_rows(f"Cached repeat of {TOOLS:,} tools (µs per call)", rows)


def main() -> None:
    """Print the tables."""
    for table in run():
        print(table, end="\n\n", flush=True)


if __name__ == "__main__":
    main()
