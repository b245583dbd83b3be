"""What the gateway adds to a call: ``tools/call`` through ``forge-tools serve --servers``.

The upstream is the `mcp` SDK's own `MCPServer` serving the tools of `bench_mcp.py`
(``_mcp_servers.py``), so the direct figure does not move when forge-tools' server code
does. The official ``mcp`` client calls its ``add`` three ways in the same process run:
directly; through a gateway (``forge-tools serve --servers FILE``) that imports it as
``up__add``; and through a gateway with ``--search-only`` (the call goes through the
session's `DeferredSession`, after one search revealed the tool). Over stdio each server is a
child process of its client (each gateway starts its own copy of the upstream); over
streamable HTTP both gateways reach the one upstream process the direct client calls.

Calls are sequential (one in flight), in batches interleaved round-robin across the three
targets. Per target: the latency (the fastest batch's time per call), the CPU time per call
of every process involved (this client, the gateway, the upstream; the median batch's),
which background load on a shared machine disturbs far less than wall time, and the CPU
time per call of the gateway's own process.

Usage: ``python bench/bench_gateway.py`` (about 60 s; Linux, for ``/proc``).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import render_table
from bench_mcp import cpu_seconds, free_port, start, stop

BENCH = Path(__file__).resolve().parent
FORGE = str(Path(sys.executable).with_name("forge-tools"))
PEER = [sys.executable, str(BENCH / "_mcp_servers.py")]
ROUNDS = 10
BATCH = 100
ARGS = {"a": 1, "b": 2}
TARGETS = ("direct", "gateway", "search-only")


def _env() -> dict[str, str]:
    """This environment with the benchmark tools importable (and no token: loopback only)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(BENCH), env.get("PYTHONPATH")) if p)
    env.pop("FORGE_TOOLS_TOKEN", None)
    return env


def _start_gateway(servers: str, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    """``forge-tools serve --servers`` over HTTP on a free port; the process and its URL."""
    port = free_port()
    process = subprocess.Popen(
        [FORGE, "serve", "--servers", servers, "--transport", "http", "--port", str(port),
         "--no-catalog", *extra],
        env=_env(), stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return process, f"http://127.0.0.1:{port}/mcp"


def _servers_file(folder: Path, name: str, entry: dict[str, Any]) -> str:
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"mcpServers": {"up": entry}}))
    return str(path)


@asynccontextmanager
async def _targets(transport: str, folder: Path) -> AsyncIterator[dict[str, Any]]:
    """The three MCP targets for ``transport``, each with a way to find its gateway's pid."""
    from mcp import StdioServerParameters

    processes: list[subprocess.Popen[bytes]] = []
    try:
        if transport == "stdio":
            entry = {"command": PEER[0], "args": [*PEER[1:], "stdio"]}
            plain = _servers_file(folder, "plain", entry)
            searching = _servers_file(folder, "searching", entry)

            def stdio(command: list[str]) -> Any:
                return StdioServerParameters(command=command[0], args=command[1:], env=_env())

            yield {
                "direct": (stdio([*PEER, "stdio"]), None),
                "gateway": (stdio([FORGE, "serve", "--servers", plain]), plain),
                "search-only": (
                    stdio([FORGE, "serve", "--servers", searching, "--search-only"]),
                    searching,
                ),
            }
            return
        upstream, url = start("sdk")
        processes.append(upstream)
        servers = _servers_file(folder, "http", {"url": url})
        gateway, gateway_url = _start_gateway(servers)
        searching_gateway, searching_url = _start_gateway(servers, "--search-only")
        processes += [gateway, searching_gateway]
        yield {
            "direct": (url, None),
            "gateway": (gateway_url, gateway.pid),
            "search-only": (searching_url, searching_gateway.pid),
        }
    finally:
        for process in processes:
            stop(process)


def _pid_running(marker: str | int | None) -> int | None:
    """The gateway's pid: given, or the process under this one whose command names ``marker``."""
    if marker is None or isinstance(marker, int):
        return marker
    with os.scandir("/proc") as entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                command = Path(f"/proc/{entry.name}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if marker.encode() in command and b"--servers" in command:
                return int(entry.name)
    return None


async def _connect(client: Any, name: str) -> None:
    """Wait until ``client`` can list ``name`` (a gateway connects to its upstream first)."""
    async with asyncio.timeout(60):
        while True:
            try:
                listed = {t.name for t in (await client.list_tools()).tools}
            except Exception:  # an HTTP gateway still starting
                listed = set()
            if name in listed:
                return
            await asyncio.sleep(0.1)


async def _open(stack: AsyncExitStack, target: Any) -> Any:
    """A connected official client (an HTTP server may still be starting: retry a while)."""
    from mcp import Client

    for _ in range(200):
        try:
            return await stack.enter_async_context(Client(target, mode="legacy"))
        except Exception:
            if not isinstance(target, str):
                raise
            await asyncio.sleep(0.1)
    raise RuntimeError(f"cannot connect to {target}")


def _sum_of(result: Any) -> Any:
    """The number a ``tools/call`` of ``add`` answered."""
    if result.is_error:
        raise RuntimeError(f"the call failed: {result.content}")
    data = result.structured_content
    return data.get("result") if isinstance(data, dict) else data


async def measure(transport: str) -> dict[str, tuple[float, float, float | None]]:
    """Per target: ms per call (latency), CPU ms per call (all processes; the gateway's)."""
    with tempfile.TemporaryDirectory() as folder:
        async with _targets(transport, Path(folder)) as targets, AsyncExitStack() as stack:
            clients = {name: await _open(stack, target) for name, (target, _) in targets.items()}
            await _connect(clients["direct"], "add")
            await _connect(clients["gateway"], "up__add")
            await _connect(clients["search-only"], "search_tools")
            found = await clients["search-only"].call_tool("search_tools", {"query": "add"})
            if "up__add" not in json.dumps(found.structured_content):
                raise RuntimeError(f"the search did not reveal up__add: {found.content}")
            names = {"direct": "add", "gateway": "up__add", "search-only": "up__add"}
            cases: dict[str, Callable[[], Awaitable[Any]]] = {
                target: partial(clients[target].call_tool, names[target], ARGS)
                for target in TARGETS
            }
            for name, case in cases.items():
                answer = _sum_of(await case())
                if answer != 3:
                    raise RuntimeError(f"{name} answered {answer!r}, not 3")
            pids = {name: _pid_running(marker) for name, (_, marker) in targets.items()}
            return await _interleaved(cases, pids)


async def _interleaved(
    cases: dict[str, Callable[[], Awaitable[Any]]], pids: dict[str, int | None]
) -> dict[str, tuple[float, float, float | None]]:
    walls: dict[str, list[float]] = {name: [] for name in cases}
    cpus: dict[str, list[float]] = {name: [] for name in cases}
    owns: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(ROUNDS):
        for name, case in cases.items():
            pid = pids[name]
            own = cpu_seconds(pid) if pid else None
            cpu, begun = _tree_cpu(), time.perf_counter()
            for _ in range(BATCH):
                await case()
            walls[name].append((time.perf_counter() - begun) / BATCH * 1000)
            cpus[name].append((_tree_cpu() - cpu) / BATCH * 1000)
            after = cpu_seconds(pid) if pid else None
            if own is not None and after is not None:
                owns[name].append((after - own) / BATCH * 1000)
    return {
        name: (min(walls[name]), statistics.median(cpus[name]),
               statistics.median(owns[name]) if owns[name] else None)
        for name in cases
    }  # fmt: skip


def _tree_cpu() -> float:
    """CPU seconds (user + system) of this process and every process under it, so far."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    with os.scandir("/proc") as entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry.name}/stat").read_text()
            except OSError:  # gone meanwhile
                continue
            fields = stat.rsplit(")", 1)[1].split()
            parents[int(entry.name)] = int(fields[1])
            ticks[int(entry.name)] = int(fields[11]) + int(fields[12])
    mine, total, frontier = {os.getpid()}, 0, [os.getpid()]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in mine:
                mine.add(pid)
                frontier.append(pid)
                total += ticks[pid]
    return time.process_time() + total / os.sysconf("SC_CLK_TCK")


def table(results: dict[str, dict[str, tuple[float, float, float | None]]]) -> str:
    """The Markdown table of `measure`'s results per transport."""
    rows = []
    for transport, found in results.items():
        for column, label in ((0, "latency"), (1, "CPU, all processes")):
            ms = {name: (latency, cpu)[column] for name, (latency, cpu, _) in found.items()}
            direct = ms["direct"] or float("nan")
            rows.append([
                transport, label, f"{ms['direct']:.2f}", f"{ms['gateway']:.2f}",
                f"{ms['gateway'] / direct:.2f}x", f"{ms['search-only']:.2f}",
                f"{ms['search-only'] / direct:.2f}x",
            ])  # fmt: skip
        own = [found[name][2] for name in ("gateway", "search-only")]
        rows.append(
            [
                transport,
                "CPU, the gateway's process",
                "",
                *([f"{own[0]:.2f}", "", f"{own[1]:.2f}", ""] if None not in own else ["n/a"] * 4),
            ]
        )
    header = ["transport", "ms per call", "direct", "gateway", "gateway / direct",
              "search-only", "search-only / direct"]  # fmt: skip
    return "#### Gateway: one call through it vs. the upstream directly\n\n" + render_table(
        header, rows
    )


def run() -> Iterator[str]:
    """Run the gateway benchmark, yielding its Markdown table."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        yield "#### Gateway\n\nThe `mcp` SDK is not installed (`pip install -e '.[bench]'`)."
        return
    results = {transport: asyncio.run(measure(transport)) for transport in ("stdio", "http")}
    yield table(results)


def main() -> None:
    """Print the gateway table."""
    import logging

    logging.disable(logging.INFO)
    for rendered in run():
        print(rendered, end="\n\n", flush=True)


if __name__ == "__main__":
    main()
