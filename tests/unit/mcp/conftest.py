"""Fixtures that start real `forge-tools serve` subprocesses and connect the official client."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters

SERVERS = Path(__file__).parent / "servers"
FORGE_TOOLS = str(Path(sys.executable).with_name("forge-tools"))
TOOLS_SPEC = "forge_test_tools:registry"
URL_RE = re.compile(r"(http://\S+/mcp)")


def server_env(**extra: str) -> dict[str, str]:
    """The environment for a server subprocess: ours, plus the test tools on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SERVERS), env.get("PYTHONPATH", "")]).strip(os.pathsep)
    env.pop("FORGE_TOOLS_TOKEN", None)
    env.update(extra)
    return env


class HttpServer:
    """A `forge-tools serve --transport http` subprocess on a free port of 127.0.0.1."""

    def __init__(self, *args: str, token: str | None = None) -> None:
        extra = {"FORGE_TOOLS_TOKEN": token} if token else {}
        self.process = subprocess.Popen(
            [FORGE_TOOLS, "serve", "--transport", "http", "--port", "0", *args],
            env=server_env(**extra),
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        self.url = self._read_url()

    def _read_url(self) -> str:
        assert self.process.stderr is not None
        lines = []
        for _ in range(50):  # the URL is the first line; a crash prints a few more
            line = self.process.stderr.readline()
            if not line:
                break
            lines.append(line)
            found = URL_RE.search(line)
            if found:
                return found.group(1)
        self.stop()
        raise RuntimeError("the server did not start:\n" + "".join(lines))

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Signal the server and return its exit code (killing it if it does not stop)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        if self.process.stderr is not None:
            self.process.stderr.close()
        return self.process.returncode


@pytest.fixture(scope="module")
def http_server() -> Iterator[HttpServer]:
    """One HTTP server for the module's tests, stopped in teardown."""
    server = HttpServer("--tools", TOOLS_SPEC)
    yield server
    server.stop()


@pytest.fixture
def start_http() -> Iterator[Callable[..., HttpServer]]:
    """Start extra HTTP servers inside one test; all are stopped in teardown."""
    started: list[HttpServer] = []

    def start(*args: str, token: str | None = None) -> HttpServer:
        server = HttpServer(*args, token=token)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def stdio_params(*args: str) -> StdioServerParameters:
    """Parameters that make the official client spawn `forge-tools serve` over stdio."""
    return StdioServerParameters(
        command=FORGE_TOOLS,
        args=["serve", "--tools", TOOLS_SPEC, *args],
        env={"PYTHONPATH": str(SERVERS)},
    )


@pytest.fixture
def target(request: pytest.FixtureRequest, http_server: HttpServer) -> Any:
    """What `mcp.Client` connects to for the ``transport`` parameter of the test."""
    return stdio_params() if request.param == "stdio" else http_server.url
