"""Hostile configuration files through the real `forge-tools` command line (issue 18)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge.tools.config._limits import MAX_ALIAS_NODES
from tests.unit.test_cli import run
from tests.unit.tools.config.test_hostile_config import (
    BOMB_IN_MOCK,
    BOMB_IN_PARAMETERS,
    GOOD,
    SKIPPED,
)

pytestmark = pytest.mark.slow  # every test runs the command line in a subprocess


def test_validate_refuses_alias_bombs_naming_the_file_and_the_limit(tmp_path: Path) -> None:
    """`validate` returns (instead of running for minutes) naming each file and the limit."""
    paths = [tmp_path / "in_mock.yaml", tmp_path / "in_parameters.yaml"]
    for path, text in zip(paths, [BOMB_IN_MOCK, BOMB_IN_PARAMETERS], strict=True):
        path.write_text(text)
    done = run("validate", *map(str, paths), "--json")
    assert done.returncode == 4, done.stderr
    assert "Traceback" not in done.stderr
    report = json.dumps(json.loads(done.stdout))
    assert all(str(path) in report for path in paths)
    assert report.count(f"more than {MAX_ALIAS_NODES:,} nodes") == 2


def test_list_refuses_an_alias_bomb_with_a_config_error(tmp_path: Path) -> None:
    """Other commands fail on the refused file with the ConfigError text, no traceback."""
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB_IN_MOCK)
    done = run("list", "--config", str(path))
    assert done.returncode == 4
    assert "Traceback" not in done.stderr
    assert f"{path}: the aliases (*name) expand to more than {MAX_ALIAS_NODES:,}" in done.stderr


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
