"""The `forge-tools` command line, run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).with_name("forge-tools")
EXPECTED = {"word_count", "convert_temperature", "current_time", "read-file", "list-directory"}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed entry point."""
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_default_command_lists_the_bundled_examples() -> None:
    """With no arguments the command prints a table of the example tools and exits 0."""
    done = run()
    assert done.returncode == 0, done.stderr
    for name in EXPECTED:
        assert name in done.stdout
    assert "5 tools" in done.stdout


def test_list_json_is_parseable() -> None:
    """`list --json` prints one JSON object per tool with its parameters."""
    done = run("list", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert {r["name"] for r in rows} == EXPECTED
    temperature = next(r for r in rows if r["name"] == "convert_temperature")
    assert temperature["parameters"] == ["value", "from_unit", "to_unit"]


def test_unknown_command_is_a_usage_error() -> None:
    """An unknown subcommand exits with code 2 and a message on stderr."""
    done = run("frobnicate")
    assert done.returncode == 2
    assert "invalid choice" in done.stderr


def test_main_returns_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    """`forge.cli.main` can be called in-process and returns 0."""
    from forge.cli import main

    assert main(["list"]) == 0
    assert "word_count" in capsys.readouterr().out
