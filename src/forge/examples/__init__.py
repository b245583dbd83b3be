"""Bundled example tools, used by the command line and the README."""

from __future__ import annotations

from forge.examples.tools import (
    CONFIG_FILE,
    EXAMPLE_TOOLS,
    EXAMPLES_DIR_ENV,
    SAMPLE_FILES,
    example_internal_handlers,
    example_registry,
    examples_dir,
)

__all__ = [
    "CONFIG_FILE",
    "EXAMPLES_DIR_ENV",
    "EXAMPLE_TOOLS",
    "SAMPLE_FILES",
    "example_internal_handlers",
    "example_registry",
    "examples_dir",
]
