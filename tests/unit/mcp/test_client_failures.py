"""The MCP client against servers that hang, refuse, restart or vanish: clean failures, healing."""

from __future__ import annotations

import asyncio
import http.server
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp_harness import FORGE_TOOLS, TOOLS_SPEC, HttpServer, Relay, wait_for

from forge.mcp import MCPClient, MCPConnectionError, import_tools
from forge.tools import ErrorKind, ToolRegistry

pytestmark = pytest.mark.slow  # real MCP server subprocesses

OUR_SERVER = [FORGE_TOOLS, "serve", "--tools", TOOLS_SPEC]
HUNG = "import os, sys, time; open(sys.argv[1], 'a').write(f'{os.getpid()}\\n'); time.sleep(600)"


def alive(pid: int) -> bool:
    """Whether a process with this id exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_hung_stdio_server_fails_each_connect_and_leaves_nothing_running(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    """Three connects to a process that never answers: three errors, no thread, no process."""
    pids = tmp_path / "pids"
    before = set(threading.enumerate())
    for _ in range(3):
        with pytest.raises(MCPConnectionError, match=r"no answer within 0\.5 s"):
            import_tools(registry, [sys.executable, "-c", HUNG, str(pids)], connect_timeout=0.5)
    assert set(threading.enumerate()) - before == set()
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 3
    assert [p for p in started if alive(p)] == []
    assert registry.names() == []


def test_a_hung_http_server_fails_each_connect_and_leaves_no_thread(
    registry: ToolRegistry,
) -> None:
    """A port that accepts connections but never answers: errors after the timeout, no thread."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/mcp"
        before = set(threading.enumerate())
        for _ in range(3):
            with pytest.raises(MCPConnectionError, match=r"no answer within 0\.5 s"):
                import_tools(registry, url, connect_timeout=0.5)
        assert set(threading.enumerate()) - before == set()


def test_missing_or_wrong_credentials_say_401_and_what_to_set(
    registry: ToolRegistry, start_http: Callable[..., HttpServer]
) -> None:
    """No token: the error says 401 and names the token and headers options; a bad one: refused."""
    server = start_http("--tools", TOOLS_SPEC, token="s3cret")
    with pytest.raises(MCPConnectionError) as missing:
        import_tools(registry, server.url, connect_timeout=10)
    assert "HTTP 401 Unauthorized" in str(missing.value)
    assert "token=" in str(missing.value)
    assert "headers=" in str(missing.value)
    for options in ({"token": "wrong"}, {"headers": {"Authorization": "Bearer wrong"}}):
        with pytest.raises(MCPConnectionError, match=r"401 Unauthorized.*refused the credentials"):
            import_tools(registry, server.url, connect_timeout=10, **options)  # type: ignore[arg-type]
    client = import_tools(registry, server.url, headers={"Authorization": "Bearer s3cret"})
    try:
        assert registry.execute("add", {"a": 1, "b": 1}).output == 2
    finally:
        client.close()


class _NotMCP(http.server.BaseHTTPRequestHandler):
    """A web server that answers every request with an HTML page."""

    def _page(self) -> None:
        body = b"<html><body>Not here</body></html>"
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_DELETE = _page

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


def test_a_web_server_that_is_not_mcp_is_not_mistaken_for_refused_credentials(
    registry: ToolRegistry,
) -> None:
    """An HTML 404 page: the error says the URL is not an MCP endpoint, not 401/403."""
    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NotMCP)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    try:
        with pytest.raises(MCPConnectionError) as refused:
            import_tools(registry, f"http://127.0.0.1:{web.server_port}/", connect_timeout=10)
    finally:
        web.shutdown()
        web.server_close()
    assert "MCP endpoint" in str(refused.value)
    assert "401" not in str(refused.value)
    assert "credentials" not in str(refused.value)


def test_every_timeout_is_kind_timeout(
    registry: ToolRegistry, connect: Callable[..., MCPClient]
) -> None:
    """Calls the server never answers all time out with kind ``timeout``.

    Also when the caller's loop is busy as the deadline passes: the SDK's own read
    timeout used to win that race and turn the call into a ``tool_error``.
    """
    client = connect(OUR_SERVER, timeout=0.3)

    async def body() -> list[ErrorKind | None]:
        direct = await asyncio.gather(*(client.acall("hang", {}) for _ in range(30)))
        through = await registry.aexecute_all([{"name": "hang", "arguments": {}}] * 30)
        pending = [asyncio.ensure_future(client.acall("hang", {})) for _ in range(30)]
        await asyncio.sleep(0)  # every call is sent
        time.sleep(1)  # this loop is busy when the deadlines pass
        busy = await asyncio.gather(*pending)
        return [r.error_kind for r in [*direct, *through, *busy]]

    kinds = asyncio.run(body())
    assert kinds == [ErrorKind.TIMEOUT] * 90


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_client_reconnects_after_an_http_server_restarts(
    registry: ToolRegistry,
    connect: Callable[..., MCPClient],
    start_http: Callable[..., HttpServer],
    relay: Relay,
    mode: str,
) -> None:
    """A server restarted behind the same address is reached again; its tools work again."""
    first = start_http("--tools", TOOLS_SPEC)
    relay.forward_to(first.port)
    # Enough attempts to outlast a slow restart on a loaded machine (backoff tops out at 8 s).
    client = connect(relay.url, timeout=10, mode=mode, reconnect_attempts=12)
    assert registry.execute("add", {"a": 1, "b": 2}).output == 3
    first.stop()
    down = registry.execute("add", {"a": 1, "b": 2})
    assert down.success is False
    second = start_http("--tools", TOOLS_SPEC)
    relay.forward_to(second.port)
    back = wait_for(lambda: registry.execute("add", {"a": 1, "b": 2}).output == 3, seconds=90)
    assert back, "".join(list(second.log)[-20:])
    assert client.connected
    assert client.error is None
    assert "add" in registry


def test_a_call_while_reconnecting_leaves_the_new_connection_up(
    registry: ToolRegistry,
    connect: Callable[..., MCPClient],
    start_http: Callable[..., HttpServer],
    relay: Relay,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A call that finds no connection fails alone; the connection being made stays up.

    Such a call used to mark the connection under way as lost, so a caller that kept
    calling while the client reconnected (slowly, on a loaded machine) kept it down.
    """
    server = start_http("--tools", TOOLS_SPEC)
    relay.forward_to(server.port)
    client = connect(relay.url, timeout=10, reconnect_attempts=12)
    relay.forward_to(None)
    relay.cut()
    assert registry.execute("add", {"a": 1, "b": 2}).success is False  # the loss is seen
    relay.hold()
    relay.forward_to(server.port)
    assert wait_for(lambda: relay.held > 0)  # a reconnect is under way, waiting on the relay
    during = registry.execute("add", {"a": 1, "b": 2})
    assert "not connected" in (during.error or "")

    def reconnects() -> int:
        return sum("reconnected" in r.getMessage() for r in caplog.records)

    with caplog.at_level(logging.INFO, logger="forge.mcp.client"):
        relay.release()
        assert wait_for(lambda: reconnects() > 0)
        assert registry.execute("add", {"a": 1, "b": 2}).output == 3
        assert client.connected
        client.close()  # its thread has ended: every reconnect it made is logged
    assert reconnects() == 1


def test_a_server_that_stays_down_loses_only_its_own_tools(
    registry: ToolRegistry,
    connect: Callable[..., MCPClient],
    start_http: Callable[..., HttpServer],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Reconnecting fails: that server's tools are deregistered with a warning; others stay."""

    def local() -> str:
        """A local tool."""
        return "local"

    registry.register(local)
    connect(OUR_SERVER, prefix="other_", timeout=10)
    server = start_http("--tools", TOOLS_SPEC)
    client = connect(server.url, prefix="gone_", timeout=10, reconnect_attempts=2)
    with caplog.at_level(logging.WARNING, logger="forge.mcp.client"):
        server.stop()
        registry.execute_all([{"name": "gone_add", "arguments": {"a": 1, "b": 2}}])
        assert wait_for(lambda: not [n for n in registry.names() if n.startswith("gone_")])
    assert client.error is not None
    assert "is gone" in client.error
    assert "local" in registry
    assert registry.execute("other_add", {"a": 1, "b": 2}).output == 3
    assert any("deregistered" in r.getMessage() for r in caplog.records)
