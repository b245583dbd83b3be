"""The `forge-tools` command line, run as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every test runs the command line in a subprocess

SCRIPT = Path(sys.executable).with_name("forge-tools")
PYTHON_TOOLS = {"word_count", "convert_temperature", "current_time", "read-file", "list-directory"}
CONFIG_TOOLS = {"get_stock_quote", "echo", "add_note", "list_notes", "exchange_rate"}
EXPECTED = PYTHON_TOOLS | CONFIG_TOOLS

CONFIG = """\
tools:
  - name: greet
    description: Greet someone by name.
    type: function
    handler: greet
    category: utility
    parameters:
      type: object
      properties: {name: {type: string, description: Who to greet}}
      required: [name]
    implementation: {type: mock, mock_response: "hello"}
"""


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed entry point."""
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def ok(*args: str, env: dict[str, str] | None = None) -> str:
    """Run a command that must succeed and return its stdout."""
    done = run(*args, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """A small configuration file."""
    path = tmp_path / "tools.yaml"
    path.write_text(CONFIG)
    return path


def test_default_command_lists_the_bundled_examples() -> None:
    """With no arguments the command prints a table of the example tools and exits 0."""
    out = ok()
    for name in EXPECTED:
        assert name in out
    assert "10 tools" in out


def test_list_json_is_parseable() -> None:
    """`list --json` prints one JSON object per tool with its parameters."""
    rows = json.loads(ok("list", "--json"))
    assert {r["name"] for r in rows} == EXPECTED
    temperature = next(r for r in rows if r["name"] == "convert_temperature")
    assert temperature["parameters"] == ["value", "from_unit", "to_unit"]


def test_list_filters_and_config(config: Path) -> None:
    """`list` filters by category and tag, and --config replaces the bundled tools."""
    rows = json.loads(ok("list", "--category", "file-system", "--json"))
    assert {r["name"] for r in rows} == {"read-file", "list-directory"}
    assert [r["name"] for r in json.loads(ok("list", "--tag", "notes", "--json"))] == [
        "add_note", "list_notes",
    ]  # fmt: skip
    assert [r["name"] for r in json.loads(ok("list", "--config", str(config), "--json"))] == [
        "greet"
    ]


def test_show_details_and_formats() -> None:
    """`show` prints a tool's details, as JSON, and in a provider's format."""
    assert "Ticker symbol" in ok("show", "get_stock_quote")
    info = json.loads(ok("show", "get_stock_quote", "--json"))
    assert info["implementation"] == "mock"
    assert info["examples"][0]["input"] == {"symbol": "AAPL"}
    [openai] = json.loads(ok("show", "echo", "--format", "openai"))
    assert openai["function"]["name"] == "echo"
    [anthropic] = json.loads(ok("show", "echo", "--format", "anthropic"))
    assert anthropic["input_schema"]["required"] == ["message"]


def test_export_every_tool() -> None:
    """`export --format` prints every tool in the provider's format, in registration order."""
    tools = json.loads(ok("export", "--format", "openai"))
    assert [t["function"]["name"] for t in tools][:2] == ["word_count", "convert_temperature"]
    assert len(tools) == len(EXPECTED)
    assert "strict" not in tools[0]["function"]


def test_export_and_show_strict() -> None:
    """`--strict` passes through to the provider's strict schema mode."""
    tools = json.loads(ok("export", "--format", "openai", "--strict"))
    assert all(t["function"]["strict"] is True for t in tools)
    current = next(t for t in tools if t["function"]["name"] == "current_time")
    assert current["function"]["parameters"]["required"] == ["timezone"]
    [shown] = json.loads(ok("show", "current_time", "--format", "openai", "--strict"))
    assert shown == current


def test_call_prints_the_result() -> None:
    """`call` runs the tool; --json prints the whole result."""
    assert json.loads(ok("call", "echo", "--args", '{"message": "hi"}')) == {"message": "hi"}
    result = json.loads(ok("call", "word_count", "--args", '{"text": "a b"}', "--json"))
    assert result["success"] is True
    assert result["output"]["words"] == 2


def test_call_dry_run_does_not_run_the_tool() -> None:
    """`call --dry-run` validates the arguments and reports that the tool was not run."""
    out = ok("call", "add_note", "--args", '{"title": "t", "text": "x"}', "--dry-run")
    assert "dry run: arguments valid" in out
    info = json.loads(ok("call", "echo", "--args", '{"message": "m"}', "--dry-run", "--json"))
    assert info == {"tool": "echo", "dry_run": True, "valid": True, "arguments": {"message": "m"}}
    done = run("call", "echo", "--args", '{"message": 3}', "--dry-run")
    assert done.returncode == 4


def test_call_http_example_against_a_local_server(http_server: str) -> None:
    """The bundled http example runs against a local server when private targets are allowed."""
    env = {"FORGE_EXAMPLES_HTTP_BASE": http_server}
    args = ("call", "exchange_rate", "--args", '{"base": "EUR", "symbols": "USD"}', "--json")
    seen = json.loads(ok(*args, "--allow-private-network", env=env))["output"]
    assert seen["path"] == "/latest"
    assert seen["query"] == {"from": ["EUR"], "to": ["USD"]}
    refused = run(*args, env=env)
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["error_kind"] == "denied"


def test_search_and_prompt(config: Path) -> None:
    """`search` ranks tools for a query and `prompt` prints the original design's layout."""
    found = json.loads(ok("search", "currency exchange rate", "--json"))
    assert found[0]["name"] == "exchange_rate"
    assert "exchange_rate" in ok("search", "currency", "--limit", "1")
    text = ok("prompt", "--config", str(config))
    assert text.startswith("Available Tools:\n\nUTILITY TOOLS:\n- greet: Greet someone by name.")
    flat = ok("prompt", "--no-group", "--no-examples", "--category", "api")
    assert flat.startswith("Available Tools:\n\n- get_stock_quote:")


def test_validate_reports_definitions_and_lint(tmp_path: Path, config: Path) -> None:
    """`validate` exits 0 for valid files and 4 with per-tool findings for invalid ones."""
    out = json.loads(ok("validate", str(config), "--json"))
    assert out["tools"] == ["greet"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([
        {"name": "x y", "description": "d"},
        {"name": "long", "description": "d" * 2000, "type": "function", "handler": "h",
         "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
         "implementation": {"type": "mock", "mock_response": 1}},
    ]))  # fmt: skip
    done = run("validate", str(bad), "--json")
    assert done.returncode == 4
    findings = json.loads(done.stdout)["findings"]
    assert any("invalid tool name" in f["message"] for f in findings)
    assert any(f["provider"] == "openai" and "2000 characters" in f["message"] for f in findings)
    assert any("'q' has no description" in f["message"] for f in findings)
    table = run("validate", str(bad))
    assert "1 valid tool(s), 1 error(s)" in table.stdout


def test_validate_without_files_checks_the_bundled_examples() -> None:
    """`validate` alone lints the bundled example tools, as the other commands read them."""
    out = json.loads(ok("validate", "--json"))
    assert set(out["tools"]) == EXPECTED
    assert not [f for f in out["findings"] if f["severity"] == "error"]
    assert f"{len(EXPECTED)} valid tool(s), 0 error(s)" in ok("validate")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("frobnicate",), 2, "No such command"),
        (("list", "--nope"), 2, "No such option"),
        (("call", "echo", "--args", "{"), 2, "not valid JSON"),
        (("list", "--category", "planets"), 2, "unknown tool category"),
        (("call", "ecko"), 3, "did you mean 'echo'"),
        (("show", "nothing"), 3, "no tool with this name"),
        (("export", "--format", "smoke-signals"), 3, "unsupported provider"),
        (("call", "echo", "--args", '{"message": 1}'), 4, "Invalid arguments for tool 'echo'"),
        (("call", "current_time", "--args", '{"timezone": "Mars/Base"}'), 1, ""),
        (("list", "--config", "missing.yaml"), 3, "missing.yaml: file not found"),
        (("call", "echo", "--config", "missing.yaml"), 3, "missing.yaml: file not found"),
        (("validate", "missing.yaml"), 3, "missing.yaml: file not found"),
        (("list", "--tools", "no_such_module_xyz:tools"), 2, "cannot import"),
    ],
)
def test_exit_codes_and_errors_on_stderr(args: tuple[str, ...], code: int, message: str) -> None:
    """Failures exit with the documented code and a one-line message on stderr, no traceback."""
    done = run(*args)
    assert done.returncode == code, done.stderr
    assert message in (done.stderr if code != 1 else done.stdout + done.stderr)
    assert "Traceback" not in done.stderr


BROKEN = """\
  - name: broken
    description: Its implementation type is misspelled.
    parameters: {type: object}
    implementation: {type: mok, mock_response: 1}
"""
DUPLICATE = """\
  - name: greet
    description: A second tool with the same name.
    parameters: {type: object}
    implementation: {type: mock, mock_response: 2}
"""


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """A configuration file with one valid and one invalid definition."""
    path = tmp_path / "mixed.yaml"
    path.write_text(CONFIG + BROKEN)
    return path


def test_an_invalid_definition_is_skipped_with_one_line_on_stderr(mixed: Path) -> None:
    """Commands use the valid tools of a file and name each skipped one on stderr."""
    listed = run("list", "--config", str(mixed), "--json")
    assert listed.returncode == 0, listed.stderr
    assert [r["name"] for r in json.loads(listed.stdout)] == ["greet"]
    assert listed.stderr == (
        f"forge-tools: warning: {mixed}: tool 'broken' (definition #2) skipped: "
        "'implementation.type' must be one of mock, builtin, internal, http; got 'mok'\n"
    )
    called = run("call", "greet", "--args", '{"name": "Ada"}', "--config", str(mixed))
    assert (called.returncode, called.stdout) == (0, "hello\n")
    assert "tool 'broken' (definition #2) skipped" in called.stderr


@pytest.mark.parametrize(
    "args",
    [("list", "--strict"), ("call", "greet", "--strict-config"), ("serve", "--strict"),
     ("export", "--format", "openai", "--strict-config")],
)  # fmt: skip
def test_strict_fails_listing_every_problem(tmp_path: Path, args: tuple[str, ...]) -> None:
    """`--strict` (or `--strict-config`) makes any problem fatal and lists all of them."""
    path = tmp_path / "tools.yaml"
    path.write_text(CONFIG + BROKEN + DUPLICATE)
    done = run(*args, "--config", str(path))
    assert done.returncode == 4
    assert done.stdout == ""
    assert done.stderr.startswith(
        "forge-tools: error: 2 problems in the tool configuration; nothing was registered:\n"
    )
    assert (
        f"{path}: tool 'broken' (definition #2): 'implementation.type' must be one of"
        in done.stderr
    )
    duplicate = "a tool with this name is already defined in"
    assert (
        f"{path}: tool 'greet' (definition #3): {duplicate} {path} (definition #1)" in done.stderr
    )


def test_an_unparseable_config_file_is_fatal(tmp_path: Path) -> None:
    """A file that cannot be parsed fails the command even without --strict: none of it loads."""
    path = tmp_path / "tools.yaml"
    path.write_text("tools: [")
    done = run("list", "--config", str(path))
    assert done.returncode == 4
    assert f"{path}: invalid YAML" in done.stderr


def test_serve_serves_the_valid_tools_and_names_the_invalid_one(
    mixed: Path, tmp_path: Path
) -> None:
    """`serve --config` over stdio lists the valid tool to an MCP client."""
    import asyncio

    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=str(SCRIPT), args=["serve", "--config", str(mixed)], env=dict(os.environ)
    )
    errlog = tmp_path / "stderr.txt"

    async def names() -> list[str]:
        with errlog.open("w") as err:
            async with Client(stdio_client(params, errlog=err)) as client:
                return [t.name for t in (await client.list_tools()).tools]

    assert asyncio.run(asyncio.wait_for(names(), 60)) == ["greet"]
    assert (
        f"forge-tools: warning: {mixed}: tool 'broken' (definition #2) skipped: "
        in errlog.read_text()
    )


def test_tools_and_config_together(config: Path) -> None:
    """`--tools MODULE:ATTR` works beyond `serve`, and adds to the --config tools."""
    rows = json.loads(ok("list", "--tools", "forge.examples:EXAMPLE_TOOLS", "--config",
                         str(config), "--json"))  # fmt: skip
    assert [r["name"] for r in rows][-2:] == ["list-directory", "greet"]
    assert set(PYTHON_TOOLS) <= {r["name"] for r in rows}
    assert "get_stock_quote" not in {r["name"] for r in rows}


def test_main_returns_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    """`forge.cli.main` can be called in-process and returns the exit code."""
    from forge.cli import EXIT_NOT_FOUND, main

    assert main(["list"]) == 0
    assert "word_count" in capsys.readouterr().out
    assert main(["show", "absent"]) == EXIT_NOT_FOUND


def test_search_finds_nothing_when_no_tool_is_relevant() -> None:
    """An unrelated query says nothing is relevant; ``--all`` still shows the ranking."""
    query = "quantum chromodynamics lattice"
    assert "No tool is relevant to this query" in ok("search", query)
    assert json.loads(ok("search", query, "--json")) == []
    assert "convert_temperature" in ok("search", query, "--all")
    assert json.loads(ok("search", "temperature", "--json"))[0]["name"] == "convert_temperature"
