"""A stdio server's children: what it started goes when its connection ends, not only itself.

The server (``servers/pipe_holder_server.py``) starts a child that inherits its stdout
pipe, as wrapper scripts and ``npx`` do, then is killed: the child must not outlive the
connection, whether the client is closed or the gateway restarts the server.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_harness import server_env, wait_for

from forge.gateway.config import parse_servers
from forge.gateway.gateway import Gateway
from forge.mcp import import_tools
from forge.tools import ToolRegistry

pytestmark = pytest.mark.slow  # real MCP server subprocesses

SERVER = str(Path(__file__).parent / "servers" / "pipe_holder_server.py")


def ended(pid: int) -> bool:
    """Whether a process has ended (a zombie waiting for its new parent counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in {"Z", "X"}


def started(pidfile: Path) -> list[tuple[int, int]]:
    """The ``(server, child)`` pids of each server started so far."""
    if not pidfile.exists():
        return []
    return [
        (int(a), int(b))
        for a, b in (line.split() for line in pidfile.read_text().split("\n") if line)
    ]


@pytest.fixture
def pidfile(tmp_path: Path) -> Iterator[Path]:
    """Where the servers write their pids; any process still running is killed in teardown."""
    path = tmp_path / "pids"
    yield path
    for pair in started(path):
        for pid in pair:
            if not ended(pid):
                os.kill(pid, signal.SIGKILL)


def test_closing_the_client_ends_the_child_of_a_killed_stdio_server(pidfile: Path) -> None:
    """The server is killed while its child holds the pipe; close() still ends the child."""
    env = {"PYTHONPATH": server_env()["PYTHONPATH"]}
    client = import_tools(ToolRegistry(), [sys.executable, SERVER, str(pidfile)], env=env)
    [(server, child)] = started(pidfile)
    os.kill(server, signal.SIGKILL)
    client.close()
    assert wait_for(lambda: ended(child), 15)


def test_a_restarted_stdio_server_leaves_no_child_of_the_old_one(pidfile: Path) -> None:
    """The gateway notices the killed server, starts a new one and ends the old one's child."""
    document = {
        "mcpServers": {
            "held": {
                "command": sys.executable,
                "args": [SERVER, str(pidfile)],
                "env": {"PYTHONPATH": server_env()["PYTHONPATH"]},
            }
        },
        "forge": {"probe_interval": 0.2, "reconnect": {"first": 0.1, "cap": 0.5}},
    }
    with Gateway(parse_servers(document, {})) as gateway:
        upstream = gateway.upstreams["held"]
        assert upstream.state == "up"
        [(server, first_child)] = started(pidfile)
        os.kill(server, signal.SIGKILL)
        assert wait_for(lambda: upstream.connects == 2 and upstream.state == "up", 60)
        assert wait_for(lambda: ended(first_child), 15)
        second_child = started(pidfile)[-1][1]
        assert not ended(second_child)
    assert wait_for(lambda: ended(second_child), 15)
