"""The command line's exit codes (see `forge.cli`)."""

from __future__ import annotations

__all__ = ["EXIT_NOT_FOUND", "EXIT_OK", "EXIT_TOOL_FAILED", "EXIT_USAGE", "EXIT_VALIDATION"]

EXIT_OK = 0
EXIT_TOOL_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_VALIDATION = 4
