"""Bundled example tools, used by the command line and the README."""

from __future__ import annotations

from forge.examples.tools import CONFIG_FILE, EXAMPLE_TOOLS, example_registry

__all__ = ["CONFIG_FILE", "EXAMPLE_TOOLS", "example_registry"]
