"""Acceptance: three real MCP servers behind one ``forge-tools serve --servers``, stdio and HTTP.

The gateway runs ``mcp-server-time``, ``mcp-server-git`` and ``mcp-server-fetch`` (the PyPI
servers of the real-servers matrix) and is driven by the official ``mcp`` client. The time
server is started through a small shell line that refuses to start while a flag file
exists and writes its process id: the test kills it, sees its tools withdrawn (with
``notifications/tools/list_changed``) while the others keep working, then lifts the flag
and sees the gateway bring it back.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp_harness import FORGE_TOOLS, HttpServer, server_env
from real_servers import fetch_server, git_repository, git_server, time_server

pytestmark = pytest.mark.slow  # real MCP server subprocesses

TIME_TOOLS = {"time__get_current_time", "time__convert_time"}
PAGE = "<html><body><h1>Hello through the gateway</h1></body></html>"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Keep test output quiet."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A page on 127.0.0.1 for mcp-server-fetch; returns its URL."""
    root = tmp_path_factory.mktemp("site")
    (root / "page.html").write_text(PAGE)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/page.html"
    server.shutdown()
    server.server_close()


class Setup:
    """A servers file for one gateway, with the time server's flag and pid files."""

    def __init__(self, work: Path) -> None:
        self.repo = git_repository(work / "repo")
        self.flag = work / "time-down"
        self.pidfile = work / "time.pid"
        time_line = shlex.join(time_server())
        guarded = (
            f"test -e {shlex.quote(str(self.flag))} && exit 1; "
            f"echo $$ > {shlex.quote(str(self.pidfile))}; exec {time_line}"
        )
        git, fetch = git_server(self.repo), fetch_server()
        document = {
            "mcpServers": {
                "time": {"command": "sh", "args": ["-c", guarded]},
                "git": {"command": git[0], "args": git[1:]},
                "fetch": {"command": fetch[0], "args": fetch[1:], "env": {"HOME": "${HOME}"}},
                "off": {"command": "does-not-exist", "disabled": True},
            },
            "forge": {"probe_interval": 0.5, "reconnect": {"first": 0.2, "cap": 1}},
        }
        self.path = work / "servers.json"
        self.path.write_text(json.dumps(document))

    def time_pid(self) -> int:
        """The running time server's process id."""
        return int(self.pidfile.read_text().strip())


class Watched:
    """An official client with every ``tools/list_changed`` it received counted."""

    def __init__(self) -> None:
        self.changes = 0
        self.changed = asyncio.Event()
        self.client: Client | None = None

    async def on_message(self, message: Any) -> None:
        """Count list changes."""
        if isinstance(message, types.ToolListChangedNotification):
            self.changes += 1
            self.changed.set()

    async def names(self) -> set[str]:
        """The tool names the gateway lists now."""
        assert self.client is not None
        return {t.name for t in (await self.client.list_tools(cache_mode="refresh")).tools}

    async def wait_until(self, check: Callable[[set[str]], bool], seconds: float = 60) -> set[str]:
        """Relist after each change notification until ``check`` holds for the names."""
        async with asyncio.timeout(seconds):
            while True:
                self.changed.clear()
                names = await self.names()
                if check(names):
                    return names
                await self.changed.wait()

    async def notified_since(self, count: int, seconds: float = 30) -> None:
        """Wait for a list_changed after the first ``count``.

        Over HTTP the notification travels on the session's own SSE stream, apart from the
        responses, so a relist can show the change before the notification arrives.
        """
        async with asyncio.timeout(seconds):
            while self.changes <= count:
                self.changed.clear()
                await self.changed.wait()

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call a tool through the gateway."""
        assert self.client is not None
        return await self.client.call_tool(name, arguments)


@asynccontextmanager
async def watched(target: Any) -> AsyncIterator[Watched]:
    """A handshake-era client (it receives list_changed directly) connected to ``target``."""
    watch = Watched()
    async with Client(target, mode="legacy", message_handler=watch.on_message) as client:
        watch.client = client
        yield watch


def _text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def _scenario(target: Any, setup: Setup, site: str) -> None:
    async with watched(target) as gateway:
        names = await gateway.wait_until(lambda n: n >= TIME_TOOLS)
        assert {"git__git_status", "fetch__fetch"} <= names
        assert not any(n.startswith("off__") for n in names)
        now = await gateway.call("time__get_current_time", {"timezone": "UTC"})
        assert not now.is_error
        assert json.loads(_text(now))["timezone"] == "UTC"
        status = await gateway.call("git__git_status", {"repo_path": str(setup.repo)})
        assert "notes.txt" in _text(status)
        page = await gateway.call("fetch__fetch", {"url": site, "raw": True})
        assert "Hello through the gateway" in _text(page)

        setup.flag.touch()  # the gateway's restarts fail until the flag is gone
        os.kill(setup.time_pid(), signal.SIGKILL)
        before = gateway.changes
        names = await gateway.wait_until(lambda n: not n & TIME_TOOLS)
        await gateway.notified_since(before)  # withdrawn with list_changed
        assert {"git__git_status", "fetch__fetch"} <= names
        down = await gateway.call("time__get_current_time", {"timezone": "UTC"})
        assert down.is_error
        assert "MCP server 'time' is not connected" in _text(down)
        status = await gateway.call("git__git_status", {"repo_path": str(setup.repo)})
        assert not status.is_error  # the others keep working
        assert "notes.txt" in _text(status)

        before = gateway.changes
        setup.flag.unlink()
        await gateway.wait_until(lambda n: n >= TIME_TOOLS)
        await gateway.notified_since(before)  # restored with list_changed
        back = await gateway.call("time__convert_time", {
            "source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo",
        })  # fmt: skip
        assert not back.is_error
        assert "Asia/Tokyo" in _text(back)


def test_three_servers_over_stdio(tmp_path: Path, site: str) -> None:
    """List, call through prefixes, kill one (withdrawn), others work, it comes back: stdio."""
    setup = Setup(tmp_path)
    params = StdioServerParameters(
        command=FORGE_TOOLS,
        args=["serve", "--servers", str(setup.path)],
        env={"PYTHONPATH": server_env()["PYTHONPATH"], "HOME": str(tmp_path)},
    )
    asyncio.run(_scenario(params, setup, site))


def test_three_servers_over_http(tmp_path: Path, site: str) -> None:
    """The same over streamable HTTP."""
    setup = Setup(tmp_path)
    server = HttpServer("--servers", str(setup.path))
    try:
        asyncio.run(_scenario(server.url, setup, site))
        # The web catalog beside /mcp shows the gateway's tools under their prefixes.
        base = server.url.removesuffix("/mcp")
        assert "text/html" in httpx.get(f"{base}/", timeout=10).headers["content-type"]
        names = {t["name"] for t in httpx.get(f"{base}/api/tools", timeout=10).json()["tools"]}
        assert {"fetch__fetch", "git__git_status", "time__convert_time"} <= names
    finally:
        assert server.stop() == 0


def test_search_only_over_stdio(tmp_path: Path) -> None:
    """--search-only with session options: a pin, a search with siblings, list_changed, a call."""
    setup = Setup(tmp_path)
    git = git_server(setup.repo)  # one server is enough here: a smaller, faster gateway
    setup.path.write_text(json.dumps({"mcpServers": {"git": {"command": git[0], "args": git[1:]}}}))
    params = StdioServerParameters(
        command=FORGE_TOOLS,
        args=["serve", "--servers", str(setup.path), "--search-only", "--pin", "git__git_log",
              "--search-limit", "3", "--siblings", "2", "--max-tokens", "8000"],
        env={"PYTHONPATH": server_env()["PYTHONPATH"], "HOME": str(tmp_path)},
    )  # fmt: skip

    async def body() -> None:
        async with watched(params) as gateway:
            assert await gateway.names() == {"search_tools", "git__git_log"}
            before = gateway.changes
            found = await gateway.call("search_tools", {"query": "git status of a repository"})
            revealed = {row["name"] for row in json.loads(_text(found))["tools"]}
            assert "git__git_status" in revealed
            assert 3 < len(revealed) <= 5  # three matches, two more of their server's tools
            names = await gateway.wait_until(lambda n: "git__git_status" in n)
            assert gateway.changes > before
            assert names == {"search_tools", "git__git_log", *revealed}
            status = await gateway.call("git__git_status", {"repo_path": str(setup.repo)})
            assert "notes.txt" in _text(status)

    asyncio.run(body())


def test_search_only_sessions_over_http(tmp_path: Path) -> None:
    """Over HTTP each session has its own reveals; a crashed server's tools leave the sessions.

    Session A searches: only A is told and lists the tools; B neither lists nor may call
    them. The time server is killed: A is told and its list loses the time tool; back up,
    the tool is found again by a search.
    """
    setup = Setup(tmp_path)
    document = json.loads(setup.path.read_text())
    del document["mcpServers"]["fetch"]
    document["forge"]["search_only"] = True
    setup.path.write_text(json.dumps(document))
    server = HttpServer("--servers", str(setup.path))

    async def body() -> None:
        async with watched(server.url) as a, watched(server.url) as b:
            assert await a.names() == {"search_tools"}
            found = await a.call("search_tools", {"query": "current time in a timezone"})
            revealed = {row["name"] for row in json.loads(_text(found))["tools"]}
            assert "time__get_current_time" in revealed
            names = await a.wait_until(lambda n: "time__get_current_time" in n)
            assert names == {"search_tools", *revealed}
            now = await a.call("time__get_current_time", {"timezone": "UTC"})
            assert json.loads(_text(now))["timezone"] == "UTC"
            assert await b.names() == {"search_tools"}
            refused = await b.call("time__get_current_time", {"timezone": "UTC"})
            assert refused.is_error
            assert "call search_tools" in _text(refused)
            assert b.changes == 0

            setup.flag.touch()
            os.kill(setup.time_pid(), signal.SIGKILL)
            names = await a.wait_until(lambda n: not n & TIME_TOOLS)
            assert names == {"search_tools", *(revealed - TIME_TOOLS)}
            setup.flag.unlink()
            async with asyncio.timeout(60):  # back: found again by a search, not before
                while "time__get_current_time" not in await _search(a, "current time"):
                    await asyncio.sleep(0.2)
            await a.wait_until(lambda n: "time__get_current_time" in n)
            assert await b.names() == {"search_tools"}
            assert b.changes == 0  # none of it concerned B

    try:
        asyncio.run(body())
    finally:
        assert server.stop() == 0


async def _search(gateway: Watched, query: str) -> set[str]:
    found = await gateway.call("search_tools", {"query": query})
    return {row["name"] for row in json.loads(_text(found))["tools"]}
