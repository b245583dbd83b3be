"""LangChain ``StructuredTool`` objects (the ``langchain`` target of `to_provider`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge.tools.formats._schema import Context
    from forge.tools.tool import Tool

__all__ = ["convert_langchain"]


def convert_langchain(tool: Tool, ctx: Context) -> Any:
    """Return a read-only LangChain ``StructuredTool`` running ``tool`` (``langchain`` extra)."""
    from forge.tools.integrations.langchain import to_langchain

    return to_langchain(tool, read_only=True)
