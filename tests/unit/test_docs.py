"""Every example in README.md and the documentation pages runs, or at least compiles.

The marker on the line right before a ```python block says how it is checked:

- none: the block runs here, in a namespace holding what the 'Defining tools' guide defines
  (`registry` with `get_weather`), as the next cell of that session;
- ``<!-- test: NAME -->``: a named test runs it (tests/unit/test_readme.py lists them all);
- ``<!-- test-in-subprocess: NAME -->`` and ``<!-- openapi-example -->``: the test named in
  ``_ELSEWHERE`` runs it;
- ``<!-- no-run: REASON -->``: it needs what the suite cannot give it here (a running server, a
  Ray cluster, your own application's objects), so it is only compiled, top-level ``await``
  allowed.

Shell blocks: the README's ``.venv/bin/forge-tools`` commands run as written against the
bundled tools; every other ``forge-tools`` command shown is checked against the command's
``--help``: the subcommand exists and takes each option the example gives it.
"""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import sys
from functools import cache
from typing import Any

import pytest

from tests.unit.test_readme import README, ROOT, blocks, pages, session

_PYTHON = re.compile(r"(?:(<!--[^\n]*-->)\n)?```python\n(.*?)\n```", re.DOTALL)
_SHELL = re.compile(r"```(?:bash|sh|shell|console)\n(.*?)\n```", re.DOTALL)
_NAMED = re.compile(r"<!-- test: ([a-z0-9-]+) -->")
_NO_RUN = re.compile(r"<!-- no-run: \S.* -->")
#: Blocks run by a test of their own elsewhere, and that test.
_ELSEWHERE = {
    "<!-- test-in-subprocess: otel-console -->": "tests/unit/tools/integrations/otel/test_hook.py",
    "<!-- openapi-example -->": "tests/unit/tools/config/openapi/test_openapi_import.py",
}


def _python_blocks() -> list[tuple[str, str | None, str]]:
    """``(where, marker, code)`` for every Python block of the README and the docs."""
    found = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for match in _PYTHON.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            where = f"{page.relative_to(ROOT)}:{line}"
            found.append((where, match.group(1), match.group(2)))
    return found


BLOCKS = _python_blocks()


def test_the_docs_have_examples_of_every_kind() -> None:
    """The scan finds the blocks (a changed fence or marker format cannot silently skip all)."""
    markers = [marker for _, marker, _ in BLOCKS]
    assert None in markers
    assert any(marker and _NO_RUN.fullmatch(marker) for marker in markers)
    assert sum(1 for marker in markers if marker and _NAMED.fullmatch(marker)) == len(blocks())


@pytest.mark.parametrize(("where", "marker", "code"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_python_example(where: str, marker: str | None, code: str) -> None:
    """Each block runs, is run by its named test, or compiles (its marker says which)."""
    if marker is None:
        namespace: dict[str, Any] = session()
        exec(compile(code, where, "exec", dont_inherit=True), namespace)
    elif named := _NAMED.fullmatch(marker):
        assert blocks()[named[1]] == code
    elif marker in _ELSEWHERE:
        assert (ROOT / _ELSEWHERE[marker]).is_file()
    else:
        assert _NO_RUN.fullmatch(marker), f"{where}: unknown marker {marker}"
        compile(code, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)


def _commands(text: str, prefix: str) -> list[list[str]]:
    """The arguments of each shell line starting with ``prefix``, comments dropped."""
    found = []
    for block in _SHELL.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            while words and "=" in words[0] and not words[0].startswith("-"):
                words.pop(0)  # VAR=value before the command
            if words and words[0] == prefix:
                found.append(words[1:])
    return found


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``forge-tools`` with these arguments, from the repository root, as installed."""
    return subprocess.run(
        [sys.executable, "-m", "forge.cli", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


README_COMMANDS = _commands(README.read_text(encoding="utf-8"), ".venv/bin/forge-tools")


def test_the_readme_shows_commands_through_the_environment() -> None:
    """The README calls forge-tools through .venv/bin (a bare name is not on PATH)."""
    assert len(README_COMMANDS) >= 5
    assert _commands(README.read_text(encoding="utf-8"), "forge-tools") == []


@pytest.mark.slow
@pytest.mark.parametrize("args", README_COMMANDS, ids=[" ".join(a) for a in README_COMMANDS])
def test_readme_command_runs(args: list[str]) -> None:
    """Each command of the README works as written, offline, on the bundled tools."""
    done = _cli(*args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


@pytest.mark.slow
def test_readme_quickstart_script_runs() -> None:
    """The README's `.venv/bin/python examples/quickstart.py` runs as shown."""
    [script] = _commands(README.read_text(encoding="utf-8"), ".venv/bin/python")
    assert script == ["examples/quickstart.py"]
    done = subprocess.run(
        [sys.executable, *script], cwd=ROOT, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


@cache
def _help(subcommand: str) -> str:
    done = _cli(subcommand, "--help")
    assert done.returncode == 0, f"forge-tools {subcommand}: {done.stderr}"
    return done.stdout


def _docs_commands() -> list[tuple[str, list[str]]]:
    found = []
    for page in pages():
        if page == README:
            continue
        text = page.read_text(encoding="utf-8")
        for prefix in ("forge-tools", ".venv/bin/forge-tools"):
            found += [(str(page.relative_to(ROOT)), args) for args in _commands(text, prefix)]
    return found


DOCS_COMMANDS = _docs_commands()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("where", "args"), DOCS_COMMANDS, ids=[f"{w}: {' '.join(a)}" for w, a in DOCS_COMMANDS]
)
def test_docs_command_parses(where: str, args: list[str]) -> None:
    """Each command in the docs names a real subcommand and options it takes."""
    assert args, where
    shown = _help(args[0])
    for option in (a.split("=", 1)[0] for a in args[1:] if a.startswith("--")):
        assert option in shown, f"{where}: forge-tools {args[0]} takes no {option}"


def test_every_docs_page_is_in_the_site() -> None:
    """Each page under docs/ is in mkdocs.yml's navigation (none is built but unreachable)."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    docs = ROOT / "docs"
    for page in sorted(docs.rglob("*.md")):
        assert f": {page.relative_to(docs).as_posix()}" in nav, page


def test_every_public_package_has_a_reference_page() -> None:
    """Each public package of forge.tools, and each product, has its ::: block in the reference."""
    reference = ROOT / "docs" / "reference"
    text = "\n".join(p.read_text(encoding="utf-8") for p in reference.rglob("*.md"))
    tools = ROOT / "src" / "forge" / "tools"
    packages = [f"forge.tools.{p.parent.name}" for p in sorted(tools.glob("[!_]*/__init__.py"))]
    for package in ["forge.tools", "forge.mcp", "forge.gateway", "forge.catalog", *packages]:
        if package == "forge.tools.integrations":
            continue  # its page documents each integration module (the package exports none)
        assert f"::: {package}\n" in text, package


def test_the_front_pages_stay_short() -> None:
    """The README stays a front page and bench/README.md the method and latest tables."""
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200
    assert len((ROOT / "bench" / "README.md").read_text(encoding="utf-8").splitlines()) < 400
