"""`ToolDefinition`: what the provider formats read of a tool.

The formats turn a definition into provider dicts; they never run a tool, so
they depend on these few attributes, not on `forge.tools.Tool` (which sits a
layer above and converts itself with them: ``Tool.to_openai_schema``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from forge.tools.schema import Table
    from forge.tools.values.metadata import ToolAnnotations, ToolMetadata

__all__ = ["ToolDefinition"]


class ToolDefinition(Protocol):
    """A tool as the formats see it (`forge.tools.Tool` is one)."""

    @property
    def name(self) -> str:
        """The tool's unique name."""
        ...

    @property
    def description(self) -> str:
        """What the tool does, for the model."""
        ...

    @property
    def metadata(self) -> ToolMetadata:
        """Information for people (the display name)."""
        ...

    @property
    def annotations(self) -> ToolAnnotations:
        """Behaviour hints (MCP annotations)."""
        ...

    @property
    def output_schema(self) -> Mapping[str, Any] | None:
        """The JSON Schema of the tool's output, if declared."""
        ...

    @property
    def parameters(self) -> dict[str, Any]:
        """The parameters JSON Schema."""
        ...

    def schema_and_table(self) -> tuple[dict[str, Any], Table | None]:
        """The parameters schema and its parameter table."""
        ...
