"""Helpers for the MCP tests: start `forge-tools serve` subprocesses and stop them."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
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
        self.port = int(self.url.rsplit(":", 1)[1].split("/")[0])

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


def wait_for(condition: Callable[[], bool], seconds: float = 60) -> bool:
    """Poll ``condition`` until it holds or ``seconds`` have passed; its last answer.

    The deadline is a safety net, generous for a loaded machine: a condition that holds
    ends the wait at once.
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


class Relay:
    """A TCP relay from a port of 127.0.0.1 that stays the same to a server that may change.

    A server "restarted on the same address" without binding a port twice (which another
    process may take in between): the relay listens on port 0 for its whole life and
    forwards each connection to the port of the current ``backend``. With no backend, or
    one that refuses, a connection is closed at once (a server that is down). `hold`
    keeps new connections waiting, unanswered, until `release`.
    """

    def __init__(self, backend: int | None = None) -> None:
        self.backend = backend
        self.held = 0
        """How many connections wait now (while holding)."""
        self._holding = False
        self._changed = threading.Condition()
        self._open: set[socket.socket] = set()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        threading.Thread(target=self._accept, daemon=True).start()

    def forward_to(self, backend: int | None) -> None:
        """Send new connections to port ``backend`` (``None``: close them)."""
        with self._changed:
            self.backend = backend

    def hold(self) -> None:
        """Keep new connections waiting, accepted but not forwarded."""
        with self._changed:
            self._holding = True

    def release(self) -> None:
        """Forward the waiting connections, and new ones again."""
        with self._changed:
            self._holding = False
            self._changed.notify_all()

    def cut(self) -> None:
        """Close every connection open now (the server stays where it is)."""
        with self._changed:
            for sock in list(self._open):
                self._close(sock)

    def close(self) -> None:
        """Stop listening and close every connection."""
        with self._changed:
            self._listener.close()
            self._holding = False
            self._changed.notify_all()
            for sock in list(self._open):
                self._close(sock)

    def _accept(self) -> None:
        with contextlib.suppress(OSError):  # closed by `close`
            while True:
                conn, _ = self._listener.accept()
                with self._changed:
                    self._open.add(conn)
                threading.Thread(target=self._connect, args=(conn,), daemon=True).start()

    def _connect(self, conn: socket.socket) -> None:
        with self._changed:
            waits = self._holding
            self.held += waits
            while self._holding:
                self._changed.wait()
            self.held -= waits
            backend = self.backend if self._listener.fileno() != -1 else None
        try:
            if backend is None:
                raise ConnectionRefusedError
            upstream = socket.create_connection(("127.0.0.1", backend))
        except OSError:
            self._close(conn)
            return
        with self._changed:
            self._open.add(upstream)
        threading.Thread(target=self._pump, args=(upstream, conn), daemon=True).start()
        self._pump(conn, upstream)

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        """Copy until either side ends; then close both (an HTTP peer never half-closes)."""
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        self._close(source)
        self._close(sink)

    def _close(self, sock: socket.socket) -> None:
        with self._changed:
            self._open.discard(sock)
        sock.close()
