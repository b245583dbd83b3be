"""The start of a long-running command, with the cyclic garbage collector paused.

Starting a server creates about a million long-lived objects (the MCP SDK, pydantic, the
tools) and almost no garbage, yet the collector would scan them some two hundred times on the
way: about 80 ms of a stdio server's start here. `pause` stops it from the first import;
`serving` freezes what exists by then (`gc.freeze`: kept out of every later collection, as it
lives as long as the server) and restarts it. A collector the caller had disabled is left so.
"""

from __future__ import annotations

import gc

__all__ = ["pause", "resume", "serving"]

_paused: set[str] = set()  # {"gc"} while this module holds the collector


def pause() -> None:
    """Pause the collector for a command's start (if it runs)."""
    if gc.isenabled():
        gc.disable()
        _paused.add("gc")


def serving() -> None:
    """The command's state is loaded: freeze it and restart the collector."""
    if _paused:
        gc.freeze()
    resume()


def resume() -> None:
    """Restart the collector if `pause` stopped it (a command that ends before serving)."""
    if _paused:
        _paused.clear()
        gc.enable()
