"""``forge-tools import-openapi`` as a real subprocess: import, validate, call a local server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import corpus

pytestmark = pytest.mark.slow  # subprocesses and a server thread

SCRIPT = Path(sys.executable).with_name("forge-tools")


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed entry point."""
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_petstore_round_trip(tmp_path: Path, http_server: str) -> None:
    """import-openapi writes a file that validate passes and whose tools call the server."""
    tools = tmp_path / "petstore.yaml"
    spec = corpus("openapi", "swagger-petstore", "petstore-3.0.yaml")
    done = run("import-openapi", str(spec), "-o", str(tools), "--base-url",
               http_server + "/api/v3", "--env-prefix", "PETSTORE")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "18 tool(s) to" in done.stderr
    assert "skipped POST /pet/{petId}/uploadImage (uploadFile)" in done.stderr
    assert "PETSTORE_API_KEY" in done.stderr
    validated = run("validate", str(tools))
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert "18 valid tool(s), 0 error(s)" in validated.stdout
    env = {"PETSTORE_API_KEY": "k-9"}
    args = ["--config", str(tools), "--allow-private-network", "--json"]
    called = run("call", "getPetById", "--args", '{"petId": 5}', *args, env=env)
    assert called.returncode == 0, called.stderr
    seen = json.loads(called.stdout)["output"]
    assert (seen["method"], seen["path"]) == ("GET", "/api/v3/pet/5")
    assert seen["headers"]["api_key"] == "k-9"
    refused = run("call", "getOrderById", "--args", '{"orderId": 5}', "--config", str(tools))
    assert refused.returncode == 1
    assert "loopback" in refused.stdout + refused.stderr


def test_filters_json_output_and_summary(tmp_path: Path, http_server: str) -> None:
    """--include and --json: a JSON file the loader reads, and a JSON summary on stderr."""
    tools = tmp_path / "ttt.json"
    spec = corpus("openapi", "oai-learn", "tictactoe-3.1.yaml")
    done = run("import-openapi", str(spec), "-o", str(tools), "--base-url", http_server,
               "--include", "put-square", "--security-env", "bearerHttpAuthentication=TTT_TOKEN",
               "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stderr)
    assert (summary["operations"], summary["selected"], summary["tools"]) == (3, 1, 1)
    assert [t["name"] for t in json.loads(tools.read_text())["tools"]] == ["put-square"]
    called = run(
        "call", "put-square", "--args", '{"row": 2, "column": 2, "body": "O"}', "--config",
        str(tools), "--allow-private-network", "--json",
        env={"TTT_TOKEN": "t"},
    )  # fmt: skip
    assert called.returncode == 0, called.stderr
    seen = json.loads(called.stdout)["output"]
    assert (seen["method"], seen["path"], seen["body"]) == ("PUT", "/board/2/2", "O")
    assert seen["headers"]["authorization"] == "Bearer t"
