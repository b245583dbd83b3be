"""Run an `MCPToolServer` over stdio or streamable HTTP until stopped (``forge-tools serve``).

HTTP binds to 127.0.0.1 by default. A bearer token (``FORGE_TOOLS_TOKEN`` for
the command line) is then required on every request; binding to any other
address without a token, or with a short one, is refused. Requests naming a
host that is not allowed are refused (DNS rebinding), and `HttpLimits` bound
what one client can hold. SIGINT and SIGTERM stop the server cleanly.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import stat
from collections.abc import Coroutine, Iterator, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal

from mcp.server.stdio import stdio_server

from forge.mcp._bind import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    MCP_PATH,
    MIN_TOKEN_LENGTH,
    TOKEN_ENV,
    InsecureBindError,
    check_bind,
)
from forge.mcp._stdout import stdout_lines
from forge.mcp.server import MCPToolServer

if TYPE_CHECKING:
    from forge.mcp._serve_http import serve_http
    from forge.mcp.limits import HttpLimits
    from forge.tools import ToolRegistry, ToolView

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "MCP_PATH",
    "MIN_TOKEN_LENGTH",
    "TOKEN_ENV",
    "InsecureBindError",
    "check_bind",
    "serve",
    "serve_http",
    "serve_stdio",
]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
MAX_LINE_BYTES = 64 * 1024 * 1024
"""The longest stdio message accepted (one JSON-RPC message per line)."""

Transport = Literal["stdio", "http"]


def serve(
    registry: ToolRegistry | ToolView,
    *,
    transport: Transport = "stdio",
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    token: str | None = None,
    server: MCPToolServer | None = None,
    allowed_hosts: Sequence[str] = (),
    limits: HttpLimits | None = None,
    catalog: bool = True,
    metrics: bool = False,
) -> None:
    """Serve ``registry`` until the client disconnects (stdio) or SIGINT/SIGTERM arrives.

    Over HTTP, ``allowed_hosts`` are host names to answer besides the bind address's own
    (see `serve_http`), ``limits`` bound what each client may hold and ``catalog``
    serves the web catalog at ``/``. ``metrics`` collects per-tool metrics (shown by the
    catalog) when ``server`` is not given.

    Sync tools that outlived their timeout may still be running on the executor's
    daemon worker threads when this returns: they are abandoned, not waited for.
    Call it from the main thread. After a stop by signal, SIGINT and SIGTERM stay
    ignored (the process is expected to exit; a late signal must not kill it
    mid-exit); when the server stops otherwise, the caller's handlers are restored.

    Raises:
        InsecureBindError: HTTP on a non-loopback ``host`` without a long enough ``token``.
        ValueError: An unknown ``transport``, or an allowed host that is not a host name.
    """
    if transport not in ("stdio", "http"):
        raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'http'")
    if transport == "http":
        from forge.mcp._hosts import HostPolicy
        from forge.mcp._serve_http import serve_http

        check_bind(host, token)
        HostPolicy(host, allowed_hosts)  # a bad allowed host fails before anything starts
    executor = None
    if metrics and server is None:
        from forge.tools import ToolExecutor

        executor = ToolExecutor(registry, metrics=True)
    app = server if server is not None else MCPToolServer(registry, executor=executor)
    try:
        if transport == "stdio":
            asyncio.run(_until_signalled(serve_stdio(app)))
        else:
            http = serve_http(
                app, host=host, port=port, token=token, allowed_hosts=allowed_hosts,
                limits=limits, catalog=catalog,
            )  # fmt: skip
            asyncio.run(_until_signalled(http))
    finally:
        if server is None:
            app.close()
        if executor is not None:
            executor.close()


async def serve_stdio(server: MCPToolServer) -> None:
    """Serve over this process's stdin and stdout until stdin closes or the task is cancelled.

    A client that goes away (broken pipe) ends the server quietly.
    """
    stdin = await _stdin_lines()
    try:
        async with (
            stdout_lines() as stdout,
            server.announcing_changes(),
            stdio_server(stdin=stdin, stdout=stdout) as (read, write),  # type: ignore[arg-type]
        ):
            await server.lowlevel.run(read, write, server.initialization_options())
    except* (BrokenPipeError, ConnectionResetError):
        pass


class _StdinLines:
    """Lines of stdin read by the event loop itself, without a blocked worker thread.

    The SDK reads stdin on a worker thread, which cannot be interrupted: a
    SIGTERM would then wait for the client's next line. Reading through the
    loop makes cancellation, and so shutdown, immediate.
    """

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _StdinLines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


async def _stdin_lines() -> Any:
    """Stdin as async lines read by the loop, or ``None`` (the SDK's reader) for anything else.

    Only pipes, sockets and terminals can be watched by the loop; a regular file or a device
    such as ``/dev/null`` cannot (epoll refuses it), so the SDK's threaded reader takes those.
    """
    mode = os.fstat(0).st_mode
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(0)):
        return None
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
    try:
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(0, "rb", closefd=False)
        )
    except (ValueError, OSError):  # a regular file: the SDK's threaded reader handles it
        return None
    return _StdinLines(reader)


async def _until_signalled(main: Coroutine[Any, Any, None]) -> None:
    """Run ``main``; SIGINT or SIGTERM cancels it, and the cancellation ends quietly.

    Only the first signal cancels: a second one (Ctrl+C pressed twice, or a signal sent both
    to a process group and forwarded by a parent) would interrupt the graceful shutdown, which
    is bounded anyway. Once a signal has arrived, both stay ignored after this returns, so the
    process can finish exiting; if none arrived, the previous handlers are put back.

    The handlers are ``signal.signal`` ones, not the loop's: removing a loop handler resets the
    signal to its default first, and a late SIGTERM in that gap killed the exiting process.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(main)
    stopping = False

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        if not stopping:
            stopping = True
            task.cancel()
            loop.call_soon_threadsafe(lambda: None)  # wake the loop to run the cancellation

    with _signals_wake(loop):
        previous = {sig: signal.signal(sig, on_signal) for sig in STOP_SIGNALS}
        for sig in STOP_SIGNALS:
            signal.siginterrupt(sig, False)  # restart interrupted system calls, as asyncio does
        try:
            await task
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
        finally:
            # One call per signal, so the default (terminate) is never in force in between.
            for sig, handler in previous.items():
                restored = signal.SIG_DFL if handler is None else handler  # None: not from Python
                signal.signal(sig, signal.SIG_IGN if stopping else restored)


@contextlib.contextmanager
def _signals_wake(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Wake ``loop`` on every signal, even one caught by another thread while it waits.

    Python runs signal handlers on the main thread between bytecodes: without a wakeup
    descriptor an idle loop would not run them until its next event.
    """
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    loop.add_reader(reader.fileno(), _drain, reader)
    previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        loop.remove_reader(reader.fileno())
        reader.close()
        writer.close()


def _drain(sock: socket.socket) -> None:
    with contextlib.suppress(BlockingIOError):
        while sock.recv(4096):
            pass


def __getattr__(name: str) -> Any:
    """`serve_http`, imported on first use: serving over stdio needs none of the HTTP stack."""
    if name == "serve_http":
        from forge.mcp._serve_http import serve_http

        return serve_http
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
