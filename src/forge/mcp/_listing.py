"""The ``tools/list`` of a registry, one tool at a time: a tool no client could read is left out.

The SDK checks a whole ``ListToolsResult`` against the negotiated protocol
version, so one tool that breaks a version's rules would fail ``tools/list``
for every tool. Each tool is checked here against the tool type of every
protocol version the SDK speaks; one that fails any is left out with a warning
naming it and the rule it breaks.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

import mcp_types as types
import pydantic
from mcp_types import methods
from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS

from forge.core.logging import get_logger

__all__ = ["listable_tools", "wire_problem"]

logger = get_logger("mcp.server")


@functools.cache
def _tool_lists() -> tuple[tuple[str, pydantic.TypeAdapter[Any]], ...]:
    """One validator of ``list[Tool]`` per distinct wire type, with the newest version using it."""
    found: dict[Any, str] = {}
    for version in SUPPORTED_PROTOCOL_VERSIONS:
        model = methods.SERVER_RESULTS.get(("tools/list", version))
        if isinstance(model, type) and issubclass(model, pydantic.BaseModel):
            found[model.model_fields["tools"].annotation] = version
    return tuple((version, pydantic.TypeAdapter(kind)) for kind, version in found.items())


def wire_problem(definition: Mapping[str, Any]) -> str | None:
    """Why a ``tools/list`` entry is invalid for some protocol version, or ``None``."""
    for version, adapter in _tool_lists():
        try:
            adapter.validate_python([definition], by_name=False)
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"][1:]) or "(root)"
            return f"{where}: {first['msg']} (MCP {version})"
    return None


def listable_tools(definitions: Iterable[Mapping[str, Any]]) -> list[types.Tool]:
    """The SDK ``Tool`` of each definition every protocol version accepts; the rest are logged."""
    tools = []
    for definition in definitions:
        problem = wire_problem(definition)
        if problem is not None:
            logger.warning(
                "MCP tool %r is left out of tools/list, no client could read it: %s",
                definition.get("name"),
                problem,
            )
            continue
        tools.append(types.Tool.model_validate(definition))
    return tools
