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


def test_invalid_definitions_are_skipped_unless_strict(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A --config definition with several problems is skipped with all of them on one line."""
    bad = tmp_path / "bad.json"
    bad.write_text('[{"name": "x", "type": "tool"}]')
    code, out, err = run(capsys, "list", "--config", str(bad))
    assert code == EXIT_OK
    assert "0 tools" in out
    assert err == (
        f"forge-tools: warning: {bad}: tool 'x' (definition #1) skipped: "
        "the definition has no 'description'; the definition has no 'parameters'; "
        "the definition has no 'implementation'; 'type' must be \"function\" (or left out), "
        "got 'tool'\n"
    )
    code, out, err = run(capsys, "list", "--config", str(bad), "--strict")
    assert (code, out) == (EXIT_VALIDATION, "")
    assert "1 problem in the tool configuration" in err


SPEC = "forge.examples:EXAMPLE_TOOLS"


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (("list",), "5 tools"),
        (("show", "word_count"), "word_count"),
        (("export", "--format", "openai"), '"convert_temperature"'),
        (("call", "word_count", "--args", '{"text": "a b c"}'), '"words": 3'),
        (("search", "temperature"), "convert_temperature"),
        (("prompt",), "- read-file:"),
        (("validate",), "5 valid tool(s), 0 error(s)"),
    ],
)
def test_every_command_reads_python_tools(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], text: str
) -> None:
    """`--tools MODULE:ATTR` is accepted by every command that reads tools."""
    code, out, err = run(capsys, *args, "--tools", SPEC)
    assert code == EXIT_OK, err
    assert text in out
    assert "get_stock_quote" not in out


def test_validate_lints_python_tools_with_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`validate --tools` lints the Python tools too, and reports a file's clash with them."""
    clash = tmp_path / "clash.yaml"
    clash.write_text(
        "- {name: word_count, description: Again., parameters: {type: object},"
        " implementation: {type: mock, mock_response: 1}}\n"
    )
    code, out, _ = run(capsys, "validate", str(clash), "--tools", SPEC, "--json")
    assert code == EXIT_VALIDATION
    report = json.loads(out)
    assert len(report["tools"]) == 5
    [error] = [f for f in report["findings"] if f["severity"] == "error"]
    assert error["tool"] == "word_count"
    assert "already defined in the registry" in error["message"]


CRUNCH = '''
from forge.tools import ExecutionContext, ToolRegistry, tool


@tool
def crunch(steps: int, ctx: ExecutionContext) -> str:
    """Crunch in steps, reporting each."""
    for done in range(1, steps + 1):
        ctx.report_progress_sync(done, steps, f"chunk {done} of {steps}")
    ctx.log_sync("warning", "almost out of chunks", logger="cruncher")
    return "crunched"


registry = ToolRegistry([crunch])
'''


@pytest.mark.parametrize("terminal", [True, False])
def test_call_shows_progress_on_a_terminal_and_log_messages_always(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    terminal: bool,
) -> None:  # fmt: skip
    """A tool's progress is a bar on a terminal (nothing in a pipe); its logs go to stderr."""
    (tmp_path / "crunching.py").write_text(CRUNCH)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("FORCE_COLOR" if terminal else "NO_COLOR", "1")
    monkeypatch.delenv("NO_COLOR" if terminal else "FORCE_COLOR", raising=False)
    code, out, err = run(capsys, "call", "crunch", "--tools", "crunching:registry",
                         "--args", '{"steps": 3}')  # fmt: skip
    assert code == EXIT_OK
    assert "crunched" in out
    assert "crunch/cruncher: [warning] almost out of chunks" in err
    assert ("chunk 3 of 3" in err) is terminal
