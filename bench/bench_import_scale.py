"""How importing and closing a large MCP server scale: a registry's one-by-one changes.

Two measurements, each at several sizes, so the growth shows: a bare `ToolRegistry`
registering then deregistering ``n`` tools one by one, and `import_tools` of a stdio server
(``_many_tools_server.py``, the low-level SDK) listing ``n`` tools in pages of 1,000, then
``close()``, which deregisters them. Linear work keeps each column's time per tool flat.

Usage: ``python bench/bench_import_scale.py [n ...]`` (default 5,000 and 20,000; about 30 s).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import render_table

SERVER = str(Path(__file__).resolve().parent / "_many_tools_server.py")
SIZES = (5_000, 20_000)


def registry_seconds(count: int) -> tuple[float, float]:
    """Seconds to register ``count`` tools one by one into a bare registry, then deregister them."""
    from forge.tools import ToolRegistry, from_record

    def handler(arguments: dict[str, object]) -> None:
        return None

    tools = [
        from_record({"name": f"t{i}", "description": "d", "handler": handler,
                     "parameters": {"type": "object", "properties": {}}})
        for i in range(count)
    ]  # fmt: skip
    registry = ToolRegistry()
    start = time.perf_counter()
    for item in tools:
        registry.register(item)
    registered = time.perf_counter()
    for item in tools:
        registry.deregister(item.name)
    return registered - start, time.perf_counter() - registered


def import_seconds(count: int) -> tuple[float, float]:
    """Seconds to import a stdio server's ``count`` tools, then to close the client."""
    from mcp import StdioServerParameters

    from forge.mcp import import_tools
    from forge.tools import ToolRegistry

    registry = ToolRegistry()
    server = StdioServerParameters(command=sys.executable, args=[SERVER, str(count)])
    start = time.perf_counter()
    client = import_tools(registry, server, connect_timeout=600, timeout=600)
    imported = time.perf_counter()
    if len(registry) != count:
        raise RuntimeError(f"imported {len(registry)} tools of {count}")
    client.close()
    return imported - start, time.perf_counter() - imported


def table(rows: Sequence[tuple[int, float, float, float, float]]) -> str:
    """One row per size: seconds for each step, and microseconds per tool."""
    header = ["tools", "register", "deregister", "import", "close", "import µs/tool",
              "close µs/tool"]  # fmt: skip
    body = [
        [f"{n:,}", f"{reg:.3f} s", f"{dereg:.3f} s", f"{imp:.2f} s", f"{close:.2f} s",
         f"{imp / n * 1e6:.0f}", f"{close / n * 1e6:.0f}"]
        for n, reg, dereg, imp, close in rows
    ]  # fmt: skip
    return render_table(header, body)


def main(argv: Sequence[str]) -> None:
    """Measure each size (``argv``, or `SIZES`) and print the table."""
    sizes = [int(a) for a in argv] or list(SIZES)
    rows = [(n, *registry_seconds(n), *import_seconds(n)) for n in sizes]
    print(table(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
