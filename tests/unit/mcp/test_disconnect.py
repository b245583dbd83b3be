"""A client that goes away mid-call cancels the call; one that resumes its stream does not."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp_harness import FORGE_TOOLS, server_env, wait_for
from thread_server import ThreadServer
from waiting_tools import registry as waiting_registry

from forge.mcp import HttpLimits

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
VERSION = "2025-11-25"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": VERSION, "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}}  # fmt: skip
CLIENT = """
import asyncio, sys
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

async def main():
    async with Client(streamable_http_client(sys.argv[1]), mode=sys.argv[2]) as client:
        print("connected", flush=True)
        await client.call_tool("wait", {"seconds": 60})

asyncio.run(main())
"""


@pytest.fixture
def marks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file the waiting tool writes started / cancelled / finished to."""
    path = tmp_path / "marks"
    path.touch()
    monkeypatch.setenv("FORGE_TEST_MARKS", str(path))
    return path


@pytest.fixture(scope="module")
def server() -> Iterator[ThreadServer]:
    """One in-process server of the waiting tools, with a short grace after a disconnect."""
    running = ThreadServer(waiting_registry, limits=HttpLimits(disconnect_grace=0.5))
    yield running
    running.stop()


def said(path: Path) -> list[str]:
    """The marks written so far."""
    return path.read_text().split()


def open_session(http: httpx.Client, url: str) -> dict[str, str]:
    """Initialize; the headers of the new session."""
    opened = http.post(url, json=INIT, headers=HEADERS)
    session = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": VERSION}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    http.post(url, json=initialized, headers={**HEADERS, **session})
    return session


def call(ident: int, seconds: float) -> dict[str, object]:
    """A tools/call of the waiting tool."""
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
            "params": {"name": "wait", "arguments": {"seconds": seconds}}}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_client_killed_mid_call_cancels_its_call(
    server: ThreadServer, marks: Path, mode: str
) -> None:
    """The official client's process dies during a call: the tool sees the cancellation.

    ``legacy`` (a 2025-11-25 session) is the case the SDK left running; ``auto`` (2026-07-28,
    one request per call) was cancelled by the SDK already.
    """
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT, server.url, mode], stdout=subprocess.PIPE, text=True
    )
    try:
        assert client.stdout is not None
        assert client.stdout.readline().strip() == "connected"
        assert wait_for(lambda: said(marks) == ["started"])
        client.send_signal(signal.SIGKILL)
        client.wait(30)
        assert wait_for(lambda: said(marks) == ["started", "cancelled"])
    finally:
        if client.poll() is None:
            client.kill()
        client.wait(30)
        if client.stdout is not None:
            client.stdout.close()


@pytest.mark.slow
def test_deleting_the_session_cancels_its_running_call(server: ThreadServer, marks: Path) -> None:
    """DELETE of the session while a call runs cancels the call."""
    with httpx.Client(timeout=30) as http:
        session = open_session(http, server.url)
        body = json.dumps(call(2, 60))
        headers = {**HEADERS, **session}
        streaming = threading.Thread(
            target=lambda: httpx.post(server.url, content=body, headers=headers, timeout=30),
            daemon=True,
        )
        streaming.start()
        assert wait_for(lambda: said(marks) == ["started"])
        assert http.delete(server.url, headers=session).status_code == 200
        assert wait_for(lambda: said(marks) == ["started", "cancelled"])
        streaming.join(30)


@pytest.mark.slow
def test_a_stream_resumed_in_time_keeps_its_call(server: ThreadServer, marks: Path) -> None:
    """A dropped call stream resumed with Last-Event-ID gets the answer; nothing is cancelled."""
    with httpx.Client(timeout=30) as http:
        session = open_session(http, server.url)
        headers = {**HEADERS, **session}
        with http.stream("POST", server.url, json=call(3, 1.5), headers=headers) as r:
            priming = next(line for line in r.iter_lines() if line.startswith("id:"))
        resume = {**session, "Accept": "text/event-stream", "Last-Event-ID": priming[3:].strip()}
        with http.stream("GET", server.url, headers=resume) as replay:
            answer = next(line for line in replay.iter_lines() if line.startswith("data: {"))
    assert json.loads(answer[6:])["result"]["content"][0]["text"] == "waited"
    assert said(marks) == ["started", "finished"]


@pytest.mark.slow
def test_closing_stdin_cancels_the_running_call(marks: Path) -> None:
    """Over stdio, a client that closes the server's stdin mid-call cancels the call."""
    env = server_env(FORGE_TEST_MARKS=str(marks))
    process = subprocess.Popen(
        [FORGE_TOOLS, "serve", "--tools", "waiting_tools:registry"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        for message in (INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                        call(2, 60)):  # fmt: skip
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
        assert wait_for(lambda: said(marks) == ["started"])
        process.stdin.close()
        assert process.wait(30) == 0
        assert said(marks) == ["started", "cancelled"]
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(30)
        process.stdout.close()


def test_the_marks_file_is_per_test(marks: Path) -> None:
    """Each test starts with no marks (the waiting tool appends to a fresh file)."""
    assert said(marks) == []
    assert os.environ["FORGE_TEST_MARKS"] == str(marks)
