"""Helpers for the MCP tests: start `forge-tools serve` subprocesses and stop them."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from mcp import StdioServerParameters

SERVERS = Path(__file__).parent
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
        self.log: deque[str] = deque(maxlen=200)  # the last lines it wrote after its URL
        self._drainer = threading.Thread(target=self._drain, daemon=True)
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
                # Keep reading: a server whose stderr pipe fills up blocks on its next log line.
                self._drainer.start()
                return found.group(1)
        self.stop()
        raise RuntimeError("the server did not start:\n" + "".join(lines))

    def _drain(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        with contextlib.suppress(ValueError, OSError):  # closed by `stop`
            for line in stream:
                self.log.append(line)

    def output(self) -> str:
        """What the server wrote after its URL (the last 200 lines), once it has exited."""
        self.process.wait(timeout=15)
        self._drainer.join(timeout=15)
        return "".join(self.log)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Signal the server and return its exit code (killing it if it does not stop)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        if self._drainer.is_alive():
            self._drainer.join(timeout=15)
        if self.process.stderr is not None:
            self.process.stderr.close()
        return self.process.returncode


def stdio_params(*args: str) -> StdioServerParameters:
    """Parameters that make the official client spawn `forge-tools serve` over stdio."""
    return StdioServerParameters(
        command=FORGE_TOOLS,
        args=["serve", "--tools", TOOLS_SPEC, *args],
        env={"PYTHONPATH": server_env()["PYTHONPATH"]},  # the code under test, as for HTTP
    )


def wait_for(condition: Callable[[], bool], seconds: float = 30) -> bool:
    """Poll ``condition`` a bounded number of times; its last answer."""
    for _ in range(int(seconds * 20)):
        if condition():
            return True
        time.sleep(0.05)
    return condition()
