"""``forge-tools serve --servers``: files the gateway cannot use fail before anything starts."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from forge.cli import EXIT_USAGE, EXIT_VALIDATION, main


def test_an_invalid_entry_names_server_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad entry exits 4 naming the file, the server and the field, showing no secret."""
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"db": {"command": "x", "env": {"PASSWORD": 7}}}}))
    assert main(["serve", "--servers", str(path)]) == EXIT_VALIDATION
    err = capsys.readouterr().err
    assert "server 'db': 'env': 'PASSWORD' must be a string, got int" in err


def test_an_unset_variable_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """${VAR} without a value exits 4 naming the variable."""
    path = tmp_path / "servers.json"
    entry = {"url": "https://example.com/mcp", "headers": {"X-Key": "${FORGE_TEST_UNSET_KEY}"}}
    path.write_text(json.dumps({"mcpServers": {"api": entry}}))
    assert main(["serve", "--servers", str(path), "--transport", "http"]) == EXIT_VALIDATION
    assert "'X-Key' uses ${FORGE_TEST_UNSET_KEY}, which is not set" in capsys.readouterr().err


def test_a_missing_file_and_mixed_sources(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing file exits 4; --servers with --tools is a usage error."""
    assert main(["serve", "--servers", str(tmp_path / "none.json")]) == EXIT_VALIDATION
    assert "cannot read the servers file" in capsys.readouterr().err
    code = main(["serve", "--servers", "x.json", "--tools", "forge.examples:registry"])
    assert code == EXIT_USAGE
    assert "--servers cannot be combined" in capsys.readouterr().err


@pytest.mark.slow  # starts a (failing) server subprocess
def test_a_refused_bind_stops_the_gateway_and_reports_its_servers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond loopback without a token: exit 1 after saying which servers are up or not."""
    monkeypatch.delenv("FORGE_TOOLS_TOKEN", raising=False)
    path = tmp_path / "servers.json"
    servers = {
        "broken": {"command": "sh", "args": ["-c", "exit 3"]},
        "off": {"command": "x", "disabled": True},
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    args = ["serve", "--servers", str(path), "--transport", "http", "--host", "0.0.0.0"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "server 'off' is disabled; skipped" in err
    assert "server 'broken' is not up" in err
    assert "retrying in the background" in err
    assert "refusing to serve on '0.0.0.0' without a bearer token" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pin", "a__x"], "apply to search-only sessions: add --search-only"),
        (["--search-only", "--pin", "nowhere"], "the pinned tool 'nowhere' belongs to no server"),
        (["--search-only", "--pin", "a__get_*"], "the pinned tool 'a__get_*' is no tool name"),
        (["--search-only", "--search-limit", "20"], "search_limit=20 is more than max_active=16"),
    ],
)
def test_search_options_are_checked_before_anything_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    """Search options without --search-only, a pin of no server, limits that clash: exit 4."""
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"a": {"command": "never-started"}}}))
    assert main(["serve", "--servers", str(path), *args]) == EXIT_VALIDATION
    assert message in capsys.readouterr().err


def test_zero_siblings_and_pin_used_on_the_command_line_are_kept() -> None:
    """``--siblings 0`` / ``--pin-used 0`` override the file's values (0 was dropped as unset)."""
    from forge._cli.app import _search_options

    given = _search_options(None, None, None, max_tokens=None, siblings=0, pin_used=0,
                            partners=0)  # fmt: skip
    assert given == {"siblings": 0, "pin_used": 0, "partners": 0}
    assert _search_options(3, None, ["a__x"], siblings=None) == {
        "search_limit": 3, "pinned": ("a__x",)
    }  # fmt: skip


@pytest.mark.parametrize("failure", ["port in use", "public bind without a token"])
def test_serve_and_the_gateway_report_a_serving_failure_alike(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    failure: str,
) -> None:
    """A port in use or a refused bind: both commands exit 1 with the same one error line."""
    monkeypatch.delenv("FORGE_TOOLS_TOKEN", raising=False)
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"off": {"command": "x", "disabled": True}}}))
    sources = {
        "serve": ["--tools", "forge.examples:EXAMPLE_TOOLS"],
        "gateway": ["--servers", str(path)],
    }
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        place = ["--port", str(port)] if failure == "port in use" else ["--host", "0.0.0.0"]
        errors: dict[str, list[str]] = {}
        for command, source in sources.items():
            code = main(["serve", *source, "--transport", "http", *place])
            assert code == 1, command
            lines = capsys.readouterr().err.splitlines()
            errors[command] = [line for line in lines if line.startswith("forge-tools: error:")]
    expected = (
        f"forge-tools: error: cannot listen on 127.0.0.1:{port}: "
        if failure == "port in use"
        else "forge-tools: error: refusing to serve on '0.0.0.0' without a bearer token"
    )
    assert len(errors["serve"]) == 1
    assert errors["serve"][0].startswith(expected)
    assert errors["gateway"] == errors["serve"]


def test_a_header_value_ending_in_a_newline_is_refused_without_showing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``${VAR}`` read from a .env with its line break: exit 4 naming server and header only."""
    secret = "sk-forge-header-" + "5" * 20
    monkeypatch.setenv("FORGE_TEST_NEWLINE_KEY", secret + "\n")
    path = tmp_path / "servers.json"
    entry = {"url": "http://127.0.0.1:9/mcp", "headers": {"X-Key": "${FORGE_TEST_NEWLINE_KEY}"}}
    path.write_text(json.dumps({"mcpServers": {"api": entry}}))
    assert main(["serve", "--servers", str(path), "--transport", "http"]) == EXIT_VALIDATION
    captured = capsys.readouterr()
    assert "server 'api': the header 'X-Key' cannot be sent" in captured.err
    assert "line break" in captured.err
    assert secret not in captured.err + captured.out
