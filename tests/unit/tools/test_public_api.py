"""The public namespace of forge.tools and what importing it loads."""

import inspect
import json
import subprocess
import sys

import pytest

import forge.core.errors
import forge.tools

REQUIRED = [
    "BaseTool",
    "ExecutionContext",
    "Tool",
    "ToolCall",
    "ToolCategory",
    "ToolParameter",
    "ToolRegistry",
    "ToolResult",
    "create_tool",
    "tool",
]

ERROR_NAMES = [
    "DuplicateToolError",
    "ToolDefinitionError",
    "ToolError",
    "ToolNotFoundError",
    "ToolValidationError",
]

# What `forge.tools` imports for its own use: public names, but nothing of forge's.
IMPORT_HELPERS = {"Any", "TYPE_CHECKING", "annotations"}

# Optional integrations and the heavy dependencies, loaded only when first needed.
NOT_LOADED_ON_IMPORT = [
    "mcp",
    "ray",
    "langchain_core",
    "langchain",
    "pydantic_ai",
    "agents",
    "opentelemetry",
    "yaml",
    "typer",
    "rich",
    "httpx",
    "pydantic",
    "pydantic_core",
    "jsonschema_rs",
    "bm25s",
    "numpy",
    "docstring_parser",
]


def _run(code: str) -> str:
    """Run ``code`` in a fresh interpreter and return what it printed."""
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_all_is_sorted() -> None:
    """forge.tools.__all__ is sorted."""
    assert forge.tools.__all__ == sorted(forge.tools.__all__)


def test_all_has_no_duplicates() -> None:
    """forge.tools.__all__ lists each name once."""
    assert len(forge.tools.__all__) == len(set(forge.tools.__all__))


def test_all_names_resolve() -> None:
    """Every name in forge.tools.__all__ is an attribute of the package, lazy ones included."""
    missing = [name for name in forge.tools.__all__ if not hasattr(forge.tools, name)]
    assert missing == []


def test_all_names_resolve_on_first_use() -> None:
    """In a fresh interpreter, every exported name resolves, each lazy one to its own module's."""
    code = (
        "import importlib, inspect, json, forge.tools\n"
        "wrong = []\n"
        "for name in forge.tools.__all__:\n"
        "    value = getattr(forge.tools, name)\n"
        "    home = getattr(value, '__module__', None)\n"
        "    if inspect.isclass(value) or inspect.isfunction(value):\n"
        "        if getattr(importlib.import_module(home), name, None) is not value:\n"
        "            wrong.append(name)\n"
        "print(json.dumps(wrong))\n"
    )
    assert json.loads(_run(code)) == []


def test_all_includes_core_names() -> None:
    """The names every user needs are exported."""
    assert set(REQUIRED) <= set(forge.tools.__all__)


def test_all_is_complete() -> None:
    """Every public name of the package, lazily loaded or not, is in __all__, and the reverse.

    Left out are only its submodules and the imports the package uses itself.
    """
    public = {
        name
        for name in dir(forge.tools)
        if not name.startswith("_") and not inspect.ismodule(getattr(forge.tools, name))
    }
    assert public - IMPORT_HELPERS == set(forge.tools.__all__)


def test_dir_lists_lazy_names_before_they_load() -> None:
    """dir(forge.tools) in a fresh interpreter already lists every exported name."""
    listed = json.loads(_run("import json, forge.tools; print(json.dumps(dir(forge.tools)))"))
    assert set(forge.tools.__all__) <= set(listed)
    assert listed == sorted(listed)


def test_star_import_matches_all() -> None:
    """`from forge.tools import *` binds exactly the names in __all__."""
    namespace: dict[str, object] = {}
    exec("from forge.tools import *", namespace)
    namespace.pop("__builtins__")
    assert sorted(namespace) == forge.tools.__all__


@pytest.mark.parametrize("name", ERROR_NAMES)
def test_error_names_come_from_core(name: str) -> None:
    """The exceptions exported by forge.tools are the ones defined in forge.core.errors."""
    assert name in forge.tools.__all__
    assert getattr(forge.tools, name) is getattr(forge.core.errors, name)
    assert getattr(forge.tools, name).__module__ == "forge.core.errors"


@pytest.mark.parametrize("name", ["ForgeError", "MissingDependencyError", "FieldError"])
def test_other_error_names_import_from_core(name: str) -> None:
    """The remaining error types are importable from forge.core.errors."""
    assert name in forge.core.errors.__all__
    assert inspect.isclass(getattr(forge.core.errors, name))


@pytest.mark.parametrize(
    "statement",
    [
        "import forge.tools",
        "from forge.tools import ToolRegistry, tool, create_tool, BaseTool",
        "from forge.tools.base import BaseTool, ToolParameter, ToolResult, ExecutionContext, "
        "ToolCategory\nfrom forge.tools.registry import ToolRegistry",
    ],
)
def test_import_loads_no_heavy_modules(statement: str) -> None:
    """Importing forge.tools loads none of the optional integrations or heavy dependencies."""
    code = (
        f"{statement}\n"
        "import json, sys\n"
        f"watched = {NOT_LOADED_ON_IMPORT!r}\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in watched)\n"
        "print(json.dumps(loaded))\n"
    )
    assert json.loads(_run(code)) == []
