"""Compiled argument validators and their errors.

Two validators share one contract, ``validate(args) -> dict`` of keyword
arguments for the handler, raising `ToolValidationError` that names every bad
field:

* `arguments_validator` for tools defined from Python types (pydantic-core);
* `SchemaValidator` for schema-only tools (jsonschema-rs, draft 2020-12).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any, cast

from forge.core.errors import FieldError, ToolDefinitionError, ToolValidationError
from forge.core.logging import get_logger
from forge.core.text import shown
from forge.tools.values.readonly import thaw

__all__ = [
    "SchemaValidator",
    "arguments_validator",
    "check_json_schema",
    "describe_value",
    "no_remote_refs",
]

Validate = Callable[[Any], dict[str, Any]]

logger = get_logger("tools.schema")

_PYDANTIC_KINDS = {
    "missing": "missing",
    "missing_argument": "missing",
    "missing_keyword_only_argument": "missing",
    "missing_positional_only_argument": "missing",
    "unexpected_keyword_argument": "unexpected",
    "extra_forbidden": "unexpected",
    "literal_error": "enum",
    "enum": "enum",
}


def describe_value(value: Any, limit: int = 60) -> str:
    """Describe a value briefly as JSON, naming its JSON type (for error messages)."""
    kind = _json_type(value)
    try:
        text = json.dumps(value, default=repr, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{kind} {text}" if kind not in ("null",) else "null"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number" if math.isfinite(value) else "non-finite number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _as_arguments(tool_name: str, args: Any) -> dict[str, Any]:
    if type(args) is dict:
        return args
    if args is None:
        return {}
    if isinstance(args, Mapping):
        return dict(args)
    raise ToolValidationError(
        tool_name,
        [FieldError(path="", kind="type",
                    message=f"arguments must be a JSON object, got {describe_value(args)}")],
    )  # fmt: skip


def arguments_validator(tool_name: str, validate_python: Callable[[Any], Any]) -> Validate:
    """Wrap a pydantic-core ``validate_python`` returning ``(args, kwargs)`` or a model."""
    from pydantic_core import ValidationError

    def validate(args: Any) -> dict[str, Any]:
        if type(args) is not dict:
            args = _as_arguments(tool_name, args)
        try:
            result = validate_python(args)
        except ValidationError as exc:
            raise ToolValidationError(tool_name, _pydantic_errors(exc)) from None
        kwargs: dict[str, Any] = result[1] if type(result) is tuple else _fields_of(result)
        return kwargs

    return validate


def _fields_of(model: Any) -> dict[str, Any]:
    return dict(model.__dict__)


def _pydantic_errors(exc: Any) -> list[FieldError]:
    out = []
    for err in exc.errors(include_url=False):
        path = ".".join(str(p) for p in err["loc"])
        kind = _PYDANTIC_KINDS.get(err["type"]) or (
            "type" if err["type"].endswith("_type") or err["type"].endswith("_parsing")
            else "constraint"
        )  # fmt: skip
        if kind == "missing":
            message = "missing required parameter"
        elif kind == "unexpected":
            message = "unexpected parameter: it is not in the schema"
        else:
            message = f"{err['msg']}, got {describe_value(err.get('input'))}"
        out.append(FieldError(path=path, message=message, kind=kind))
    return out


MAX_DEPTH = 256
"""The deepest nesting of arguments accepted (deeper input can crash native validators)."""
TOO_DEEP = f"the arguments are nested more than {MAX_DEPTH} levels deep"


def check_depth(tool_name: str, args: Mapping[str, Any]) -> None:
    """Reject absurdly nested arguments before a validator recurses into them.

    jsonschema-rs overflows the C stack (the process dies) on input nested some
    tens of thousands of levels deep under a recursive schema, and pydantic
    hands any depth to a parameter typed ``Any``, ``list`` or ``dict``. JSON
    text parsed with `json` cannot get that deep, but Python callers can pass
    anything. The error names the parameter.
    """
    for name, top in args.items():
        if not isinstance(top, Mapping | list | tuple):
            continue
        stack = [(top, 2)]
        while stack:
            value, depth = stack.pop()
            if depth > MAX_DEPTH:
                raise ToolValidationError(
                    tool_name,
                    [FieldError(path=str(name), kind="type",
                                message=f"nested more than {MAX_DEPTH} levels deep")],
                )  # fmt: skip
            children = value.values() if isinstance(value, Mapping) else value
            stack.extend((v, depth + 1) for v in children if isinstance(v, Mapping | list | tuple))


def depth_limited(
    tool_name: str, validate_python: Callable[[Any], Any], parameters: Mapping[str, Any]
) -> Callable[[Any], Any]:
    """``validate_python`` behind `check_depth`, unless every parameter is a scalar."""
    properties = parameters.get("properties")
    if isinstance(properties, Mapping) and all(
        isinstance(p, Mapping) and p.get("type") in _SCALAR_TYPES and len(p.keys() & _NESTING) == 0
        for p in properties.values()
    ):
        return validate_python  # nothing nests: the hot path stays as it is

    def validate(args: Any) -> Any:
        if type(args) is dict:
            check_depth(tool_name, args)
        return validate_python(args)

    return validate


_SCALAR_TYPES = frozenset({"string", "integer", "number", "boolean", "null"})
_NESTING = frozenset({"anyOf", "oneOf", "allOf", "$ref", "items", "properties"})


class SchemaValidator:
    """Validates arguments against a JSON Schema with jsonschema-rs."""

    __slots__ = ("_is_valid", "_tool_name", "_validator")

    def __init__(
        self, tool_name: str, schema: Mapping[str, Any], *, kind: str = "parameters"
    ) -> None:
        import jsonschema_rs

        self._tool_name = tool_name
        try:
            # a plain copy: jsonschema-rs takes no list subclass (read-only schemas) in a schema
            self._validator = jsonschema_rs.validator_for(thaw(schema), retriever=no_remote_refs)
        except (ValueError, jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError) as exc:
            raise ToolDefinitionError(
                tool_name, f"invalid {kind} schema: {_first_line(exc)}"
            ) from None
        self._is_valid = self._validator.is_valid

    def __call__(self, args: Any) -> dict[str, Any]:
        """Return the arguments unchanged if valid, else raise `ToolValidationError`."""
        if type(args) is not dict:
            args = _as_arguments(self._tool_name, args)
        check_depth(self._tool_name, args)
        try:
            valid = self._is_valid(args)
        except (ValueError, TypeError, OverflowError):
            valid = False
        if valid:
            return cast("dict[str, Any]", args)
        raise ToolValidationError(self._tool_name, self.errors(args))

    def errors(self, args: Any) -> list[FieldError]:
        """Return every problem with ``args``."""
        import jsonschema_rs

        kinds = jsonschema_rs.ValidationErrorKind
        out: list[FieldError] = []
        try:
            errors = list(self._validator.iter_errors(args))
        except (ValueError, TypeError) as exc:  # values JSON cannot represent
            return [FieldError(path="", kind="type", message=f"arguments are not JSON: {exc}")]
        for err in errors:
            base = ".".join(str(p) for p in err.instance_path)
            if isinstance(err.kind, kinds.Required):
                path = f"{base}.{err.kind.property}" if base else str(err.kind.property)
                out.append(
                    FieldError(path=path, kind="missing", message="missing required parameter")
                )
            elif isinstance(err.kind, kinds.AdditionalProperties):
                for name in err.kind.unexpected:
                    path = f"{base}.{name}" if base else str(name)
                    out.append(
                        FieldError(
                            path=path,
                            kind="unexpected",
                            message="unexpected parameter: it is not in the schema",
                        )
                    )
            else:
                kind = (
                    "type"
                    if isinstance(err.kind, kinds.Type)
                    else (
                        "enum"
                        if isinstance(err.kind, kinds.Enum | kinds.Constant)
                        else "constraint"
                    )
                )
                out.append(FieldError(path=base, kind=kind, message=err.message))
        return out


def check_json_schema(
    tool_name: str, schema: Any, rewrites: list[str] | None = None
) -> dict[str, Any]:
    """Check a parameters schema: a valid JSON Schema whose ``type`` is ``"object"``.

    Older-draft forms are rewritten to draft 2020-12 first (`forge.tools.schema._drafts`);
    one line per rewrite is appended to ``rewrites`` and logged.
    """
    import jsonschema_rs

    from forge.tools.schema._drafts import upgrade_schema

    if not isinstance(schema, Mapping):
        raise ToolDefinitionError(
            tool_name, f"the parameters schema must be a JSON object, got {type(schema).__name__}"
        )
    # a plain deep copy: later edits of the caller's schema cannot reach the tool, and
    # jsonschema-rs takes no list subclass (a read-only schema from another tool) in a schema
    checked, notes = upgrade_schema(thaw(schema))
    for line in notes:
        logger.warning("tool %r: schema rewritten to draft 2020-12: %s", tool_name, line)
    if rewrites is not None:
        rewrites.extend(notes)
    if checked.get("type") != "object":
        raise ToolDefinitionError(
            tool_name,
            'the parameters schema must have "type": "object" '
            f"(got {shown(checked.get('type'))}); wrap single values in an object's properties",
        )
    _check_finite(tool_name, checked)
    try:
        # an empty registry: an unknown $schema is refused instead of fetched
        jsonschema_rs.meta.validate(checked, registry=jsonschema_rs.Registry([]))
    except jsonschema_rs.ValidationError as exc:
        where = "/".join(str(p) for p in exc.instance_path) or "(root)"
        raise ToolDefinitionError(
            tool_name, f"the parameters schema is not valid JSON Schema at {where}: {exc.message}"
        ) from None
    except jsonschema_rs.ReferencingError as exc:
        raise ToolDefinitionError(
            tool_name,
            "the parameters schema has a $schema that is not a known draft, or an invalid "
            f"$id or $ref ({_first_line(exc)}); schemas are never fetched: leave $schema out "
            "(draft 2020-12) or name a standard draft",
        ) from None
    except (ValueError, TypeError) as exc:
        raise ToolDefinitionError(tool_name, f"the parameters schema is not JSON: {exc}") from None
    try:
        jsonschema_rs.validator_for(checked, retriever=no_remote_refs)
    except (ValueError, jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError) as exc:
        raise ToolDefinitionError(
            tool_name, f"the parameters schema cannot be compiled: {_first_line(exc)}"
        ) from None
    return checked


def _check_finite(tool_name: str, schema: dict[str, Any]) -> None:
    """Refuse NaN and infinities (``const: .inf``): JSON has neither, so no provider takes them."""
    try:
        json.dumps(schema, allow_nan=False)
    except ValueError as exc:
        raise ToolDefinitionError(
            tool_name,
            f"the parameters schema is not JSON: {exc} (NaN and infinities are not JSON numbers; "
            "use finite numbers)",
        ) from None
    except RecursionError:
        raise ToolDefinitionError(
            tool_name, "the parameters schema nests too deeply to be JSON; flatten it"
        ) from None


def no_remote_refs(uri: str) -> Any:
    """A ``jsonschema_rs`` retriever refusing remote ``$ref``s: no schema causes network access."""
    raise ValueError(f"remote $ref {uri!r} is not allowed; inline it under $defs")


def _first_line(exc: Exception) -> str:
    return str(exc).strip().split("\n", 1)[0]
