"""LangChain ``StructuredTool`` objects (the ``langchain`` target of `to_provider`).

Unlike every other target, a ``StructuredTool`` *runs* the tool, so it is built
by the LangChain integration (`forge.tools.integrations.langchain`), which sits
above execution and therefore above the formats. The formats name it here, as
an entry point names a plugin, and load it on first use; they never import it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition
    from forge.tools.formats._schema import Context

__all__ = ["INTEGRATION", "convert_langchain", "integration"]

#: The module that builds the ``StructuredTool`` objects, and its converter.
INTEGRATION = ("forge.tools.integrations.langchain", "to_langchain")


def integration(name: str = INTEGRATION[1]) -> Any:
    """The LangChain integration's function ``name``, loaded on first use.

    Layers below the integration (the formats, `Tool`, the registry) reach it
    this way only; it raises `MissingDependencyError` when called without
    ``langchain-core``.
    """
    return getattr(importlib.import_module(INTEGRATION[0]), name)


def convert_langchain(tool: ToolDefinition, ctx: Context) -> Any:
    """Return a read-only LangChain ``StructuredTool`` running ``tool`` (``langchain`` extra)."""
    return integration()(tool, read_only=True)
