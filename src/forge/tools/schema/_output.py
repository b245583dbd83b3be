"""Output schemas from return annotations, and the serializer that matches them.

A typed function's return annotation (``-> int``, ``-> Model``, ``-> TypedDict``,
``-> list[...]``, ``-> X | None``, ...) becomes the tool's output schema: the
JSON Schema pydantic's ``TypeAdapter`` gives in serialization mode, with the
root ``$ref`` of a recursive model inlined so an object stays an object. The
same adapter turns a returned value into the JSON data that schema describes
(aliases, custom serializers). Building an adapter costs about as much as
registering a tool, so `Tool.output_schema` calls `return_schema` on first read.

No schema comes from a missing annotation, ``None``, ``Any``, ``object`` or a
type whose schema allows anything, nor from what a tool returns as content
rather than data: ``bytes``, paths, forge-tools' own result and content types,
MCP content blocks and images. A return type pydantic cannot express gives
none either (logged), unless the schema was required (``output_schema=True``).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import types
import typing
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from forge.core.errors import ToolDefinitionError
from forge.core.logging import get_logger

__all__ = ["ReturnSchema", "return_schema"]

logger = get_logger("tools.schema")

_NO_DATA: tuple[Any, ...] = (None, type(None), Any, object, inspect.Signature.empty)
_CONTENT_TYPES = (bytes, bytearray, memoryview, PurePath)
_CONTENT_MODULES = ("forge.tools.", "mcp.", "mcp_types.", "PIL.")
_WAITING = (Awaitable, Coroutine)
_SILENT_KEYS = frozenset({"title", "description", "$schema"})
_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}


@dataclass(frozen=True, slots=True)
class ReturnSchema:
    """A return type's output schema and the serializer that matches it."""

    schema: dict[str, Any]
    """The JSON Schema of the output (any root type; MCP wraps non-objects)."""
    dump: Callable[[Any], Any]
    """A returned value as the JSON data the schema describes."""


def return_schema(tool_name: str, fn: Callable[..., Any], *, required: bool) -> ReturnSchema | None:
    """The output schema of ``fn``'s return annotation, or ``None`` when it gives none.

    Raises:
        ToolDefinitionError: ``required`` and the annotation gives no schema, saying why.
    """
    why, annotation = _return_type(fn)
    if why is None:
        why = _not_data(annotation)
    if why is None:
        built, why = _build(annotation)
        if built is not None:
            return built
        logger.info("tool %r has no output schema: its return type %s", tool_name, why)
    if required:
        raise ToolDefinitionError(
            tool_name,
            f"output_schema=True needs a return type that gives an output schema, but "
            f"{_qualname(fn)}'s {why}; annotate it with a JSON type (a pydantic model, a "
            "TypedDict, a dataclass, int, list[str], ...) or pass a JSON Schema",
        )
    return None


def _return_type(fn: Callable[..., Any]) -> tuple[str | None, Any]:
    """The resolved return annotation (``Awaitable``/``Coroutine`` unwrapped), or why not."""
    target = fn if inspect.isroutine(fn) else getattr(type(fn), "__call__", fn)  # noqa: B004
    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception as exc:
        return f"return annotation cannot be resolved ({exc})", None
    annotation = hints.get("return", inspect.Signature.empty)
    while typing.get_origin(annotation) in _WAITING:
        args = typing.get_args(annotation)
        annotation = args[-1] if args else Any
    return None, annotation


def _not_data(annotation: Any) -> str | None:
    """Why a return annotation describes no JSON data (``None`` when it does)."""
    if any(annotation is none for none in _NO_DATA):
        shown = "missing" if annotation is inspect.Signature.empty else repr(annotation)
        return f"return annotation is {shown}"
    content = _content_type(annotation)
    if content is not None:
        return f"return type {_shown(content)} is content for the model, not data"
    return None


def _content_type(annotation: Any) -> Any:
    """The first type in ``annotation`` (its arms and items included) that is content."""
    if isinstance(annotation, type):
        module = getattr(annotation, "__module__", "") + "."
        if issubclass(annotation, _CONTENT_TYPES) or module.startswith(_CONTENT_MODULES):
            return annotation
        return None
    for arg in typing.get_args(annotation):
        found = _content_type(arg)
        if found is not None:
            return found
    return None


def _build(annotation: Any) -> tuple[ReturnSchema | None, str]:
    scalar = _SCALARS.get(annotation) if isinstance(annotation, type) else None
    if scalar is not None:  # the commonest returns, without pydantic's cost (~0.1 ms)
        from forge.tools.values.jsonable import to_jsonable

        return ReturnSchema({"type": scalar}, to_jsonable), ""
    from pydantic import PydanticUserError, TypeAdapter
    from pydantic_core import SchemaError

    readable = _readable(annotation) if sys.version_info < (3, 12) else annotation
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(readable)
        schema = adapter.json_schema(mode="serialization", schema_generator=_generator())
    except (PydanticUserError, SchemaError, TypeError, ValueError, NameError) as exc:
        return None, f"{_shown(annotation)} cannot be expressed as JSON Schema: {_first(exc)}"
    schema = _inline_root_ref(schema)
    if not (schema.keys() - _SILENT_KEYS):
        return None, f"{_shown(annotation)} allows any value"
    return ReturnSchema(schema, functools.partial(_dump, adapter)), ""


def _dump(adapter: Any, value: Any) -> Any:
    """``value`` through the adapter, then `to_jsonable` (for what JSON cannot hold: NaN).

    A value of another type skips the adapter. The schema check that follows
    then judges it: a dict shaped like the model passes, a string for an ``int``
    fails, instead of being coerced.
    """
    from pydantic_core import PydanticSerializationError

    from forge.tools.values.jsonable import to_jsonable

    with contextlib.suppress(PydanticSerializationError, TypeError, ValueError):
        value = adapter.dump_python(value, mode="json", by_alias=True, warnings="error")
    return to_jsonable(value)


@functools.cache
def _generator() -> type[Any]:
    from pydantic.json_schema import GenerateJsonSchema, JsonSchemaWarningKind

    class _OutputSchema(GenerateJsonSchema):
        """Without per-field titles (like the parameters), failing where pydantic would warn."""

        def field_title_should_be_set(self, schema: Any) -> bool:
            return False

        def emit_warning(self, kind: JsonSchemaWarningKind, detail: str) -> None:
            raise ValueError(detail)

    return _OutputSchema


def _inline_root_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """Copy the definition a root ``$ref`` points to onto the root (recursive models)."""
    ref = schema.get("$ref")
    prefix = "#/$defs/"
    local = ref.removeprefix(prefix) if isinstance(ref, str) and ref.startswith(prefix) else None
    definition = schema.get("$defs", {}).get(local)
    if not isinstance(definition, dict):
        return schema
    siblings = {k: v for k, v in schema.items() if k != "$ref"}
    return {**definition, **siblings}


def _readable(annotation: Any) -> Any:
    """``annotation`` with every ``typing.TypedDict`` rebuilt from ``typing_extensions``.

    pydantic refuses the standard library's TypedDict before Python 3.12.
    """
    if typing.is_typeddict(annotation) and type(annotation).__module__ == "typing":
        return _rebuilt_typeddict(annotation)
    args = typing.get_args(annotation)
    if not args:
        return annotation
    new = tuple(_readable(a) for a in args)
    if all(a is b for a, b in zip(new, args, strict=True)):
        return annotation
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return typing.Annotated[new]
    if origin in (typing.Union, types.UnionType):
        return typing.Union[new]  # noqa: UP007 - the arms are a runtime tuple
    if isinstance(annotation, types.GenericAlias):
        return types.GenericAlias(origin, new)
    return annotation


def _rebuilt_typeddict(td: Any) -> Any:
    import typing_extensions

    items: dict[str, Any] = {}
    for key, given in typing.get_type_hints(td, include_extras=True).items():
        hint, qualifiers = given, set()
        while typing.get_origin(hint) in (typing.Required, typing.NotRequired):
            qualifiers.add(typing.get_origin(hint))
            hint = typing.get_args(hint)[0]
        # A qualifier wins: behind string annotations, __required_keys__ cannot see it.
        required = typing.Required in qualifiers or (
            typing.NotRequired not in qualifiers and key in td.__required_keys__
        )
        hint = _readable(hint)
        items[key] = hint if required else typing_extensions.NotRequired[hint]
    make: Any = typing_extensions.TypedDict
    rebuilt: Any = make(td.__name__, items)
    for attr in ("__doc__", "__module__", "__qualname__"):
        setattr(rebuilt, attr, getattr(td, attr, None))
    return rebuilt


def _shown(annotation: Any) -> str:
    return annotation.__name__ if isinstance(annotation, type) else repr(annotation)


def _first(exc: BaseException) -> str:
    return str(exc).strip().split("\n", 1)[0]


def _qualname(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)
