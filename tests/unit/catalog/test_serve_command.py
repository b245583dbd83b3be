"""``forge-tools serve --transport http`` serves and announces the catalog (as ``make run``)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow
FORGE_TOOLS = str(Path(sys.executable).with_name("forge-tools"))
CATALOG_RE = re.compile(r"catalog at (http://\S+/)")
MCP_RE = re.compile(r"listening on (http://\S+)/mcp")


class Command:
    """``forge-tools serve --transport http --port 0`` with the example tools."""

    def __init__(self, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if k != "FORGE_TOOLS_TOKEN"}
        self.process = subprocess.Popen(
            [FORGE_TOOLS, "serve", "--transport", "http", "--port", "0", *args],
            env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        assert self.process.stderr is not None
        self.lines = [self.process.stderr.readline()]
        found = MCP_RE.search(self.lines[0])
        if found is None:
            self.stop()
            raise RuntimeError("the server did not start: " + "".join(self.lines))
        self.root = found.group(1)

    def stop(self) -> int:
        """SIGTERM, and the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        if self.process.stderr is not None:
            self.lines.append(self.process.stderr.read())
            self.process.stderr.close()
        return self.process.returncode


@pytest.fixture
def command() -> Iterator[Command]:
    """The command with the catalog and metrics on; stopped in teardown."""
    running = Command("--metrics")
    yield running
    assert running.stop() == 0


def test_the_command_announces_and_serves_the_catalog(command: Command) -> None:
    """The second line names the catalog's URL; it lists the example tools and counts calls."""
    assert command.process.stderr is not None
    found = CATALOG_RE.search(command.process.stderr.readline())
    assert found is not None
    assert found.group(1) == command.root + "/"
    with httpx.Client(base_url=command.root, timeout=30) as client:
        assert client.get("/").status_code == 200
        names = [t["name"] for t in client.get("/api/tools").json()["tools"]]
        assert "word_count" in names
        csrf = {"x-forge-csrf": client.get("/api/session").json()["csrf"]}
        run = client.post("/api/tools/word_count/run", json={"arguments": {"text": "a b"}},
                          headers=csrf)  # fmt: skip
        assert run.json()["ok"] is True
        metrics = client.get("/api/metrics").json()
        assert metrics["enabled"] is True
        assert metrics["tools"]["word_count"]["calls"] == 1


def test_no_catalog_serves_only_mcp() -> None:
    """``--no-catalog``: no page (and the stop below shows nothing more was announced)."""
    running = Command("--no-catalog")
    try:
        with httpx.Client(base_url=running.root, timeout=30) as client:
            assert client.get("/").status_code == 404
    finally:
        assert running.stop() == 0
    assert not any(CATALOG_RE.search(line) for line in running.lines)
