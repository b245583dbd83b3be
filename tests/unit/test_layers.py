"""The package's layers: no import cycle, and a layers contract that bites.

Imports inside functions and under ``TYPE_CHECKING`` count: grimp records every
``import`` statement wherever it is, and the import-linter configuration in
``pyproject.toml`` does not set ``exclude_type_checking_imports``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PYPROJECT = ROOT / "pyproject.toml"


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("forge", include_external_packages=False, cache_dir=None)


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_graph_counts_function_level_and_type_checking_imports(graph: grimp.ImportGraph) -> None:
    """grimp sees an import inside a function and one under TYPE_CHECKING."""
    lazy = graph.get_import_details(
        importer="forge.tools.base", imported="forge.tools.execution.executor"
    )
    assert any("import contextless" in d["line_contents"] for d in lazy)  # inside _engine_of
    typing_only = graph.get_import_details(
        importer="forge.tools.formats.openai", imported="forge.tools.formats._definition"
    )
    assert typing_only  # under `if TYPE_CHECKING:`


def test_the_cycle_finder_finds_a_cycle() -> None:
    """The check below would notice a cycle: one added edge makes one."""
    copy = grimp.build_graph("forge", include_external_packages=False, cache_dir=None)
    copy.add_import(importer="forge.tools.values.context", imported="forge.tools.registry")
    assert any("forge.tools.values.context" in c for c in _cycles(copy))


def test_no_import_cycle(graph: grimp.ImportGraph) -> None:
    """No module reaches itself through imports, counting every kind of import."""
    assert _cycles(graph) == []


def test_type_checking_imports_are_not_excluded() -> None:
    """The contracts count imports under TYPE_CHECKING."""
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert not config.get("exclude_type_checking_imports", False)
    assert any(c["type"] == "layers" for c in config["contracts"])


def _lint_imports(src: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    shutil.copy(PYPROJECT, cwd / "pyproject.toml")
    code = "import sys; from importlinter.cli import lint_imports_command; lint_imports_command()"
    return subprocess.run(
        [sys.executable, "-c", code, "--no-cache", "--no-logo"],
        cwd=cwd,
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_layers_contract_is_kept(tmp_path: Path) -> None:
    """The package keeps every contract."""
    proc = _lint_imports(SRC, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_layers_contract_fails_on_a_wrong_way_import(tmp_path: Path) -> None:
    """A lower layer importing a higher one, even only for typing, breaks the contract."""
    src = tmp_path / "src"
    shutil.copytree(SRC / "forge", src / "forge", ignore=shutil.ignore_patterns("__pycache__"))
    context = src / "forge" / "tools" / "values" / "context.py"
    wrong_way = (
        "import typing\n\n"
        "if typing.TYPE_CHECKING:\n"
        "    from forge.tools.registry import ToolRegistry\n"
    )
    context.write_text(context.read_text(encoding="utf-8") + wrong_way, encoding="utf-8")
    proc = _lint_imports(src, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "BROKEN" in proc.stdout
    assert "forge.tools.values.context -> forge.tools.registry" in proc.stdout


def test_the_library_importing_a_product_breaks_a_contract(tmp_path: Path) -> None:
    """`forge.tools` importing a product beside it (here the MCP server) is refused."""
    src = tmp_path / "src"
    shutil.copytree(SRC / "forge", src / "forge", ignore=shutil.ignore_patterns("__pycache__"))
    executor = src / "forge" / "tools" / "executor.py"
    wrong_way = "import typing\n\nif typing.TYPE_CHECKING:\n    import forge.mcp.server\n"
    executor.write_text(executor.read_text(encoding="utf-8") + wrong_way, encoding="utf-8")
    proc = _lint_imports(src, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "The library (forge.tools) imports none of the products beside it BROKEN" in proc.stdout
    assert "forge.tools.executor -> forge.mcp.server" in proc.stdout


@pytest.mark.parametrize(
    ("module", "names"),
    [
        ("forge.tools.base", ["BaseTool", "ToolParameter", "ToolResult", "ExecutionContext"]),
        ("forge.tools.registry", ["ToolRegistry", "default_registry", "RegistryEvent"]),
        ("forge.tools.executor", ["ToolExecutor"]),
        ("forge.tools.registry.factories", ["ToolFactory"]),
        ("forge.tools.registry.plugins", ["load_plugins", "PLUGIN_GROUP"]),
    ],
)
def test_seed_004_module_paths_stay_importable(module: str, names: list[str]) -> None:
    """The original design's module paths still import and give its names (the public ones)."""
    import importlib

    import forge.tools

    loaded = importlib.import_module(module)
    for name in names:
        value = getattr(loaded, name)
        if name in forge.tools.__all__:
            assert value is getattr(forge.tools, name)
