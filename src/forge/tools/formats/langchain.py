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

__all__ = ["INTEGRATION", "convert_langchain"]

#: The module that builds the ``StructuredTool`` objects, and its converter.
INTEGRATION = ("forge.tools.integrations.langchain", "to_langchain")


def convert_langchain(tool: ToolDefinition, ctx: Context) -> Any:
    """Return a read-only LangChain ``StructuredTool`` running ``tool`` (``langchain`` extra)."""
    module, name = INTEGRATION
    to_langchain = getattr(importlib.import_module(module), name)
    return to_langchain(tool, read_only=True)
