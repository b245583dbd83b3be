"""A tool that waits and writes what happened to it (started, cancelled, finished) to a file.

The file is ``$FORGE_TEST_MARKS`` (one word a line), so a test can see from outside
whether a disconnecting client cancelled the call.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from forge.tools import ToolRegistry, tool


def _mark(word: str) -> None:
    path = os.environ.get("FORGE_TEST_MARKS")
    if path:
        with Path(path).open("a", encoding="utf-8") as marks:
            marks.write(word + "\n")


@tool
async def wait(seconds: float) -> str:
    """Wait, noting whether the wait was cancelled.

    Args:
        seconds: How long to wait.
    """
    _mark("started")
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        _mark("cancelled")
        raise
    _mark("finished")
    return "waited"


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


registry = ToolRegistry()
registry.register(wait)
registry.register(add)
