"""`forge-tools serve`: security, shutdown, bad input and its building blocks."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_harness import FORGE_TOOLS, TOOLS_SPEC, HttpServer, server_env

from forge._cli.spec import ToolsSpecError, load_tools_spec
from forge.cli import main
from forge.mcp import InsecureBindError
from forge.mcp._http import is_loopback
from forge.mcp.command import run_serve
from forge.mcp.serve import check_bind, serve
from forge.tools import ToolRegistry

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
STOP = (signal.SIGINT, signal.SIGTERM)


def post(url: str, body: str, **headers: str) -> httpx.Response:
    """POST one raw body to the MCP endpoint."""
    return httpx.post(url, content=body, headers={**HEADERS, **headers}, timeout=20)


def add_over_http(url: str, token: str) -> str:
    """Call `add` with the official client, sending a bearer token."""

    async def body() -> str:
        auth = {"Authorization": f"Bearer {token}"}
        async with (
            create_mcp_http_client(headers=auth) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            result = await client.call_tool("add", {"a": 1, "b": 2})
            return str(result.content[0].text)

    return asyncio.run(asyncio.wait_for(body(), 60))


@pytest.mark.slow
def test_http_without_the_token_is_refused(start_http: Callable[..., HttpServer]) -> None:
    """With FORGE_TOOLS_TOKEN set, requests without it or with a wrong one get 401."""
    server = start_http("--tools", TOOLS_SPEC, token="t0ken")
    missing = post(server.url, json.dumps(INIT))
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    wrong = post(server.url, json.dumps(INIT), Authorization="Bearer nope")
    assert wrong.status_code == 401
    assert add_over_http(server.url, "t0ken") == "3"


@pytest.mark.slow
def test_non_loopback_bind_without_a_token_is_refused() -> None:
    """Binding to 0.0.0.0 without a token exits 1 with a message naming the variable."""
    done = subprocess.run(
        [FORGE_TOOLS, "serve", "--transport", "http", "--host", "0.0.0.0", "--port", "0"],
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "refusing to serve on '0.0.0.0' without a bearer token" in done.stderr
    assert "FORGE_TOOLS_TOKEN" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_http_server_shuts_down_cleanly_on_signals(
    start_http: Callable[..., HttpServer], sig: signal.Signals
) -> None:
    """SIGINT and SIGTERM stop the HTTP server with exit code 0 and no traceback."""
    server = start_http()
    assert server.stop(sig) == 0


@pytest.mark.slow
def test_a_second_signal_during_shutdown_is_absorbed(
    start_http: Callable[..., HttpServer],
) -> None:
    """Two quick SIGTERMs with a session open still exit 0 and print no traceback."""
    server = start_http()
    assert post(server.url, json.dumps(INIT)).status_code == 200
    server.process.send_signal(signal.SIGTERM)
    time.sleep(0.1)  # the second signal lands while the first one's shutdown is under way
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=15) == 0
    assert "Traceback" not in server.output()


def serve_script(after: str, **popen: Any) -> subprocess.Popen[str]:
    """Run a Python process that calls ``serve()`` over stdio, then runs ``after``."""
    script = "\n".join(
        [
            "import os, signal",
            "from forge.tools import ToolRegistry",
            "from forge.mcp.serve import serve",
            "def mine(signum, frame): pass",
            "signal.signal(signal.SIGTERM, mine)",
            "signal.signal(signal.SIGINT, mine)",
            'serve(ToolRegistry(), transport="stdio")',
            after,
        ]
    )
    return subprocess.Popen(
        [sys.executable, "-c", script], env=server_env(), text=True, stderr=subprocess.PIPE, **popen
    )


@pytest.mark.slow
def test_signals_after_a_signalled_shutdown_do_not_kill_the_exiting_process() -> None:
    """Regression: a SIGTERM landing after serve() returned (process still exiting) killed it."""
    late = "\n".join(
        [
            "for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGTERM):",
            "    os.kill(os.getpid(), sig)",
            "print('still here')",
        ]
    )
    process = serve_script(late, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write(json.dumps(INIT) + "\n")
        process.stdin.flush()
        assert "serverInfo" in json.loads(process.stdout.readline())["result"]
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert out.strip() == "still here"


@pytest.mark.slow
def test_serve_puts_back_the_callers_handlers_when_no_signal_arrived() -> None:
    """A server that stops because stdin closed leaves the caller's SIGINT/SIGTERM handlers."""
    check = "print(*(signal.getsignal(s) is mine for s in (signal.SIGTERM, signal.SIGINT)))"
    process = serve_script(check, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        out, err = process.communicate("", timeout=30)  # stdin closed at once: the server stops
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert out.split() == ["True", "True"]


@pytest.mark.slow
def test_a_busy_sync_tool_does_not_hold_up_shutdown(start_http: Callable[..., HttpServer]) -> None:
    """SIGTERM stops the server with exit code 0 even while a sync tool is still sleeping."""
    server = start_http("--tools", TOOLS_SPEC)

    async def body() -> None:
        async with Client(server.url) as client:
            sleeper = asyncio.ensure_future(client.call_tool("blocking_sleep", {"seconds": 60}))
            await client.call_tool("add", {"a": 1, "b": 1})
            sleeper.cancel()

    asyncio.run(asyncio.wait_for(body(), 60))
    assert server.stop(signal.SIGTERM) == 0


@pytest.mark.slow
def test_stdio_server_shuts_down_cleanly_on_sigterm() -> None:
    """SIGTERM stops a stdio server with exit code 0."""
    process = subprocess.Popen(
        [FORGE_TOOLS, "serve"],
        env=server_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write(json.dumps(INIT) + "\n")
        process.stdin.flush()
        assert (
            json.loads(process.stdout.readline())["result"]["serverInfo"]["name"] == "forge-tools"
        )
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    finally:
        process.kill()
        process.communicate(timeout=20)


@pytest.mark.slow
@pytest.mark.parametrize("stdin", ["/dev/null", "file"])
def test_stdio_from_a_device_or_a_file_ends_at_its_end(stdin: str, tmp_path: Path) -> None:
    """`serve < /dev/null` or `serve < requests.jsonl` answers and exits instead of hanging."""
    path = Path(stdin) if stdin == "/dev/null" else tmp_path / "requests.jsonl"
    if stdin == "file":
        path.write_text(json.dumps(INIT) + "\n")
    with path.open("rb") as source:
        done = subprocess.run(
            [FORGE_TOOLS, "serve"], env=server_env(), stdin=source,
            capture_output=True, timeout=60, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    if stdin == "file":
        assert json.loads(done.stdout.splitlines()[0])["id"] == 1


@pytest.mark.slow
def test_malformed_input_over_stdio_does_not_crash_the_server() -> None:
    """Garbage lines get error answers or are skipped, and the server keeps serving."""
    lines = ["this is not json", json.dumps({"jsonrpc": "2.0", "id": 7, "method": 12}),
             json.dumps(INIT)]  # fmt: skip
    done = subprocess.run(
        [FORGE_TOOLS, "serve"],
        env=server_env(),
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert any(a.get("id") == 1 and "result" in a for a in answers)


@pytest.mark.slow
def test_malformed_http_requests_do_not_crash_the_server(http_server: HttpServer) -> None:
    """Invalid JSON and wrong shapes get 4xx answers, and the server keeps serving."""
    assert 400 <= post(http_server.url, "{not json").status_code < 500
    assert 400 <= post(http_server.url, json.dumps([1, 2, 3])).status_code < 500
    assert 400 <= post(http_server.url, json.dumps({"jsonrpc": "2.0"})).status_code < 500
    assert post(http_server.url, json.dumps(INIT)).status_code == 200


@pytest.mark.slow
def test_a_port_in_use_is_a_clear_error() -> None:
    """Serving on a port another socket holds exits 1 and says it cannot listen there."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [FORGE_TOOLS, "serve", "--transport", "http", "--port", str(port)],
            env=server_env(),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr


def test_run_serve_refuses_a_public_bind_without_a_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In process: a non-loopback host without a token returns exit code 1 and says why."""
    monkeypatch.delenv("FORGE_TOOLS_TOKEN", raising=False)
    assert run_serve(ToolRegistry(), transport="http", host="0.0.0.0", port=0) == 1
    assert "without a bearer token" in capsys.readouterr().err


def test_a_busy_port_in_process_fails_and_leaves_the_callers_handlers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """In process: a port in use returns exit code 1, and SIGINT/SIGTERM keep the caller's."""

    def mine(signum: int, frame: object) -> None:
        """A caller's own handler."""

    saved = {sig: signal.signal(sig, mine) for sig in STOP}
    try:
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", 0))
            holder.listen()
            port = holder.getsockname()[1]
            code = run_serve(ToolRegistry(), transport="http", host="127.0.0.1", port=port)
        after = {sig: signal.getsignal(sig) for sig in STOP}
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    assert code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    assert after == dict.fromkeys(STOP, mine)


@pytest.mark.slow
def test_a_signal_stops_serve_in_process_and_both_signals_stay_ignored() -> None:
    """In process: SIGINT stops serve(); afterwards SIGINT and SIGTERM are ignored, not fatal."""
    saved = {sig: signal.getsignal(sig) for sig in STOP}
    returned = threading.Event()

    def interrupt_once_serving() -> None:
        # serve() installs its SIGTERM handler last: once it is there, both are.
        while signal.getsignal(signal.SIGTERM) == saved[signal.SIGTERM]:
            if returned.wait(0.01):
                return
        os.kill(os.getpid(), signal.SIGINT)

    sender = threading.Thread(target=interrupt_once_serving)
    sender.start()
    try:
        serve(ToolRegistry(), transport="http", port=0)
        after = {sig: signal.getsignal(sig) for sig in STOP}
    finally:
        returned.set()
        sender.join()
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    assert after == dict.fromkeys(STOP, signal.SIG_IGN)


def test_a_missing_tools_module_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """`serve --tools` with a module that does not exist exits 2 and says why."""
    assert main(["serve", "--tools", "no_such_module_xyz:registry"]) == 2
    assert "cannot import 'no_such_module_xyz'" in capsys.readouterr().err


def test_an_unknown_transport_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """`serve --transport` accepts only stdio and http."""
    assert main(["serve", "--transport", "carrier-pigeon"]) == 2
    assert "--transport must be 'stdio' or 'http'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("host", "expected"),
    [("127.0.0.1", True), ("127.0.0.2", True), ("localhost", True), ("::1", True),
     ("[::1]", True), ("0.0.0.0", False), ("192.168.1.10", False), ("example.com", False)],
)  # fmt: skip
def test_loopback_detection(host: str, expected: bool) -> None:
    """Only addresses that stay on this machine count as loopback."""
    assert is_loopback(host) is expected


def test_check_bind_needs_a_token_beyond_loopback() -> None:
    """check_bind allows loopback, or any host with a long enough token, and refuses the rest."""
    check_bind("127.0.0.1", None)
    check_bind("0.0.0.0", "a-secret-of-16-chars")
    with pytest.raises(InsecureBindError, match="without a bearer token"):
        check_bind("0.0.0.0", None)


def test_load_tools_spec_accepts_registries_lists_and_factories() -> None:
    """A MODULE:ATTR spec may name a registry, a list of tools or a factory."""
    assert isinstance(load_tools_spec("forge_test_tools:registry"), ToolRegistry)
    assert load_tools_spec("forge.examples:example_registry").names()[0] == "word_count"
    assert len(load_tools_spec("forge.examples:EXAMPLE_TOOLS")) == 5


@pytest.mark.parametrize(
    "spec", ["no_colon", "forge.examples:nothing_here", "forge.examples:__doc__", ":x"]
)
def test_load_tools_spec_rejects_bad_specs(spec: str) -> None:
    """Specs that do not lead to tools raise ToolsSpecError."""
    with pytest.raises(ToolsSpecError):
        load_tools_spec(spec)


@pytest.mark.slow
def test_serve_config_serves_the_tools_of_a_configuration_file(tmp_path: Path) -> None:
    """`serve --config FILE` over stdio serves the file's tools with their annotations."""
    config = tmp_path / "tools.yaml"
    config.write_text(
        "tools:\n"
        "  - name: get_quote\n"
        "    description: A sample stock quote.\n"
        "    type: function\n"
        "    handler: quote\n"
        "    annotations: {read_only: true}\n"
        "    parameters: {type: object, properties: {symbol: {type: string}},"
        " required: [symbol]}\n"
        "    implementation: {type: mock, mock_response: {price: 1.5}}\n"
    )
    params = StdioServerParameters(command=FORGE_TOOLS, args=["serve", "--config", str(config)])

    async def body() -> tuple[list[types.Tool], types.CallToolResult]:
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            return tools, await client.call_tool("get_quote", {"symbol": "ACME"})

    tools, result = asyncio.run(asyncio.wait_for(body(), 60))
    assert [t.name for t in tools] == ["get_quote"]
    assert tools[0].annotations is not None
    assert tools[0].annotations.read_only_hint is True
    assert result.is_error is False
    assert json.loads(result.content[0].text) == {"price": 1.5}


def _listing(args: list[str], tmp_path: Path, importtime: bool = False) -> tuple[list[str], str]:
    """The tool names ``forge-tools ARGS`` lists over stdio, and its stderr."""
    command = [sys.executable, *(["-X", "importtime"] if importtime else []), "-m", "forge.cli"]
    errors = tmp_path / f"stderr-{len(args)}-{importtime}.txt"
    with errors.open("w") as stderr:
        process = subprocess.Popen(
            [*command, *args], env=server_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=stderr, text=True,
        )  # fmt: skip
        assert process.stdin is not None
        assert process.stdout is not None
        try:
            for request in (INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}):  # fmt: skip
                process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            answer: dict[str, Any] = {}
            while answer.get("id") != 2:
                answer = json.loads(process.stdout.readline())
            process.stdin.close()
            assert process.wait(timeout=30) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)
            process.stdout.close()
            if not process.stdin.closed:
                process.stdin.close()
    return [t["name"] for t in answer["result"]["tools"]], errors.read_text()


@pytest.mark.parametrize("args", [["serve"], ["serve", "--transport", "stdio"]])
def test_serving_the_bundled_tools_over_stdio_skips_the_command_line_app(
    args: list[str], tmp_path: Path
) -> None:
    """The session a client starts answers without importing typer, and lists the same tools
    as the command-line app does (``--strict`` takes the app's path)."""
    names, imports = _listing(args, tmp_path, importtime=True)
    assert "| typer" not in imports
    assert "forge._cli.app" not in imports
    assert "forge.mcp._serve_http" not in imports  # nor our HTTP server and its catalog
    assert "forge.catalog" not in imports
    through_the_app, _ = _listing(["serve", "--strict"], tmp_path)
    assert names == through_the_app
    assert len(names) == 10
