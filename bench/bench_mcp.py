"""MCP server load: concurrent ``tools/call`` requests over streamable HTTP.

Our server (``forge-tools serve --transport http``) and the `mcp` SDK's own `MCPServer`
serve the same two tools, each in its own process on 127.0.0.1. Several client sessions
(the official `mcp` client) send ``CALLS`` concurrent ``tools/call`` requests between them;
every answer is checked, and a wrong or missing answer is counted as lost. Rounds
alternate between the servers and the best round of each is reported.

Run directly (``python bench/bench_mcp.py``) or through ``bench/run_all.py``.
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from _harness import TIMES, render_table

BENCH = Path(__file__).resolve().parent
CALLS = 500
SESSIONS = 10
ROUNDS = 3
TOOLS = ("add", "io_add")
NOT_INSTALLED = "not installed"


@dataclass
class Round:
    """One burst of concurrent calls against one server."""

    seconds: float
    correct: int
    lost: int
    latencies_ms: list[float]
    server_cpu_s: float | None = None


def free_port() -> int:
    """A port of 127.0.0.1 that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(name: str) -> tuple[subprocess.Popen[bytes], str]:
    """Start one server process and return it with its MCP URL once it answers."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(BENCH)}
    env.pop("FORGE_TOOLS_TOKEN", None)
    if name == "forge-tools":
        forge = str(Path(sys.executable).with_name("forge-tools"))
        argv = [forge, "serve", "--transport", "http", "--port", str(port),
                "--tools", "_mcp_servers:registry"]  # fmt: skip
    else:
        argv = [sys.executable, str(BENCH / "_mcp_servers.py"), str(port)]
    process = subprocess.Popen(argv, env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mcp"
    for _ in range(200):  # up to ~20 s for the interpreter and the server to start
        if process.poll() is not None:
            raise RuntimeError(f"{name} server exited with code {process.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1)
        except urllib.error.HTTPError:
            return process, url  # any HTTP answer means it is listening
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{name} server did not start")


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux ``/proc``; ``None`` elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a server process (killing it if it does not stop)."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


async def burst(url: str, tool: str) -> Round:
    """``CALLS`` concurrent calls of ``tool`` spread over ``SESSIONS`` client sessions."""
    from contextlib import AsyncExitStack

    from mcp import Client

    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(Client(url)) for _ in range(SESSIONS)]
        for client in clients:
            await client.list_tools()
        latencies: list[float] = []

        async def one(i: int) -> bool:
            began = time.perf_counter()
            try:
                result = await clients[i % SESSIONS].call_tool(tool, {"a": i, "b": 1})
            except Exception:
                return False
            latencies.append((time.perf_counter() - began) * 1000)
            texts = [getattr(c, "text", None) for c in result.content]
            return not result.is_error and texts == [str(i + 1)]

        began = time.perf_counter()
        outcomes = await asyncio.gather(*(one(i) for i in range(CALLS)))
        seconds = time.perf_counter() - began
    correct = sum(outcomes)
    return Round(seconds, correct, CALLS - correct, latencies)


def measure() -> dict[tuple[str, str], list[Round] | str]:
    """Every round per (server, tool), rounds interleaved between the servers."""
    servers: dict[str, tuple[subprocess.Popen[bytes], str] | str] = {}
    for name in ("forge-tools", "mcp MCPServer"):
        try:
            servers[name] = start(name)
        except (RuntimeError, OSError) as exc:
            servers[name] = f"did not start ({exc})"
    rounds: dict[tuple[str, str], list[Round] | str] = {}
    try:
        for tool in TOOLS:
            for _ in range(ROUNDS):
                for name, server in servers.items():
                    if isinstance(server, str):
                        rounds[name, tool] = server
                        continue
                    before = cpu_seconds(server[0].pid)
                    done = asyncio.run(burst(server[1], tool))
                    after = cpu_seconds(server[0].pid)
                    if before is not None and after is not None:
                        done.server_cpu_s = after - before
                    kept = rounds.setdefault((name, tool), [])
                    assert isinstance(kept, list)
                    kept.append(done)
    finally:
        for server in servers.values():
            if not isinstance(server, str):
                stop(server[0])
    return rounds


@dataclass
class Summary:
    """What the table shows for one (server, tool): the fastest round, the least CPU, all losses."""

    fastest: Round
    cpu_per_call_s: float | None
    lost: int

    @classmethod
    def of(cls, rounds: list[Round]) -> Summary:
        """Summarise the rounds: a call lost in any round counts."""
        cpus = [r.server_cpu_s for r in rounds if r.server_cpu_s is not None]
        return cls(
            fastest=min(rounds, key=lambda r: r.seconds),
            cpu_per_call_s=min(cpus) / CALLS if cpus else None,
            lost=sum(r.lost for r in rounds),
        )


def table(rounds: dict[tuple[str, str], list[Round] | str]) -> str:
    """Render throughput, latency, server CPU and losses, with ratios to the SDK server."""
    header = ["Tool", "Server", "Calls/s", "p50 ms", "p95 ms", "Server CPU/call",
              "Answers correct", "Lost", "vs MCPServer"]  # fmt: skip
    body: list[list[str]] = []
    for tool in TOOLS:
        got_peer = rounds.get(("mcp MCPServer", tool))
        peer = Summary.of(got_peer) if isinstance(got_peer, list) else None
        for name in ("forge-tools", "mcp MCPServer"):
            got = rounds.get((name, tool), NOT_INSTALLED)
            if isinstance(got, str):
                body.append([tool, name, got, "", "", "", "", "", ""])
                continue
            summary = Summary.of(got)
            fastest = summary.fastest
            cpu = summary.cpu_per_call_s
            ratio = ""
            if peer is not None and name == "forge-tools":
                ratio = f"{peer.fastest.seconds / fastest.seconds:.2f}{TIMES} calls/s"
                if peer.cpu_per_call_s and cpu:
                    ratio += f", {cpu / peer.cpu_per_call_s:.2f}{TIMES} CPU"
            correct = sum(r.correct for r in got)
            body.append([
                tool, name, f"{CALLS / fastest.seconds:,.0f}", *_percentiles(fastest),
                "n/a" if cpu is None else f"{cpu * 1e6:,.0f} µs",
                f"{correct}/{CALLS * len(got)}", str(summary.lost), ratio,
            ])  # fmt: skip
    title = (
        f"#### MCP server: {CALLS} concurrent tools/call over streamable HTTP from "
        f"{SESSIONS} client sessions, {ROUNDS} rounds per server and tool"
    )
    return f"{title}\n\n{render_table(header, body)}"


def _percentiles(got: Round) -> list[str]:
    if len(got.latencies_ms) < 2:
        return ["n/a", "n/a"]
    cuts = statistics.quantiles(got.latencies_ms, n=20)
    return [f"{statistics.median(got.latencies_ms):.0f}", f"{cuts[18]:.0f}"]


def run() -> Iterator[str]:
    """Run the MCP load benchmark, yielding its Markdown table."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        yield "#### MCP server\n\nThe `mcp` SDK is not installed (`pip install -e '.[bench]'`)."
        return
    yield table(measure())


def main() -> None:
    """Print the MCP load table."""
    for rendered in run():
        print(rendered, end="\n\n", flush=True)


if __name__ == "__main__":
    main()
