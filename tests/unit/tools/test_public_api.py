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

# Optional integrations and the heavy dependencies, loaded only when first needed.
NOT_LOADED_ON_IMPORT = [
    "mcp",
    "ray",
    "langchain_core",
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


def test_all_is_sorted() -> None:
    """forge.tools.__all__ is sorted."""
    assert forge.tools.__all__ == sorted(forge.tools.__all__)


def test_all_has_no_duplicates() -> None:
    """forge.tools.__all__ lists each name once."""
    assert len(forge.tools.__all__) == len(set(forge.tools.__all__))


def test_all_names_resolve() -> None:
    """Every name in forge.tools.__all__ is an attribute of the package."""
    missing = [name for name in forge.tools.__all__ if not hasattr(forge.tools, name)]
    assert missing == []


def test_all_includes_core_names() -> None:
    """The names every user needs are exported."""
    assert set(REQUIRED) <= set(forge.tools.__all__)


def test_all_is_complete() -> None:
    """Every public class or function the package namespace holds from forge is in __all__."""
    exported = set(forge.tools.__all__)
    public = {
        name
        for name, value in vars(forge.tools).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and getattr(value, "__module__", "").startswith("forge.")
    }
    assert public - exported == set()


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
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []
