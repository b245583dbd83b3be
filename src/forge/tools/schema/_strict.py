"""Make pydantic's lax validation accept exactly what the JSON Schema accepts.

pydantic's lax mode coerces ``"3"`` and ``True`` to ``3`` for an ``int``, which
the generated JSON Schema (``{"type": "integer"}``) rejects; its strict mode
rejects ``3.0`` (a JSON integer) and, for Python input, dicts for models. We keep
lax mode for containers and models and rewrite the scalar leaves of the core
schema so that they follow JSON Schema semantics instead:

* ``int``: an int (not a bool), or a float with no fractional part (converted);
* ``float``: an int or a finite float, never a bool or a string;
* ``bool`` and ``str``: only that type;
* literals of numbers never accept booleans (``True == 1`` in Python).

pydantic-core validates a complete model class with the class's own prebuilt
validator, ignoring the schema it is given; so nested models are validated
here by their (rewritten) field schema and then built with ``model_construct``.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import PydanticCustomError, core_schema

# Keys whose values are data, not nested schemas.
_DATA_KEYS = frozenset(
    {"metadata", "serialization", "ref", "schema_ref", "cls", "default", "expected", "members",
     "config", "function", "default_factory", "custom_error_context"}
)  # fmt: skip


def json_semantics(schema: Any) -> Any:
    """Return a rewritten copy of a core schema; the input is not modified."""
    if isinstance(schema, dict):
        kind = schema.get("type")
        if kind == "int" and not schema.get("strict"):
            return _int(schema)
        if kind in ("float", "bool", "str") and "strict" not in schema:
            out = {**schema, "strict": True}
            if kind == "float":
                out.setdefault("allow_inf_nan", False)
            return out
        if kind == "literal":
            return _literal(schema)
        if kind == "enum":
            return _enum(schema)
        if kind in ("set", "frozenset"):
            inner = {k: v if k in _DATA_KEYS else json_semantics(v) for k, v in schema.items()}
            return core_schema.no_info_before_validator_function(_unique_items, inner)
        if kind == "model" and _rebuildable(schema):
            return _model(schema)
        return {k: v if k in _DATA_KEYS else json_semantics(v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [json_semantics(s) for s in schema]
    if isinstance(schema, tuple):
        return tuple(json_semantics(s) for s in schema)
    return schema


def _int(schema: dict[str, Any]) -> core_schema.CoreSchema:
    whole_float = core_schema.no_info_after_validator_function(
        _whole, core_schema.float_schema(strict=True, allow_inf_nan=False)
    )
    json_int = core_schema.union_schema(
        [core_schema.int_schema(strict=True), whole_float],
        mode="left_to_right",
        custom_error_type="int_type",
    )
    constraints = {k: v for k, v in schema.items() if k not in ("type", "metadata", "strict")}
    if not constraints:
        return json_int
    return core_schema.chain_schema([json_int, core_schema.int_schema(**constraints)])


def _literal(schema: Any) -> Any:
    expected = schema.get("expected", [])
    has_number = any(isinstance(v, int | float) and not isinstance(v, bool) for v in expected)
    if not has_number or any(isinstance(v, bool) for v in expected):
        return schema
    return core_schema.no_info_before_validator_function(_reject_bool, schema)


def _reject_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise PydanticCustomError("literal_error", "Input should be a number, not a boolean")
    return value


def _whole(value: float) -> int:
    if not value.is_integer():
        raise PydanticCustomError("int_from_float", "Input should be a whole number")
    return int(value)


def _enum(schema: Any) -> Any:
    cls, values = schema["cls"], [m.value for m in schema.get("members", [])]
    expected = " or ".join(repr(v) for v in values)

    def json_member(value: Any) -> Any:
        if isinstance(value, cls) or any(_json_equal(value, v) for v in values):
            return value
        raise PydanticCustomError("enum", "Input should be {expected}", {"expected": expected})

    inner = {k: v for k, v in schema.items() if k != "ref"}
    out = core_schema.no_info_before_validator_function(json_member, inner)
    if "ref" in schema:  # enums used twice live in definitions
        out["ref"] = schema["ref"]
    return out


def _unique_items(value: Any) -> Any:
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            if any(_json_equal(item, other) for other in value[:i]):
                raise PydanticCustomError("unique_items", "Input should have unique items")
    return value


def _json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema defines it: ``true`` is not ``1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(map(_json_equal, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _rebuildable(schema: dict[str, Any]) -> bool:
    inner = schema.get("schema", {})
    return (
        inner.get("type") == "model-fields"
        and not schema.get("custom_init")
        and not schema.get("root_model")
        and hasattr(schema.get("cls"), "model_construct")
    )


def _model(schema: dict[str, Any]) -> core_schema.CoreSchema:
    cls = schema["cls"]
    fields = json_semantics(schema["schema"])
    extra = (schema.get("config") or {}).get("extra_fields_behavior")
    if extra and "extra_behavior" not in fields:
        fields = {**fields, "extra_behavior": extra}

    def build(value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> Any:
        if isinstance(value, cls):
            return value
        data, model_extra, fields_set = handler(value)
        if model_extra:
            data = {**data, **model_extra}
        return cls.model_construct(_fields_set=fields_set, **data)

    out = core_schema.no_info_wrap_validator_function(build, fields)
    if "ref" in schema:
        out["ref"] = schema["ref"]
    return out
