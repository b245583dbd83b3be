"""Tools from Python code named on the command line (``--tools MODULE:ATTR``)."""

from __future__ import annotations

import importlib
from typing import Any

from forge.core.errors import ForgeError, ToolsSpecError
from forge.tools import Tool, ToolRegistry

__all__ = ["ToolsSpecError", "load_tools_spec"]


def load_tools_spec(spec: str) -> ToolRegistry:
    """Load tools from ``package.module:attribute`` (like ``uvicorn app:app``).

    The attribute may be a `ToolRegistry`, an iterable of tools, or a callable
    with no arguments returning either.

    Raises:
        ToolsSpecError: The module or attribute cannot be found, or is not tools.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ToolsSpecError(
            f"expected MODULE:ATTRIBUTE (e.g. 'myapp.tools:registry'), got {spec!r}"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ToolsSpecError(f"cannot import {module_name!r}: {exc}") from exc
    value: Any = getattr(module, attr, None)
    if value is None:
        raise ToolsSpecError(f"module {module_name!r} has no attribute {attr!r}")
    if callable(value) and not isinstance(value, Tool | ToolRegistry):
        try:
            value = value()
        except Exception as exc:  # the application's own code: report it, whatever it raised
            raise ToolsSpecError(f"{spec!r} raised {type(exc).__name__}: {exc}") from exc
    if isinstance(value, ToolRegistry):
        return value
    try:
        return ToolRegistry(value)
    except (TypeError, ForgeError) as exc:
        raise ToolsSpecError(f"{spec!r} is not a registry or a list of tools: {exc}") from exc
