"""A real uvicorn `serve_http` server on 127.0.0.1, run on its own thread and event loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from forge.mcp import HttpLimits, MCPToolServer
from forge.mcp.serve import serve_http
from forge.tools import ToolExecutor, ToolRegistry


class ThreadServer:
    """`serve_http` for ``registry`` on a free port of ``host``; `stop` ends it.

    ``metrics`` gives the server an executor that keeps per-tool metrics.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        host: str = "127.0.0.1",
        token: str | None = None,
        allowed_hosts: Sequence[str] = (),
        limits: HttpLimits | None = None,
        metrics: bool = False,
    ) -> None:
        self.registry = registry
        self.metrics = metrics
        self.options: dict[str, Any] = {
            "host": host, "token": token, "allowed_hosts": allowed_hosts, "limits": limits,
        }  # fmt: skip
        self.port = 0
        self._started = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._thread = threading.Thread(target=asyncio.run, args=(self._main(),), daemon=True)
        self._thread.start()
        if not self._started.wait(30):
            raise RuntimeError("the in-process server did not start")

    @property
    def url(self) -> str:
        """The MCP endpoint."""
        host = self.options["host"]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.port}/mcp"

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()  # type: ignore[assignment]
        executor = ToolExecutor(self.registry, metrics=True) if self.metrics else None
        server = MCPToolServer(self.registry, executor=executor)
        try:
            await serve_http(server, port=0, on_started=self._on_started, **self.options)
        except asyncio.CancelledError:
            pass
        finally:
            server.close()
            if executor is not None:
                executor.close()

    def _on_started(self, host: str, port: int) -> None:
        self.port = port
        self._started.set()

    def stop(self) -> None:
        """Cancel the server and wait for its thread."""
        if self._loop is not None and self._task is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(30)
