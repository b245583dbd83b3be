"""The gateway's engine per server and per tool, search-only sessions, and clean shutdown.

One in-process `Gateway` over two real server processes: the test tools of this suite
(``forge-tools serve``) with allow/deny rules and a per-tool timeout, and
``mcp-server-time``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp_harness import FORGE_TOOLS, TOOLS_SPEC, HttpServer, Relay, server_env, wait_for
from real_servers import time_server

from forge.gateway._upstream import Upstream
from forge.gateway.config import parse_servers
from forge.gateway.gateway import Gateway
from forge.mcp.search_only import SearchOnlyServer
from forge.tools import ErrorKind

pytestmark = pytest.mark.slow  # real MCP server subprocesses


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def gateway() -> Iterator[Gateway]:
    """The gateway, started; closed in teardown."""
    time_cmd = time_server()
    document = {
        "mcpServers": {
            "ours": {
                "command": FORGE_TOOLS,
                "args": ["serve", "--tools", TOOLS_SPEC],
                "env": {"PYTHONPATH": server_env()["PYTHONPATH"]},
                "forge": {
                    "timeout": 20,
                    "allow": ["add", "slow", "pid", "fails", "register_echo", "echo_*"],
                    "deny": ["fails"],
                    "tools": {"slow": {"timeout": 0.3}},
                },
            },
            "clock": {"command": time_cmd[0], "args": time_cmd[1:]},
        },
        "forge": {"probe_interval": 1},
    }
    with Gateway(parse_servers(document, os.environ)) as started:
        yield started


def _run(gateway: Gateway, name: str, arguments: dict[str, Any]) -> Any:
    return asyncio.run(gateway.run(name, arguments))


def test_rules_of_a_server_hide_and_deny_its_tools(gateway: Gateway) -> None:
    """Only allowed tools are served; a denied one is neither listed nor callable."""
    served = set(gateway.view.names())
    assert {"ours__add", "ours__slow", "ours__pid", "clock__get_current_time"} <= served
    assert "ours__fails" not in served  # allowed, but denied
    assert "ours__hang" not in served  # not allowed
    assert "ours__hang" in gateway.registry  # imported all the same
    assert _run(gateway, "ours__hang", {}).error_kind is ErrorKind.UNKNOWN_TOOL


def test_timeouts_apply_per_server_and_per_tool(gateway: Gateway) -> None:
    """The tool's own timeout (0.3 s) cuts a slow call; the server's is 20 s; the clock's 30 s."""
    assert gateway.view.get_or_raise("ours__slow").timeout == 0.3
    assert gateway.view.get_or_raise("ours__add").timeout == 20
    assert gateway.view.get_or_raise("clock__get_current_time").timeout == 30
    slow = _run(gateway, "ours__slow", {"seconds": 5})
    assert slow.error_kind is ErrorKind.TIMEOUT


def test_metrics_are_kept_per_tool_and_summed_per_server(gateway: Gateway) -> None:
    """Calls through the gateway are counted by the executor's metrics."""
    before = gateway.server_metrics()
    assert _run(gateway, "ours__add", {"a": 2, "b": 3}).output == 5
    assert _run(gateway, "clock__get_current_time", {"timezone": "UTC"}).success
    after = gateway.server_metrics()
    assert after["ours"]["successes"] == before["ours"]["successes"] + 1
    assert after["clock"]["calls"] == before["clock"]["calls"] + 1
    assert gateway.metrics.snapshot()["ours__add"].successes >= 1


def test_a_server_s_own_list_changed_refreshes_its_tools(gateway: Gateway) -> None:
    """A tool the server registers while running appears under its prefix."""
    assert _run(gateway, "ours__register_echo", {"name": "echo_one"}).success
    assert wait_for(lambda: "ours__echo_one" in gateway.view)
    assert _run(gateway, "ours__echo_one", {"text": "hi"}).output == "hi"


async def _session_names(client: Client) -> set[str]:
    return {t.name for t in (await client.list_tools(cache_mode="refresh")).tools}


def test_search_only_reveals_tools_per_session(gateway: Gateway) -> None:
    """Each session sees search_tools; what one reveals joins its list only, with list_changed."""
    server = SearchOnlyServer(gateway.view, executor=gateway.executor, search_limit=3)
    told: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            told.append("a")

    async def body() -> None:
        async with (
            server.announcing_changes(),
            Client(server.lowlevel, mode="legacy", message_handler=on_message) as a,
            Client(server.lowlevel, mode="legacy") as b,
        ):
            assert await _session_names(a) == {"search_tools"}
            early = await a.call_tool("clock__get_current_time", {"timezone": "UTC"})
            assert early.is_error
            assert "call search_tools" in early.content[0].text  # type: ignore[union-attr]
            found = await a.call_tool("search_tools", {"query": "current time zone"})
            revealed = {r["name"] for r in json.loads(found.content[0].text)["tools"]}  # type: ignore[union-attr]
            assert "clock__get_current_time" in revealed
            async with asyncio.timeout(60):  # a safety net only
                while not told:
                    await asyncio.sleep(0.05)
            assert await _session_names(a) == {"search_tools", *revealed}
            assert await _session_names(b) == {"search_tools"}
            now = await a.call_tool("clock__get_current_time", {"timezone": "UTC"})
            assert not now.is_error
            assert "fails" not in str(revealed)  # denied tools are never revealed

    asyncio.run(body())
    server.close()


def test_search_options_group_by_server_and_pin_from_the_gateway_s_metrics(
    gateway: Gateway,
) -> None:
    """``siblings`` groups tools by their server; ``pin_used`` reads the gateway's metrics."""
    searching = dataclasses.replace(gateway.config, search_only=True,
                                    search={"siblings": 2, "pin_used": 1})  # fmt: skip
    other = Gateway(searching)
    options = other.search_options()
    assert options["groups"](gateway.view.get_or_raise("clock__get_current_time")) == "clock"
    assert options["groups"](gateway.view.get_or_raise("ours__add")) == "ours"
    assert options["usage"] is other.metrics
    assert _run(gateway, "clock__get_current_time", {"timezone": "UTC"}).success
    server = SearchOnlyServer(gateway.view, executor=gateway.executor, usage=gateway.metrics,
                              pin_used=1)  # fmt: skip
    assert server.session().pinned[0] in gateway.metrics.snapshot().tools
    other.close()
    server.close()


def test_closing_stops_stdio_servers(gateway: Gateway) -> None:
    """A second gateway's close stops its server processes (and withdraws their tools)."""
    config = parse_servers(
        {"mcpServers": {"ours": {
            "command": FORGE_TOOLS, "args": ["serve", "--tools", TOOLS_SPEC],
            "env": {"PYTHONPATH": server_env()["PYTHONPATH"]},
        }}},
        {},
    )  # fmt: skip
    other = Gateway(config).start()
    pid = _run(other, "ours__pid", {}).output
    assert _alive(pid)
    other.close()
    assert not other.view.names()
    assert wait_for(lambda: not _alive(pid))
    assert other.states() == {"ours": "stopped"}


def test_an_sse_server_is_reached_and_withdrawn_when_it_stops(tmp_path: Path) -> None:
    """``"type": "sse"``: an SDK server on the deprecated transport is imported and called."""
    script = str(Path(__file__).parents[1] / "mcp" / "servers" / "sdk_sse_server.py")
    process = subprocess.Popen(
        [sys.executable, script],
        env=server_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    port = process.stdout.readline().strip()  # bound by the server itself: no port to race for
    process.stdout.close()
    url = f"http://127.0.0.1:{port}/sse"
    document = {
        "mcpServers": {"old": {"type": "sse", "url": url, "headers": {"X-Trace": "1"}}},
        "forge": {"probe_interval": 0.5, "reconnect": {"first": 0.2, "cap": 1}},
    }
    try:
        with Gateway(parse_servers(document, {})) as gateway:
            assert wait_for(lambda: "old__shout" in gateway.view)
            assert _run(gateway, "old__shout", {"text": "hi"}).output == {"result": "HI"}
            process.terminate()
            process.wait(15)
            assert wait_for(lambda: "old__shout" not in gateway.view)
            assert gateway.states() == {"old": "down"}
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(15)


def test_a_server_that_never_starts_is_retried_and_its_calls_fail_fast() -> None:
    """A command that exits: the gateway keeps serving, and says why its tools are missing."""
    config = parse_servers(
        {"mcpServers": {"broken": {"command": "sh", "args": ["-c", "exit 3"]}}}, {}
    )
    with Gateway(config) as broken:
        upstream: Upstream = broken.upstreams["broken"]
        assert upstream.state == "down"
        assert wait_for(lambda: upstream.retry_at is not None)
        result = _run(broken, "broken__anything", {})
        assert result.error_kind is ErrorKind.TOOL_ERROR
        assert "MCP server 'broken' is not connected" in (result.error or "")
        assert "next attempt to reconnect" in (result.error or "")


def test_secrets_are_never_logged_or_shown(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Expanded env, header and argument values appear in no log line and no error."""
    secret = "sk-forge-" + "7" * 24
    monkeypatch.setenv("FORGE_TEST_SECRET", secret)
    # Bound but not listening, for the whole test: connections are refused, and no other
    # process can start listening on that port meanwhile.
    with socket.socket() as closed_socket:
        closed_socket.bind(("127.0.0.1", 0))
        closed = closed_socket.getsockname()[1]
        document = {
            "mcpServers": {
                "cmd": {
                    "command": "sh",
                    "args": ["-c", "exit 3", "${FORGE_TEST_SECRET}"],
                    "env": {"API_KEY": "${FORGE_TEST_SECRET}"},
                },
                "api": {
                    "url": f"http://127.0.0.1:{closed}/mcp",
                    "headers": {"Authorization": "Bearer ${FORGE_TEST_SECRET}"},
                },
            }
        }
        with (
            caplog.at_level(logging.DEBUG),
            Gateway(parse_servers(document, os.environ)) as failing,
        ):
            shown = [
                _run(failing, "cmd__x", {}).error or "",
                _run(failing, "api__x", {}).error or "",
                *(u.error or "" for u in failing.upstreams.values()),
            ]
    assert all("not connected" in text for text in shown[:2])
    assert secret not in caplog.text
    assert not [text for text in shown if secret in text]


def test_an_http_server_that_starts_late_stops_and_restarts(
    start_http: Callable[..., HttpServer], relay: Relay, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Down at start, up later (with its token header), gone when stopped, back when restarted.

    The servers sit behind a relay: the gateway's URL stays the same without the restarted
    server binding a port it let go (which another process may have taken meanwhile).
    """
    token = "gateway-test-token-0123456789"
    monkeypatch.setenv("FORGE_TEST_TOKEN", token)
    document = {
        "mcpServers": {
            "web": {
                "url": relay.url,
                "headers": {"Authorization": "Bearer ${FORGE_TEST_TOKEN}"},
            }
        },
        "forge": {"probe_interval": 0.5, "reconnect": {"first": 0.2, "cap": 1}},
    }
    serve_args = ("--tools", TOOLS_SPEC)
    with Gateway(parse_servers(document, os.environ)) as late:
        assert late.states() == {"web": "down"}
        server = start_http(*serve_args, token=token)
        relay.forward_to(server.port)
        assert wait_for(lambda: "web__add" in late.view)
        assert _run(late, "web__add", {"a": 1, "b": 2}).output == 3
        server.stop()
        assert wait_for(lambda: "web__add" not in late.view)
        assert "not connected" in (_run(late, "web__add", {"a": 1, "b": 2}).error or "")
        relay.forward_to(start_http(*serve_args, token=token).port)
        assert wait_for(lambda: "web__add" in late.view)
        assert _run(late, "web__add", {"a": 2, "b": 2}).output == 4
        assert late.upstreams["web"].connects == 2
