"""`forge-tools validate` reports exactly what `export` would change, drop or fail on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from forge.cli import EXIT_OK, EXIT_VALIDATION, main
from forge.tools import ToolRegistry
from forge.tools.config import load_tools
from forge.tools.formats import PROVIDERS
from forge.tools.formats.report import URGENT
from tests.unit.tools.formats.crafted import SCHEMAS, config_entries
from tests.unit.tools.formats.test_export_policy import declarations, name_of

WIRE = [p for p in PROVIDERS if p != "langchain"]


@pytest.fixture(scope="module")
def crafted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A configuration file holding every crafted tool."""
    path = tmp_path_factory.mktemp("crafted") / "tools.json"
    path.write_text(json.dumps(config_entries()))
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run main() and return (code, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _urgent(validated: dict[str, Any], provider: str) -> list[str]:
    """validate's findings for ``provider`` that errors="raise" refuses, as export warns them."""
    label = provider + (" (strict)" if validated["exports"][0]["strict"] else "")
    exports = {e["provider"]: e for e in validated["exports"]}
    urgent = [(r["tool"], c) for r in exports[provider]["reports"] for c in r["changes"]
              if c["action"] in URGENT]  # fmt: skip
    return [f"forge-tools: warning: {tool} -> {label}: {c['path'] or '/'}: {c['keyword']} "
            f"{c['action']}: {c['detail']}" for tool, c in urgent]  # fmt: skip


@pytest.mark.parametrize("strict", [False, True])
def test_validate_and_export_agree_on_every_tool_for_every_provider(
    capsys: pytest.CaptureFixture[str], crafted: Path, strict: bool
) -> None:
    """Per provider: the same tools exported, the same warnings, and a failure exactly when told."""
    flag = ("--strict",) if strict else ()
    code, out, _ = run(capsys, "validate", str(crafted), *flag, "--json")
    validated = json.loads(out)
    assert code == EXIT_OK  # nothing is left out, so nothing is an error
    assert validated["tools"] == list(SCHEMAS)
    registry = ToolRegistry()
    load_tools([crafted], registry=registry)
    for provider in WIRE:
        args = ("export", "--format", provider, "--config", str(crafted), *flag)
        code, out, err = run(capsys, *args)
        assert code == EXIT_OK, err
        exported = [name_of(provider, d) for d in declarations(provider, json.loads(out))]
        checked = next(e for e in validated["exports"] if e["provider"] == provider)
        assert exported == checked["exported"] == list(SCHEMAS), provider
        assert err.splitlines() == _urgent(validated, provider), provider
        library = registry.conversion(provider, strict=strict)
        assert checked["reports"] == [r.to_dict() for r in library.reports], provider
        code, _, err = run(capsys, *args, "--errors", "raise")
        assert code == (EXIT_VALIDATION if _urgent(validated, provider) else EXIT_OK), provider


def test_validate_table_names_each_change(
    capsys: pytest.CaptureFixture[str], crafted: Path
) -> None:
    """The table shows the shortened description, the fallbacks and the Ollama rewrite."""
    code, out, _ = run(capsys, "validate", str(crafted), "--strict", "--format", "openai")
    assert code == EXIT_OK
    assert "fetch" in out
    assert "description shortened" in " ".join(out.split())
    assert "7 valid tool(s), 0 error(s)" in out


def test_export_errors_option_is_checked(capsys: pytest.CaptureFixture[str], crafted: Path) -> None:
    """An unknown --errors value is a usage error naming the choices."""
    code, _, err = run(capsys, "export", "--format", "openai", "--errors", "ignore")
    assert code == 2
    assert "'report' or 'raise'" in err


@pytest.mark.slow
def test_installed_command_exports_what_validate_promised(crafted: Path) -> None:
    """The entry point in a real process: Gemini export of the tree, warnings on stderr."""
    script = Path(sys.executable).with_name("forge-tools")
    done = subprocess.run(
        [str(script), "export", "--format", "openai", "--config", str(crafted)],
        capture_output=True, text=True, timeout=60, check=False, env=dict(os.environ),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)) == len(SCHEMAS)
    assert done.stderr.startswith("forge-tools: warning: fetch -> openai: /: description shortened")
