"""What every agent does at start-up: build 1,000 tools from typed functions, then export them once.

Each case starts from 1,000 fresh typed functions (`_workload.make_functions`, new objects
every round, so no cache keyed on a function carries over) and ends with the OpenAI tool
definitions a chat request sends. The peers build their tool objects, then their own
OpenAI definitions; we build a `ToolRegistry`, then call ``to_provider("openai")``.

Usage: ``python bench/bench_first_export.py`` (about 1 minute).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import BatchCase, Row, compare_batch_us, print_tables, ratio_row, render_rows
from _workload import make_functions, mcp_listing

TOOLS = 1_000
PYAI = "pydantic-ai `Tool(fn)` + OpenAI definitions"
OURS = "**ours** `ToolRegistry(fns)` + `to_provider('openai')`"
TO_PYAI = 0.3
TO_FASTEST = 0.5


def _fresh() -> list[Any]:
    return make_functions(TOOLS, prefix="first_")


def _ours(functions: list[Any]) -> Any:
    from forge.tools import ToolRegistry

    return ToolRegistry(functions).to_provider("openai")


def _pydantic_ai(functions: list[Any]) -> Any:
    from pydantic_ai import Tool
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

    out = []
    for fn in functions:
        definition = Tool(fn).tool_def
        schema = OpenAIJsonSchemaTransformer(definition.parameters_json_schema).walk()
        out.append({"type": "function", "function": {
            "name": definition.name, "description": definition.description,
            "parameters": schema}})  # fmt: skip
    return out


def _openai_agents(functions: list[Any]) -> Any:
    from agents import function_tool
    from agents.models.chatcmpl_converter import Converter

    return [Converter.tool_to_openai(function_tool(fn)) for fn in functions]


def _mcp(functions: list[Any]) -> Any:
    return [{"type": "function", "function": {
        "name": t.name, "description": t.description, "parameters": t.input_schema}}
        for t in mcp_listing(functions)]  # fmt: skip


def _llama_index(functions: list[Any]) -> Any:
    from llama_index.core.tools import FunctionTool

    return [FunctionTool.from_defaults(fn).metadata.to_openai_tool() for fn in functions]


def _langchain(functions: list[Any]) -> Any:
    from langchain_core.tools import StructuredTool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return [convert_to_openai_tool(StructuredTool.from_function(fn)) for fn in functions]


PEERS: dict[str, tuple[Callable[[list[Any]], Any], int]] = {
    PYAI: (_pydantic_ai, 5),
    "openai-agents `function_tool(fn)` + `Converter.tool_to_openai`": (_openai_agents, 5),
    "mcp `MCPServer.add_tool(fn)` + `list_tools()`": (_mcp, 5),
    "llama-index-core `FunctionTool.from_defaults(fn)` + `to_openai_tool()`": (_llama_index, 3),
    "langchain-core `StructuredTool.from_function(fn)` + `convert_to_openai_tool`": (
        _langchain, 2,
    ),
}  # fmt: skip


def _check(build: Callable[[list[Any]], Any]) -> str | None:
    """``None`` when the case exports every tool, else why it cannot be timed."""
    try:
        out = build(_fresh())
    except ImportError:
        return "not installed"
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}"[:120]
    names = {d["function"]["name"] for d in out}
    return None if len(names) == TOOLS else f"error: {len(names)} tools exported"


def run() -> list[str]:
    """Measure and return the Markdown table."""
    logging.disable(logging.WARNING)  # each export warns that 1,000 tools exceed one request
    try:
        return _measure()
    finally:
        logging.disable(logging.NOTSET)


def _measure() -> list[str]:
    status = {label: _check(build) for label, (build, _) in PEERS.items()}
    status[OURS] = _check(_ours)
    cases = {OURS: BatchCase(_fresh, _ours, TOOLS)} if status[OURS] is None else {}
    for label, (build, repeat) in PEERS.items():
        if status[label] is None:
            cases[label] = BatchCase(_fresh, build, TOOLS, repeat=repeat)
    times = compare_batch_us(cases)  # µs per tool: ms per 1,000 tools
    base = times.get(PYAI)
    peers = [times[label] for label in PEERS if label in times]
    rows = []
    for label in (PYAI, *[p for p in PEERS if p != PYAI]):
        if label not in times:
            rows.append(Row(label, status=status[label] or "", baseline=PYAI))
        else:
            rows.append(ratio_row(label, times[label], base, PYAI, unit="ms"))
    if OURS not in times:
        rows.append(Row(OURS, status=status[OURS] or "", baseline=PYAI))
    elif base is not None:
        rows.append(ratio_row(OURS, times[OURS], base, PYAI, max_ratio=TO_PYAI, unit="ms"))
        fastest = min(peers)
        rows.append(ratio_row(f"{OURS}, against the fastest peer", times[OURS], fastest,
                              "fastest peer", max_ratio=TO_FASTEST, unit="ms"))  # fmt: skip
    title = f"Building {TOOLS:,} tools from typed functions and exporting them once (ms in all)"
    return [render_rows(title, rows)]


def main() -> None:
    """Print the table."""
    print_tables(run())


if __name__ == "__main__":
    main()
