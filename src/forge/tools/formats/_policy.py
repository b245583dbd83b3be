"""One tool of an export under the ``errors`` policy (see `forge.tools.formats.convert_all`).

A conversion that fails is retried without strict mode when strict mode was
the problem; a tool that still cannot be sent is left out. Either is written
into the tool's report, so the rest of the export goes on.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from forge.core.errors import SchemaConversionError
from forge.tools.formats._schema import Context, Path
from forge.tools.formats.limits import LIMITS
from forge.tools.formats.report import ConversionReport, Errors, SchemaChange

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition
    from forge.tools.formats.limits import ProviderLimits

__all__ = ["LEFT_OUT", "Converter", "convert_one_tool", "single", "too_many"]

Converter = Callable[["ToolDefinition", Context], Any]

#: What `convert_one_tool` returns for a tool left out of the export.
LEFT_OUT: Any = object()
_LEFT_OUT_PREFIX = "left out of the export: "


def convert_one_tool(
    tool: ToolDefinition, ctx: Context, convert_one: Converter, limits: ProviderLimits, sent: int
) -> Any:
    """Convert one tool under ``ctx.errors``: the definition, or `LEFT_OUT` (reported)."""
    try:
        problem = limits.name_problem(tool.name)
        if problem is not None:
            ctx.fail((), "name", f"{problem}; rename it (registry.renamed) for {ctx.provider}")
        if ctx.errors == "raise" and limits.max_tools is not None and sent >= limits.max_tools:
            ctx.fail((), "tools", _too_many(ctx.provider, limits.max_tools))
        return convert_one(tool, ctx)
    except SchemaConversionError as exc:
        if ctx.errors == "raise":
            raise
        return _recover(tool, ctx, convert_one, exc)


def _too_many(provider: str, limit: int) -> str:
    return (f"{provider} takes at most {limit} tools in one request; send fewer, chosen with "
            "registry.filtered(...) or registry.search(...)")  # fmt: skip


@functools.lru_cache(maxsize=64)
def too_many(provider: str, limit: int) -> tuple[SchemaChange]:
    """The note on a tool converted after ``limit`` others: one request cannot take them all.

    Which tools a request needs is the caller's choice, so the export keeps them
    all rather than dropping an arbitrary tail.
    """
    return (SchemaChange(path="", keyword="tools", action="over_limit",
                         detail=_too_many(provider, limit)),)  # fmt: skip


def _recover(
    tool: ToolDefinition, ctx: Context, convert_one: Converter, exc: SchemaConversionError
) -> Any:
    ctx.changes.clear()
    if ctx.strict and exc.keyword not in ("name", "tools"):
        plain = Context(tool.name, ctx.provider, False, ctx.errors)
        try:
            definition = convert_one(tool, plain)
        except SchemaConversionError:
            pass
        else:
            ctx.note(exc_path(exc), exc.keyword, "fallback",
                     f"strict mode cannot express this ({exc.reason}); the tool is sent "
                     "without strict mode, and its arguments are still validated")  # fmt: skip
            ctx.changes.extend(plain.changes)
            return definition
    ctx.note(exc_path(exc), exc.keyword, "excluded", _LEFT_OUT_PREFIX + exc.reason)
    return LEFT_OUT


def exc_path(exc: SchemaConversionError) -> Path:
    """The path of a conversion error, as `Context.note` takes it."""
    return tuple(part.replace("~1", "/").replace("~0", "~")
                 for part in exc.path.split("/")[1:])  # fmt: skip


def single(
    tool: ToolDefinition, provider: str, strict: bool, convert: Converter,
    errors: Errors = "report",
) -> Any:  # fmt: skip
    """Convert one tool as an export of one would; raise if it would be left out."""
    return single_with_report(tool, provider, strict, convert, errors)[0]


def single_with_report(
    tool: ToolDefinition, provider: str, strict: bool, convert: Converter, errors: Errors
) -> tuple[Any, ConversionReport]:
    """`single`, with the tool's report."""
    ctx = Context(tool.name, provider, strict, errors)
    definition = convert_one_tool(tool, ctx, convert, LIMITS[provider], 0)
    if definition is LEFT_OUT:
        last = ctx.changes[-1]
        raise SchemaConversionError(
            tool.name, provider=provider, keyword=last.keyword, path=last.path,
            reason=last.detail.removeprefix(_LEFT_OUT_PREFIX),
        )  # fmt: skip
    return definition, ctx.report()
