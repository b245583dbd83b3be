"""Parameters schemas and validators from Python types.

This is the brittle part of every tool library: it leans on pydantic's
arguments schema (``pydantic.experimental.arguments_schema``) for the core
schema, pydantic's JSON Schema generator for the wire schema, and
docstring-parser for descriptions. Everything here is imported lazily, when a
tool is first compiled, so that ``import forge.tools`` stays light.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from forge.core.errors import ToolDefinitionError
from forge.tools.schema._validation import depth_limited
from forge.tools.values.context import ExecutionContext

__all__ = ["CompiledSchema", "describe_function", "function_schema", "model_schema"]


@dataclass(frozen=True, slots=True)
class CompiledSchema:
    """A parameters JSON Schema and the validator that enforces it."""

    parameters: dict[str, Any]
    validate_python: Callable[[Any], Any]
    context_params: tuple[str, ...] = ()


def describe_function(fn: Callable[..., Any]) -> tuple[str, dict[str, str]]:
    """Return a function's description and per-parameter descriptions from its docstring.

    Google, NumPy, reST and Epydoc styles are recognised.
    """
    doc = inspect.getdoc(fn)
    if not doc:
        return "", {}
    import docstring_parser

    try:
        parsed = _parse_docstring(doc)
    except docstring_parser.ParseError:
        return doc.strip(), {}
    parts = [p for p in (parsed.short_description, parsed.long_description) if p]
    description = "\n\n".join(parts) if parts else doc.strip()
    params = {p.arg_name: p.description.strip() for p in parsed.params if p.description}
    return description, params


_OTHER_STYLES = re.compile(r"^\s*(?::|\.\.|[-=]{3,}\s*$)|@", re.MULTILINE)
"""What only the reST, Epydoc and NumPy styles read: ``:field``, ``..`` and ``@`` lines and
underlined section titles."""


def _parse_docstring(doc: str) -> Any:
    """``docstring_parser.parse(doc)``, with one parser instead of four for a Google docstring.

    Without the marks of the other styles (`_OTHER_STYLES`) they find no section, so the
    Google parse is the one ``parse`` would choose whenever it finds one.
    """
    import docstring_parser

    if _OTHER_STYLES.search(doc) is None:
        try:
            google = docstring_parser.parse(doc, docstring_parser.DocstringStyle.GOOGLE)
        except docstring_parser.ParseError:
            google = None  # another style may still read it
        if google is not None and google.meta:
            return google
        if google is not None:  # no style finds a section: ``parse`` keeps the first that reads it
            try:
                return docstring_parser.parse(doc, docstring_parser.DocstringStyle.REST)
            except docstring_parser.ParseError:
                return google
    return docstring_parser.parse(doc)


def context_parameters(fn: Callable[..., Any], hints: dict[str, Any]) -> tuple[str, ...]:
    """Return the names of parameters annotated with `ExecutionContext`."""
    return tuple(name for name, hint in hints.items() if name != "return" and _is_context(hint))


def _is_context(hint: Any) -> bool:
    if typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    if isinstance(hint, type):
        return issubclass(hint, ExecutionContext)
    args = typing.get_args(hint)
    return bool(args) and any(_is_context(a) for a in args if a is not type(None))


def type_hints(tool_name: str, fn: Callable[..., Any]) -> dict[str, Any]:
    """Resolve a function's annotations, with an error that says how to fix a failure."""
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:
        raise ToolDefinitionError(
            tool_name,
            f"cannot resolve the type annotations of {_qualname(fn)}: {exc}. Define the types "
            "it uses at module level (string annotations cannot see local names)",
        ) from None


def check_signature(tool_name: str, fn: Callable[..., Any]) -> inspect.Signature:
    """Check that a function can be called with JSON object arguments."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(
            tool_name, f"cannot read the signature of {fn!r}: {exc}"
        ) from None
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            raise ToolDefinitionError(
                tool_name,
                f"parameter *{p.name} of {_qualname(fn)} cannot be filled from a JSON object; "
                "use a list parameter instead",
            )
        if p.kind is p.POSITIONAL_ONLY:
            raise ToolDefinitionError(
                tool_name,
                f"parameter {p.name!r} of {_qualname(fn)} is positional-only; tool arguments "
                "are passed by name, so remove the '/' from the signature",
            )
    return sig


def function_schema(
    tool_name: str, fn: Callable[..., Any], param_descriptions: dict[str, str]
) -> CompiledSchema:
    """Compile the parameters schema and validator of a typed function."""
    from pydantic.experimental.arguments_schema import generate_arguments_schema

    check_signature(tool_name, fn)
    hints = type_hints(tool_name, fn)
    skip = set(context_parameters(fn, hints))
    try:
        core = generate_arguments_schema(
            fn,
            schema_type="arguments",
            parameters_callback=lambda _i, name, _a: "skip" if name in skip else None,
        )
    except Exception as exc:
        raise ToolDefinitionError(
            tool_name,
            f"cannot build a schema from the type hints of {_qualname(fn)}: {_first_line(exc)}",
        ) from None
    parameters = _json_schema(tool_name, core)
    _add_descriptions(parameters, param_descriptions)
    validate = depth_limited(tool_name, _validator(core), parameters)
    return CompiledSchema(parameters, validate, tuple(sorted(skip)))


def model_schema(tool_name: str, model: type[Any]) -> CompiledSchema:
    """Compile the parameters schema and validator of a pydantic model (builder ``.schema``).

    The top-level object is closed (extra arguments are rejected) like every
    generated parameters schema; the validator returns a model instance.
    """
    try:
        core = model.__pydantic_core_schema__
    except AttributeError:
        raise ToolDefinitionError(
            tool_name, f"{model!r} is not a pydantic model; pass a BaseModel subclass or a dict"
        ) from None
    parameters = _json_schema(tool_name, core)
    parameters.pop("title", None)
    parameters.pop("description", None)  # the model's docstring; the tool has its own
    parameters.setdefault("additionalProperties", False)
    return CompiledSchema(
        parameters, depth_limited(tool_name, _validator(_close_top(core)), parameters)
    )


def _json_schema(tool_name: str, core: Any) -> dict[str, Any]:
    from pydantic.json_schema import GenerateJsonSchema

    class _Generator(GenerateJsonSchema):
        def field_title_should_be_set(self, schema: Any) -> bool:
            return False

    try:
        schema: dict[str, Any] = _Generator().generate(core, mode="validation")
    except Exception as exc:
        raise ToolDefinitionError(
            tool_name, f"the parameter types cannot be expressed as JSON Schema: {exc}"
        ) from None
    return schema


def _validator(core: Any) -> Callable[[Any], Any]:
    from pydantic_core import SchemaValidator

    from forge.tools.schema._strict import json_semantics

    validator = SchemaValidator(json_semantics(core))
    return validator.validate_python


def _close_top(core: dict[str, Any]) -> dict[str, Any]:
    if core.get("type") == "definitions":
        return {**core, "schema": _close_top(core["schema"])}
    if core.get("type") == "model":
        inner = core["schema"]
        if inner.get("type") == "model-fields":
            inner = {**inner, "extra_behavior": "forbid"}
        config = {**core.get("config", {}), "extra_fields_behavior": "forbid"}
        return {**core, "schema": inner, "config": config}
    return core


def _add_descriptions(schema: dict[str, Any], descriptions: dict[str, str]) -> None:
    properties = schema.get("properties", {})
    for name, text in descriptions.items():
        prop = properties.get(name)
        if isinstance(prop, dict) and "description" not in prop:
            prop["description"] = text


def _first_line(exc: Exception) -> str:
    return str(exc).strip().split("\n", 1)[0]


def _qualname(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)
