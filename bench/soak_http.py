"""Soak of the MCP HTTP server against hostile clients: slow sockets and an initialize flood.

``forge-tools serve --transport http`` runs in its own process, token-protected, with the
default file-descriptor limit of a Linux system (soft ``RLIMIT_NOFILE`` 1,024). Then:

1. **Slow sockets.** This process opens ``--slow-sockets`` connections (default 1,000), each
   sending half a request and stalling. While they stall, an authenticated client (the
   official `mcp` client, with the 2025-11-25 handshake that opens a session) runs
   ``initialize`` + ``tools/call`` a few times; its worst time is reported next to the same
   client's time on an idle server.
2. **Initialize flood.** One client (source address 127.0.0.2) sends ``--initializes``
   ``initialize`` requests (default 10,000); a second client (127.0.0.1) then runs
   ``initialize`` + ``tools/call``. Refusals (503), the server's RSS and file descriptors
   are reported.

This process raises its own soft ``RLIMIT_NOFILE`` to the hard limit to hold the sockets.
``--check`` exits 1 if the authenticated client failed or was refused (the test suite runs a
small version so); ``--budget-s`` also fails a worst time above it. ``--src`` serves the code
of another checkout (``--src ../main/src``) for a before/after comparison.

Run: ``python bench/soak_http.py`` (about a minute).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import resource
import secrets
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

BENCH = Path(__file__).resolve().parent
SERVER_NOFILE = 1024
PARTIAL = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: applic"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "flood", "version": "0"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
CLIENT_TIMEOUT_S = 20.0


@dataclass
class Report:
    """What one soak saw."""

    lines: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def add(self, line: str) -> None:
        """Record and print one result line."""
        self.lines.append(line)
        print(line, flush=True)


def raise_nofile() -> int:
    """Raise this process's soft descriptor limit to its hard limit; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def limit_server(pid: int) -> None:
    """Give the server the soft descriptor limit of a default Linux system (Linux only)."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    soft = SERVER_NOFILE if hard == resource.RLIM_INFINITY else min(SERVER_NOFILE, hard)
    with contextlib.suppress(AttributeError, OSError):  # no prlimit: the inherited limit
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (soft, hard))


@contextlib.contextmanager
def server(token: str, src: str | None) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A token-protected ``forge-tools serve`` process on a free port, and its URL."""
    env = {**os.environ, "FORGE_TOOLS_TOKEN": token}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, str(BENCH), env.get("PYTHONPATH")) if p)
    argv = [sys.executable, "-m", "forge.cli", "serve", "--transport", "http", "--port", "0",
            "--tools", "_mcp_servers:registry"]  # fmt: skip
    process = subprocess.Popen(
        argv, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    limit_server(process.pid)  # before it has imported anything, let alone listened
    try:
        assert process.stderr is not None
        found = re.search(r"(http://\S+/mcp)", process.stderr.readline())
        if found is None:
            raise RuntimeError("the server did not start")
        yield process, found.group(1)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
        if process.stderr is not None:
            process.stderr.close()


def rss_mb(pid: int) -> float:
    """The resident memory of a process in MB (Linux ``/proc``; 0 elsewhere)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def open_fds(pid: int) -> int:
    """How many descriptors a process holds (Linux ``/proc``; -1 elsewhere)."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


async def authenticated_call(url: str, token: str) -> float:
    """``initialize`` + ``tools/call`` with the official client; seconds taken (raises if not)."""
    started = time.perf_counter()
    auth = {"Authorization": f"Bearer {token}"}
    async with (
        create_mcp_http_client(headers=auth) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        result = await client.call_tool("add", {"a": 1, "b": 2})
        if result.is_error or result.structured_content != {"result": 3}:
            raise RuntimeError(f"wrong answer: {result}")
    return time.perf_counter() - started


async def timed_calls(url: str, token: str, times: int, report: Report, label: str) -> float:
    """Run the authenticated client ``times`` times; its worst time (inf if it ever failed)."""
    seconds = []
    for _ in range(times):
        try:
            seconds.append(await asyncio.wait_for(authenticated_call(url, token), CLIENT_TIMEOUT_S))
        except Exception as exc:
            report.failures.append(f"{label}: the authenticated client failed: {exc!r}")
            report.add(f"- {label}: the authenticated client FAILED ({type(exc).__name__})")
            return float("inf")
    worst = max(seconds)
    report.add(
        f"- {label}: initialize + tools/call, median {statistics.median(seconds) * 1000:.0f} ms,"
        f" worst {worst * 1000:.0f} ms over {times}"
    )
    return worst


def closed_count(socks: list[socket.socket]) -> int:
    """How many of ``socks`` the server has closed."""
    closed = 0
    for sock in socks:
        sock.setblocking(False)
        try:
            while sock.recv(4096):
                pass
            closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    return closed


async def slow_sockets(url: str, token: str, count: int, pid: int, report: Report) -> float:
    """Phase 1: ``count`` stalled half-requests, then the authenticated client."""
    port = int(url.rsplit(":", 1)[1].removesuffix("/mcp"))
    report.add(f"### {count} slow sockets (half a request each, then silence)")
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(PARTIAL)
            socks.append(sock)
        await asyncio.sleep(0.5)  # let the server accept them all
        worst = await timed_calls(url, token, 5, report, "under the slow sockets")
        report.add(
            f"- server closed {closed_count(socks)} of {count} slow sockets at once; it holds "
            f"{open_fds(pid)} descriptors (soft limit {SERVER_NOFILE}), RSS {rss_mb(pid):.0f} MB"
        )
    finally:
        for sock in socks:
            sock.close()
    return worst


async def flood(url: str, token: str, count: int, pid: int, report: Report) -> float:
    """Phase 2: ``count`` initializes from 127.0.0.2, then a second client from 127.0.0.1."""
    report.add(f"### {count} initialize requests from one client (127.0.0.2)")
    before = rss_mb(pid)
    statuses: dict[int, int] = {}
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
    headers = {**HEADERS, "Authorization": f"Bearer {token}"}
    started = time.perf_counter()
    async with httpx.AsyncClient(transport=transport, timeout=CLIENT_TIMEOUT_S) as http:
        queue = iter(range(count))

        async def worker() -> None:
            for _ in queue:
                try:
                    status = (await http.post(url, json=INIT, headers=headers)).status_code
                except httpx.HTTPError:
                    status = 0
                statuses[status] = statuses.get(status, 0) + 1

        await asyncio.gather(*(worker() for _ in range(16)))
    seconds = time.perf_counter() - started
    shown = ", ".join(f"{n} x {status or 'error'}" for status, n in sorted(statuses.items()))
    report.add(f"- flood answered in {seconds:.1f} s: {shown}")
    report.add(f"- server RSS {before:.0f} MB before, {rss_mb(pid):.0f} MB after")
    return await timed_calls(url, token, 5, report, "a second client after the flood")


async def soak(args: argparse.Namespace) -> Report:
    """Both phases against one server; a report."""
    report = Report()
    token = secrets.token_urlsafe(24)
    report.add(f"bench process soft RLIMIT_NOFILE raised to {raise_nofile()}")
    with server(token, args.src) as (process, url):
        await authenticated_call(url, token)  # warm-up: imports and first-call caches
        idle = await timed_calls(url, token, 5, report, "idle server")
        worst = await slow_sockets(url, token, args.slow_sockets, process.pid, report)
        await asyncio.sleep(0.5)
        worst = max(worst, await flood(url, token, args.initializes, process.pid, report))
    if worst != float("inf"):
        report.add(f"- worst authenticated time {worst * 1000:.0f} ms ({worst / idle:.1f}x idle)")
    if args.budget_s is not None and worst > args.budget_s:
        report.failures.append(f"worst authenticated time {worst:.2f} s > {args.budget_s} s")
    return report


def main() -> int:
    """Run the soak; with ``--check``, exit 1 on any failure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow-sockets", type=int, default=1000)
    parser.add_argument("--initializes", type=int, default=10_000)
    parser.add_argument("--check", action="store_true", help="exit 1 if the client failed")
    parser.add_argument("--budget-s", type=float, default=None, help="fail a slower worst time")
    parser.add_argument("--src", default=None, help="serve the package found in this directory")
    args = parser.parse_args()
    report = asyncio.run(soak(args))
    for failure in report.failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if args.check and report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
