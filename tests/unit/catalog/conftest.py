"""The catalog tests' tools (nested arguments, destructive, denied, failing) and servers."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pydantic import BaseModel, Field

from forge.catalog import Catalog
from forge.mcp import HttpLimits, MCPToolServer
from forge.mcp.serve import serve_http
from forge.tools import RuleBasedPolicy, Tool, ToolExecutor, ToolRegistry, tool


class Line(BaseModel):
    """One line of an order."""

    sku: str = Field(description="The product code.")
    qty: int = Field(ge=1, description="How many.")


class Address(BaseModel):
    """Where an order goes."""

    city: str = Field(description="The city.")
    zip: str = Field(pattern=r"^[0-9]{5}$", description="A five-digit postal code.")


@tool(category="utility", tags=["text", "demo"], annotations={"readOnlyHint": True},
      version="1.2.0", usage_notes="Say anything.", limitations=["Short texts only"])  # fmt: skip
def echo(text: str) -> str:
    """Repeat a text back.

    Useful to check the server answers.
    """
    return text


@tool(category="task", tags=["orders"])
def place_order(lines: list[Line], ship_to: Address, note: str | None = None) -> dict[str, int]:
    """Place an order of several lines."""
    return {"lines": len(lines), "items": sum(line.qty for line in lines)}


@tool(category="database", tags=["admin"], annotations={"destructiveHint": True})
def wipe(table: str) -> str:
    """Delete every row of a table."""
    return f"wiped {table}"


@tool(category="execution", tags=["admin"])
def forbidden(command: str) -> str:
    """Run a shell command (the policy denies it)."""
    return command


@tool(category="utility", annotations={"readOnlyHint": True})
def explode() -> str:
    """Always fails."""
    raise RuntimeError("the tool broke on purpose")


TOOLS: tuple[Tool, ...] = (echo, place_order, wipe, forbidden, explode)


def catalog_registry() -> ToolRegistry:
    """A new registry of `TOOLS`."""
    return ToolRegistry(TOOLS)


def catalog_executor(registry: ToolRegistry) -> ToolExecutor:
    """An executor with metrics on and a policy denying ``forbidden``."""
    return ToolExecutor(registry, metrics=True, permissions=RuleBasedPolicy(deny=["forbidden"]))


@pytest.fixture
def registry() -> ToolRegistry:
    """A new registry of the test tools."""
    return catalog_registry()


@pytest.fixture
def catalog(registry: ToolRegistry) -> Iterator[Catalog]:
    """A catalog over `registry` with metrics on and ``forbidden`` denied."""
    executor = catalog_executor(registry)
    shelf = Catalog(registry, executor=executor)
    yield shelf
    shelf.close()
    executor.close()


class Served:
    """`serve_http` with the catalog, on 127.0.0.1 in a thread of its own, until `stop`."""

    def __init__(
        self, *, token: str | None = None, catalog: bool = True, limits: HttpLimits | None = None
    ) -> None:
        self.registry = catalog_registry()
        self.executor = catalog_executor(self.registry)
        self.server = MCPToolServer(self.registry, executor=self.executor)
        self.token = token
        self.limits = limits
        self._loop = asyncio.new_event_loop()
        self._task: asyncio.Task[None] | None = None
        self._ready = threading.Event()
        self.port = 0
        self._thread = threading.Thread(target=self._run, args=(catalog,), daemon=True)
        self._thread.start()
        if not self._ready.wait(60):  # a safety net for a loaded machine
            self.stop()
            raise RuntimeError("the catalog server did not start within 60 s")

    @property
    def url(self) -> str:
        """The server's root URL (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    def headers(self) -> dict[str, str]:
        """The bearer header, when the server has a token."""
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def client(self, **options: Any) -> httpx.Client:
        """An HTTP client for the server, sending the token unless told otherwise."""
        options.setdefault("headers", self.headers())
        return httpx.Client(base_url=self.url, timeout=30, **options)

    def _run(self, catalog: bool) -> None:
        asyncio.set_event_loop(self._loop)

        def started(host: str, port: int) -> None:
            self.port = port
            self._ready.set()

        async def main() -> None:
            self._task = asyncio.current_task()
            await serve_http(self.server, host="127.0.0.1", port=0, token=self.token,
                             on_started=started, catalog=catalog, limits=self.limits)  # fmt: skip

        try:
            with contextlib.suppress(asyncio.CancelledError):
                self._loop.run_until_complete(main())
        finally:  # also when serving failed: a loop left open warns when it is collected
            asyncio.set_event_loop(None)
            self._loop.close()

    def stop(self) -> None:
        """Cancel the server (as SIGINT would) and wait for it to end."""
        if self._task is not None:
            self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(30)
        self.server.close()
        self.executor.close()
