"""A third-party client: the MCP Inspector's command-line mode (from the npm registry)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from mcp_harness import FORGE_TOOLS, TOOLS_SPEC, HttpServer, server_env

pytestmark = pytest.mark.slow  # a Node.js client subprocess

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
NPX = shutil.which("npx")
if NPX is None or shutil.which("node") is None:
    REASON = "Node.js (node and npx) is not installed, so the MCP Inspector cannot run"
    if os.environ.get("CI"):  # CI has Node.js: missing there is a failure, not a skip
        pytest.fail(REASON, pytrace=False)
    print(f"skipping the MCP Inspector tests: {REASON}")
    pytestmark = pytest.mark.skip(reason=REASON)


def inspector(*args: str, expect: int = 0) -> Any:
    """Run the Inspector CLI once and return its JSON output (npm cache in a temp dir)."""
    assert NPX is not None
    env = dict(os.environ)
    env["npm_config_cache"] = str(Path(tempfile.gettempdir()) / "forge-tools-npm-cache")
    env["npm_config_update_notifier"] = "false"
    done = subprocess.run(
        [NPX, "-y", INSPECTOR, "--cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == expect, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_inspector_lists_and_calls_tools_over_http(http_server: HttpServer) -> None:
    """The Inspector lists our tools with their annotations and calls one over streamable HTTP."""
    url = http_server.url
    listed = inspector(url, "--transport", "http", "--method", "tools/list")
    tools = {t["name"]: t for t in listed["tools"]}
    assert tools["add"]["annotations"] == {"title": "Add", "readOnlyHint": True,
                                           "idempotentHint": True}  # fmt: skip
    assert "outputSchema" in tools["stats"]
    called = inspector(
        url, "--transport", "http", "--method", "tools/call",
        "--tool-name", "stats", "--tool-arg", "numbers=[1, 2, 3]",
    )  # fmt: skip
    assert called["isError"] is False
    assert called["structuredContent"] == {"count": 3, "mean": 2.0}
    failed = inspector(
        url, "--transport", "http", "--method", "tools/call",
        "--tool-name", "add", "--tool-arg", "a=1", expect=5,
    )  # fmt: skip
    assert failed["isError"] is True
    assert "b: missing" in failed["content"][0]["text"]


def test_inspector_lists_and_calls_tools_over_stdio() -> None:
    """The Inspector starts `forge-tools serve` itself over stdio, lists and calls a tool."""
    path = server_env()["PYTHONPATH"]  # the server runs the code under test
    server = ["-e", f"PYTHONPATH={path}", FORGE_TOOLS, "serve", "--tools", TOOLS_SPEC]
    listed = inspector(*server, "--method", "tools/list")
    assert "add" in {t["name"] for t in listed["tools"]}
    called = inspector(
        *server, "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=4", "b=5"
    )
    assert called["content"][0]["text"] == "9"
