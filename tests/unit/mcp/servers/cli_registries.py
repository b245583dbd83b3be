"""Registries the acceptance tests fill and hand to the in-process CLI (``--tools MODULE:ATTR``).

``full`` holds every tool a test imported; ``subset`` holds the part of it a test picks.
"""

from __future__ import annotations

from forge.tools import ToolRegistry

full = ToolRegistry()
subset = ToolRegistry()
