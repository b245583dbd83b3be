"""What a desktop client or IDE waits for each session: an MCP server started over stdio, up to
the answer to its first ``tools/list``.

Each round starts a fresh process and times, from just before it is spawned, the
``initialize`` exchange, the ``initialized`` notification and the first ``tools/list``
answer (JSON-RPC lines on the pipes, read here without any SDK). The cases alternate
round by round: ``forge-tools serve`` with its ten bundled tools; the `mcp` SDK's own
`MCPServer` serving ten equivalent tools (`_serve_peer.py`); and, for reference, a bare
interpreter importing that SDK server, up to a line it prints then (not its exit), and one
importing it and then the libraries our bundled tools need (PyYAML for their configuration
file, jsonschema-rs to check its schemas, docstring-parser for the Python tools' docstrings).

Usage: ``python bench/bench_serve_start.py`` (about 1 minute).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import TIMES, Row, print_tables, render_rows

HERE = Path(__file__).resolve().parent
ROUNDS = 15
OURS = "**ours** `forge-tools serve` (stdio, the ten bundled tools)"
PEER = "mcp `MCPServer` over stdio, ten equivalent tools"
IMPORT = "a fresh interpreter importing `mcp.server.mcpserver` (info)"
LIBRARIES = "yaml, jsonschema_rs, docstring_parser"
WITH_LIBRARIES = (
    "of which importing PyYAML, jsonschema-rs and docstring-parser, which reading the bundled "
    "tools needs (info)"
)
TO_PEER = 1.0
ADDED_MS = 50.0

COMMANDS = {
    OURS: [sys.executable, "-m", "forge.cli", "serve"],
    PEER: [sys.executable, str(HERE / "_serve_peer.py")],
}
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "bench", "version": "1"}},
}  # fmt: skip
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def _send(pipe: IO[bytes], message: dict[str, Any]) -> None:
    pipe.write(json.dumps(message).encode() + b"\n")
    pipe.flush()


def _answer(pipe: IO[bytes], wanted: int) -> dict[str, Any]:
    while line := pipe.readline():
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == wanted:
            return message
    raise RuntimeError("the server closed its output before answering")


def _first_listing(command: list[str]) -> tuple[float, int]:
    """Seconds from spawning ``command`` to its first ``tools/list`` answer, and the tool count."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, cwd=HERE.parent)  # fmt: skip
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        _send(process.stdin, INITIALIZE)
        _answer(process.stdout, 1)
        _send(process.stdin, INITIALIZED)
        _send(process.stdin, LIST)
        listing = _answer(process.stdout, 2)
        elapsed = time.perf_counter() - started
    finally:
        process.stdin.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return elapsed, len(listing["result"]["tools"])


def _import_only(modules: str = "mcp.server.mcpserver") -> float:
    """Seconds until a fresh interpreter has imported ``modules`` (not its exit)."""
    started = time.perf_counter()
    code = f"import {modules}; print('ready', flush=True)"
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                               cwd=HERE.parent)  # fmt: skip
    assert process.stdout is not None
    process.stdout.readline()
    elapsed = time.perf_counter() - started
    process.wait()
    return elapsed


def run() -> list[str]:
    """Measure and return the Markdown table."""
    samples: dict[str, list[float]] = {OURS: [], PEER: [], IMPORT: [], WITH_LIBRARIES: []}
    status: dict[str, str] = {}
    for label, command in COMMANDS.items():  # warm the file cache; check the listing
        try:
            _, count = _first_listing(command)
        except Exception as exc:
            status[label] = f"error: {type(exc).__name__}: {exc}"[:120]
        else:
            if count != 10:
                status[label] = f"error: {count} tools listed"
    for _ in range(ROUNDS):
        for label, command in COMMANDS.items():
            if label not in status:
                samples[label].append(_first_listing(command)[0])
        samples[IMPORT].append(_import_only())
        samples[WITH_LIBRARIES].append(_import_only(f"mcp.server.mcpserver, {LIBRARIES}"))
    ms = {k: statistics.median(v) * 1e3 for k, v in samples.items() if v}
    peer = ms.get(PEER)
    rows = [Row(PEER, status=status[PEER], baseline=PEER) if PEER in status else
            Row(PEER, peer, "ms", 1.0, PEER)]  # fmt: skip
    if OURS in status:
        rows.append(Row(OURS, status=status[OURS], baseline=PEER))
    else:
        ours = ms[OURS]
        ratio = ours / peer if peer else None
        passed = None if ratio is None else ratio <= TO_PEER
        rows.append(Row(OURS, ours, "ms", ratio, PEER, f"≤ {TO_PEER}{TIMES}", passed))
        added = ours - ms[IMPORT]
        rows.append(Row("**ours** beyond importing the SDK server", added, "ms", None, IMPORT,
                        f"< {ADDED_MS:.0f} ms", added < ADDED_MS))  # fmt: skip
        libraries = ms[WITH_LIBRARIES] - ms[IMPORT]
        rows.append(Row(WITH_LIBRARIES, libraries, "ms", None, IMPORT))
    rows.append(Row(IMPORT, ms[IMPORT], "ms", None, ""))
    title = f"Starting an MCP server over stdio, up to its first tools/list (median of {ROUNDS})"
    return [render_rows(title, rows)]


def main() -> None:
    """Print the table."""
    print_tables(run())


if __name__ == "__main__":
    main()
