"""`forge.cli.main` called in-process: every command's output and exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge.cli import EXIT_NOT_FOUND, EXIT_OK, EXIT_TOOL_FAILED, EXIT_USAGE, EXIT_VALIDATION, main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run main() and return (code, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("args", "code", "text"),
    [
        (("list", "--tag", "finance"), EXIT_OK, "2 tools"),
        (("show", "exchange_rate"), EXIT_OK, "Three-letter currency code"),
        (("show", "read-file", "--json"), EXIT_OK, '"usage_notes"'),
        (("export", "--format", "anthropic"), EXIT_OK, '"input_schema"'),
        (("call", "get_stock_quote", "--args", '{"symbol": "X"}'), EXIT_OK, '"price": 189.5'),
        (("call", "current_time"), EXIT_OK, "T"),
        (("call", "list_notes", "--dry-run"), EXIT_OK, "dry run: arguments valid"),
        (("search", "notes", "--category", "task", "--json"), EXIT_OK, '"add_note"'),
        (("prompt", "--max-examples", "0", "--no-limitations"), EXIT_OK, "Available Tools:"),
        (("call", "current_time", "--args", '{"timezone": "X/Y"}'), EXIT_TOOL_FAILED, "error"),
        (("call", "echo", "--args", "[1"), EXIT_USAGE, ""),
        (("export", "--format", "openai", "--strict"), EXIT_OK, '"strict": true'),
        (("show", "echo", "--format", "gemini"), EXIT_OK, '"functionDeclarations"'),
        (("search", "x", "--category", "nope"), EXIT_USAGE, ""),
        (("call", "absent"), EXIT_NOT_FOUND, ""),
        (("call", "echo", "--args", '{"message": 5}'), EXIT_VALIDATION, ""),
    ],
)
def test_commands(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], code: int, text: str
) -> None:
    """Each command prints what it should and returns its documented exit code."""
    got, out, err = run(capsys, *args)
    assert got == code, err
    assert text in out
    assert (err == "") == (code in (EXIT_OK, EXIT_TOOL_FAILED))


def test_validate_in_process(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`validate` prints the lint table and fails on invalid definitions."""
    from forge.examples import CONFIG_FILE

    code, out, _ = run(capsys, "validate", str(CONFIG_FILE))
    assert code == EXIT_OK
    assert "5 valid tool(s), 0 error(s)" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {name: a}\n")
    code, out, _ = run(capsys, "validate", str(bad), "--json")
    assert code == EXIT_VALIDATION
    assert json.loads(out)["findings"][0]["severity"] == "error"


def test_config_errors_are_validation_failures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A --config file with invalid definitions fails with exit code 4 and names the problem."""
    bad = tmp_path / "bad.json"
    bad.write_text('[{"name": "x"}]')
    code, _, err = run(capsys, "list", "--config", str(bad))
    assert code == EXIT_VALIDATION
    assert "tool 'x': the definition has no 'description'" in err
