"""The gateway tests start the MCP tests' servers: their helpers and fixtures serve here too."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "mcp" / "servers"))

from tests.unit.mcp.conftest import relay, start_http

__all__ = ["relay", "start_http"]
