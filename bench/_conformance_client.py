"""The client the MCP conformance suite's client scenarios run: forge-tools' `import_tools`.

The suite starts a test server per scenario and runs
``python _conformance_client.py SERVER_URL`` with ``MCP_CONFORMANCE_SCENARIO`` set. The
client imports the server's tools into a registry, calls the tool the scenario expects
through the registry (as an application would), prints the result and exits 1 if a call
failed or the connection could not be made.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from forge.mcp import MCPConnectionError, import_tools
from forge.tools import ToolRegistry

#: The tool each scenario's server offers, and the arguments to call it with.
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "tools_call": ("add_numbers", {"a": 2, "b": 3}),
    "sse-retry": ("test_reconnection", {}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
}


def main(argv: list[str]) -> int:
    """Connect to ``argv[-1]``, make the scenario's call and return the exit code."""
    url, scenario = argv[-1], os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    registry = ToolRegistry()
    try:
        client = import_tools(registry, url, timeout=10, connect_timeout=10)
    except MCPConnectionError as exc:
        print(f"connect failed: {exc}", file=sys.stderr)
        return 1
    with client:
        print(f"imported: {', '.join(registry.names()) or '(no tools)'}")
        call = CALLS.get(scenario)
        if call is None:
            return 0
        result = registry.execute(*call)
        print(f"{call[0]}: {result.output if result.success else result.error}")
        return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
