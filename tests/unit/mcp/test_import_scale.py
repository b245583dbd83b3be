"""A server listing thousands of tools: importing and closing copy O(n) tools, not O(n²).

Counted, not timed (``bench/bench_import_scale.py`` has the times): every snapshot the
registry builds is recorded with its size while `import_tools` registers the tools of a
stdio server listing 2,000 (in pages of 1,000) and ``close()`` deregisters them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from forge.mcp import import_tools
from forge.tools import ToolRegistry

pytestmark = pytest.mark.slow  # a real MCP server subprocess

SERVER = str(Path(__file__).resolve().parents[3] / "bench" / "_many_tools_server.py")
COUNT = 2_000


def test_importing_and_closing_a_large_server_copies_linearly(copied: list[int]) -> None:
    """2,000 tools imported one by one, then withdrawn: O(n) tools copied in all."""
    registry = ToolRegistry()
    client = import_tools(registry, [sys.executable, SERVER, str(COUNT)], connect_timeout=120)
    assert len(registry.names()) == COUNT
    assert registry.execute("tool_1999", {"q": "x"}).output == "tool_1999"
    client.close()
    assert registry.names() == []
    assert sum(copied) <= 4 * COUNT
