"""The gateway tests start the MCP tests' servers: their helpers are importable here too."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "mcp" / "servers"))
