"""Google Gemini function declarations (``tools[].functionDeclarations[]``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from forge.core.errors import SchemaConversionError
from forge.tools.formats._gemini_schema import compile_gemini
from forge.tools.formats._memo import compiled
from forge.tools.formats._policy import exc_path
from forge.tools.values.readonly import ReadOnlyDict, ReadOnlyList

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition
    from forge.tools.formats._schema import Context

__all__ = ["convert_gemini", "wrap_gemini"]


def convert_gemini(tool: ToolDefinition, ctx: Context) -> dict[str, Any]:
    """Return one ``{"name", "description", "parameters"}`` function declaration.

    ``parameters`` is Gemini's OpenAPI-subset schema (see `compile_gemini`).
    A schema the subset cannot express (a recursive ``$ref``, a ``false``
    schema, ``allOf`` that cannot be merged, a parameter name the subset
    rejects) goes unchanged as ``parametersJsonSchema``, Gemini's full JSON
    Schema field: a faithful rewrite (never an error), which the report notes.
    A tool without parameters has no ``parameters``, as the SDK's ``from_callable``
    writes it: Gemini rejects an ``OBJECT`` whose ``properties`` are empty.
    """
    start = len(ctx.changes)
    try:
        parameters = compiled(*tool.schema_and_table(), ctx, "gemini", compile_gemini)
    except SchemaConversionError as exc:
        del ctx.changes[start:]
        ctx.note(exc_path(exc), exc.keyword, "rewritten",
                 f"Gemini's OpenAPI subset ('parameters') cannot express this ({exc.reason}); "
                 "the schema is sent unchanged as 'parametersJsonSchema'")  # fmt: skip
        return ReadOnlyDict(name=tool.name, description=tool.description,
                            parametersJsonSchema=tool.parameters)  # fmt: skip
    if _declares_nothing(parameters):  # the same declaration, so not a change to report
        return ReadOnlyDict(name=tool.name, description=tool.description)
    return ReadOnlyDict(name=tool.name, description=tool.description, parameters=parameters)


def _declares_nothing(parameters: Any) -> bool:
    """Whether ``parameters`` is an object with no properties and nothing else to say."""
    return (
        parameters.get("type") == "OBJECT"
        and not parameters.get("properties")
        and not parameters.get("required")
        and parameters.keys() <= {"type", "properties", "required"}
    )


def wrap_gemini(declarations: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Put every declaration in one ``{"functionDeclarations": [...]}`` tool."""
    if not declarations:
        return []
    return [ReadOnlyDict(functionDeclarations=ReadOnlyList(declarations))]
