"""Stdout of a stdio MCP server written by the event loop, not by a worker thread per line.

The SDK writes each message with two calls (``write``, ``flush``) on a worker
thread: four thread switches per message, which under load cost more than the
message itself (a gateway pays them on every call). Here the loop writes to the
pipe through its transport and waits only when the pipe is full.

Like the SDK, it keeps the wire to itself: while serving, descriptor 1 points at
stderr, so stray prints of tools and of child processes (a gateway's stdio
servers) never corrupt the protocol; it is pointed back at the wire afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import AsyncIterator

__all__ = ["StdoutLines", "stdout_lines"]


class StdoutLines:
    """The ``write``/``flush`` the SDK's stdio server calls, on the loop's pipe transport."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        """Queue ``text`` (written at once unless the pipe is full)."""
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        """Wait until everything queued is in the pipe (the client reads it)."""
        await self._writer.drain()


@contextlib.asynccontextmanager
async def stdout_lines(fd: int = 1) -> AsyncIterator[StdoutLines | None]:
    """The wire on stdout (descriptor ``fd``), or ``None`` when it is no pipe, socket or tty.

    ``None`` leaves the writing to the SDK (a regular file, which the loop cannot watch).
    """
    mode = os.fstat(fd).st_mode
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)):
        yield None
        return
    wire = os.dup(fd)
    diversion = os.dup(2)
    os.dup2(diversion, fd)  # stray output goes to stderr while the wire is ours
    os.close(diversion)
    loop = asyncio.get_running_loop()
    try:
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(wire, "wb", closefd=False)
        )
    except (ValueError, OSError):
        _restore(wire, fd)
        yield None
        return
    transport.set_write_buffer_limits(high=0)  # drain() waits until the pipe took it all
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    try:
        yield StdoutLines(writer)
    finally:
        # Every message was drained when sent, so only output nobody read is left: drop it.
        # close() would keep the loop watching the wire's duplicate, closed just below.
        transport.abort()
        _restore(wire, fd)
        await asyncio.sleep(0)  # the transport lets go of its pipe object


def _restore(wire: int, fd: int) -> None:
    """Point ``fd`` back at the wire, blocking as it was, and drop the duplicate."""
    with contextlib.suppress(OSError):
        os.dup2(wire, fd)
        os.set_blocking(fd, True)
    os.close(wire)
