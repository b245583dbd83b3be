"""Checked by mypy --strict, never run: the calls that take `ToolOptions` type-check.

A line ending in ``# type: ignore[code]`` must be an error: mypy's strict mode
reports an ignore that is not needed, so each marks a mistake mypy has to catch.
"""

from typing import assert_type

from forge.tools import (
    BaseTool,
    Tool,
    ToolBuilder,
    ToolOptions,
    ToolRegistry,
    create_tool,
    tool,
)
from forge.tools.registry import ToolFactory


@tool
def bare(x: int) -> int:
    """Return x."""
    return x


@tool(name="configured", category="web", tags=["a"], timeout=2.5, placement="inline")
def configured(x: int) -> int:
    """Return x."""
    return x


@tool()
def empty_call(x: int) -> int:
    """Return x."""
    return x


async def later(x: int) -> int:
    """Return x, later."""
    return x


options: ToolOptions = {"max_concurrency": 1, "error_details": "type", "title": "Later"}
assert_type(bare, Tool)
assert_type(configured, Tool)
assert_type(empty_call, Tool)
assert_type(tool(later), Tool)
assert_type(tool(**options)(later), Tool)
assert_type(tool(later, name="renamed", timeout=1.0), Tool)
assert_type(tool(later, **options), Tool)
assert_type(create_tool().options(placement="process", version="1.0"), ToolBuilder)
assert_type(ToolFactory().tool(BaseTool, lifetime="per_request", timeout=1), Tool)
assert_type(ToolRegistry().register_factory(BaseTool, deprecated=True), Tool)

tool(nmae="typo")  # type: ignore[call-overload]
tool(placement="elsewhere")  # type: ignore[call-overload]
tool(later, nmae="x")  # type: ignore[call-overload]
tool(later, placement="elsewhere")  # type: ignore[call-overload]
create_tool().options(max_concurrency="one")  # type: ignore[arg-type]
ToolFactory().tool(BaseTool, tgas=["a"])  # type: ignore[call-arg]
bad: ToolOptions = {"timeout": "soon"}  # type: ignore[typeddict-item]
