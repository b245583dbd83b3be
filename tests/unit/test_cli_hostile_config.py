"""Hostile configuration files through the real `forge-tools` command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge.tools.config._limits import MAX_ALIAS_NODES, MAX_FILE_ALIAS_NODES
from tests.unit.test_cli import run
from tests.unit.tools.config.test_hostile_config import (
    BOMB_AT_TOP,
    BOMB_IN_MOCK,
    BOMB_IN_PARAMETERS,
    GOOD,
    SKIPPED,
)

pytestmark = pytest.mark.slow  # every test runs the command line in a subprocess


def test_validate_refuses_alias_bombs_naming_the_file_and_the_limit(tmp_path: Path) -> None:
    """`validate` returns at once naming each file, the bomb tool and the per-tool limit."""
    paths = [tmp_path / "in_mock.yaml", tmp_path / "in_parameters.yaml"]
    for path, text in zip(paths, [BOMB_IN_MOCK, BOMB_IN_PARAMETERS], strict=True):
        path.write_text(text)
    done = run("validate", *map(str, paths), "--json")
    assert done.returncode == 4, done.stderr
    assert "Traceback" not in done.stderr
    report = json.dumps(json.loads(done.stdout))
    assert all(str(path) in report for path in paths)
    assert report.count(f"more than {MAX_ALIAS_NODES:,} nodes by line") == 2


def test_list_serves_the_valid_tool_beside_an_alias_bomb(tmp_path: Path) -> None:
    """`list --config` lists the valid tool and names the skipped bomb tool on stderr."""
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB_IN_MOCK)
    done = run("list", "--config", str(path), "--json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert [row["name"] for row in json.loads(done.stdout)] == ["good"]
    assert f"{path}: tool 'bomb' (definition #2)" in done.stderr
    assert "(the limit per tool)" in done.stderr


def test_list_refuses_a_file_wide_alias_bomb_with_a_config_error(tmp_path: Path) -> None:
    """Aliases past the whole-file limit fail the command with the ConfigError text."""
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB_AT_TOP)
    done = run("list", "--config", str(path))
    assert done.returncode == 4
    assert "Traceback" not in done.stderr
    assert f"{path}: the aliases (*name) expand to more than {MAX_FILE_ALIAS_NODES:,}" in (
        done.stderr
    )


def test_each_skipped_definition_is_one_line_and_the_rest_load(tmp_path: Path) -> None:
    """Hostile definitions are skipped one line each on stderr; the good ones are listed."""
    path = tmp_path / "tools.yaml"
    path.write_text(GOOD + "".join(text for text, _ in SKIPPED.values()))
    done = run("list", "--config", str(path), "--json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert [row["name"] for row in json.loads(done.stdout)] == ["good"]
    lines = done.stderr.splitlines()
    assert len(lines) == len(SKIPPED)
    for line, (name, (_, reason)) in zip(lines, SKIPPED.items(), strict=True):
        assert line.startswith(f"forge-tools: warning: {path}: tool {name!r}")
        assert reason in line


def test_validate_lists_each_skipped_definition(tmp_path: Path) -> None:
    """`validate` reports every hostile definition as an error and exits 4, no traceback."""
    path = tmp_path / "tools.yaml"
    path.write_text(GOOD + "".join(text for text, _ in SKIPPED.values()))
    done = run("validate", str(path), "--json")
    assert done.returncode == 4
    assert "Traceback" not in done.stderr
    assert all(name in done.stdout for name in SKIPPED)


HUGE_TIMEOUT = (
    "- name: slow\n  description: d\n  parameters: {type: object}\n"
    f"  implementation: {{type: http, url: 'https://api.example.com', timeout: {10**400}}}\n"
    "- name: capped\n  description: d\n  parameters: {type: object}\n"
    f"  implementation: {{type: http, url: 'https://api.example.com', "
    f"max_response_bytes: {10**400}}}\n"
)


def test_validate_reports_a_huge_http_number_without_a_traceback(tmp_path: Path) -> None:
    """A 400-digit http timeout or byte limit is one reported definition each, no traceback."""
    path = tmp_path / "tools.yaml"
    path.write_text(GOOD + HUGE_TIMEOUT)
    done = run("validate", str(path), "--json")
    assert done.returncode == 4
    assert "Traceback" not in done.stderr
    assert "OverflowError" not in done.stdout + done.stderr
    assert "slow" in done.stdout
    assert "capped" in done.stdout
    assert "an integer of 401 digits" in done.stdout


def test_serve_config_serves_the_rest_beside_a_huge_http_number(tmp_path: Path) -> None:
    """`serve --config` over stdio lists the good tool and names the skipped ones on stderr."""
    import asyncio
    import os

    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from tests.unit.test_cli import SCRIPT

    path = tmp_path / "tools.yaml"
    path.write_text(GOOD + HUGE_TIMEOUT)
    params = StdioServerParameters(
        command=str(SCRIPT), args=["serve", "--config", str(path)], env=dict(os.environ)
    )
    errlog = tmp_path / "stderr.txt"

    async def names() -> list[str]:
        with errlog.open("w") as err:
            async with Client(stdio_client(params, errlog=err)) as client:
                return [t.name for t in (await client.list_tools()).tools]

    assert asyncio.run(asyncio.wait_for(names(), 60)) == ["good"]
    stderr = errlog.read_text()
    assert "Traceback" not in stderr
    assert f"{path}: tool 'slow' (definition #2) skipped: " in stderr
    assert f"{path}: tool 'capped' (definition #3) skipped: " in stderr
