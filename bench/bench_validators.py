"""Validator benchmarks for schema-only tools: jsonschema-rs vs fastjsonschema vs pydantic-core.

Schema-only tools (a JSON Schema plus a handler, no Python signature) are validated with
jsonschema-rs. This compares it, on the same inputs and in the same process run, with
fastjsonschema (generated Python code) and with pydantic-core driven by a model generated from
the JSON Schema (``pydantic.create_model``; only a subset of JSON Schema translates).
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union

from _harness import (
    TIMES,
    BatchCase,
    compare_batch_us,
    compare_us,
    format_value,
    render_table,
)
from _workload import ADD_ARGS, ADD_SCHEMA, load_bfcl_schemas

BFCL_SCHEMAS = 200

WEATHER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit", "kelvin"]},
        "location": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "country": {"type": "string"},
                "lat": {"type": "number"},
                "lon": {"type": "number"},
            },
            "required": ["city"],
        },
        "tags": {"type": "array", "items": {"type": "string"}},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "include_forecast": {"type": "boolean"},
    },
    "required": ["query", "unit", "location"],
    "additionalProperties": False,
}
WEATHER_VALID: dict[str, Any] = {
    "query": "weekend outlook",
    "unit": "celsius",
    "location": {"city": "Lyon", "country": "FR", "lat": 45.76, "lon": 4.84},
    "tags": ["outdoor", "cycling"],
    "limit": 5,
}
# Seven violations, each invalid for JSON Schema and for pydantic's lax mode alike:
# minLength, enum, missing nested required, nested type, array item type, maximum, extra key.
WEATHER_INVALID: dict[str, Any] = {
    "query": "",
    "unit": "rankine",
    "location": {"lat": "north"},
    "tags": ["outdoor", 3],
    "limit": 500,
    "extra": True,
}
# A draft 2020-12-only keyword: `prefixItems`. Earlier drafts ignore it (unknown keyword) and
# accept the instance; a 2020-12 validator rejects it.
DRAFT_2020_12_PROBE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "array",
    "prefixItems": [{"type": "integer"}],
}
DRAFT_2020_12_INVALID: list[Any] = ["not an integer"]


def version_of(distribution: str) -> str:
    """Installed version of ``distribution``, or ``"?"``."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"


# --------------------------------------------------------------------------- JSON Schema -> model


def _constrained(base: type[Any], schema: dict[str, Any]) -> Any:
    """``base`` annotated with the numeric/string constraints found in ``schema``."""
    from pydantic import Field

    keys = {
        "minimum": "ge",
        "maximum": "le",
        "exclusiveMinimum": "gt",
        "exclusiveMaximum": "lt",
        "minLength": "min_length",
        "maxLength": "max_length",
        "pattern": "pattern",
    }
    constraints = {arg: schema[key] for key, arg in keys.items() if key in schema}
    return Annotated[base, Field(**constraints)] if constraints else base


def _annotation(schema: Any, name: str) -> Any:
    """Python annotation equivalent to a (simple) JSON Schema node; ``Any`` when unsupported."""
    if not isinstance(schema, dict):
        return Any
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str | int | bool) for v in enum):
        return Literal[tuple(enum)]
    kind = schema.get("type")
    if isinstance(kind, list):
        members = tuple(_annotation({**schema, "type": k}, name) for k in kind)
        return Union[members] if members else Any  # noqa: UP007 - built dynamically
    simple = {"integer": int, "number": float, "string": str, "boolean": bool}
    if kind in simple:
        return _constrained(simple[kind], schema)
    if kind == "null":
        return None
    if kind == "array":
        return list[_annotation(schema.get("items", {}), f"{name}_item")]  # type: ignore[misc]
    if kind == "object" and isinstance(schema.get("properties"), dict):
        return model_from_schema(schema, name)
    if kind == "object":
        return dict[str, Any]
    return Any


def model_from_schema(schema: dict[str, Any], name: str = "Arguments") -> Any:
    """Build a pydantic model validating dicts that match a simple JSON object schema.

    Properties become fields (aliased, so any property name works); properties not listed in
    ``required`` become ``Optional`` with default ``None``; ``additionalProperties: false`` maps
    to ``extra="forbid"``. Keywords without a pydantic equivalent are ignored.
    """
    from pydantic import ConfigDict, Field, create_model

    required = set(schema.get("required", []))
    fields: dict[str, Any] = {}
    for index, (prop, sub) in enumerate(schema.get("properties", {}).items()):
        annotation = _annotation(sub, f"{name}_{index}")
        if prop in required:
            fields[f"f{index}"] = (annotation, Field(alias=prop))
        else:
            fields[f"f{index}"] = (annotation | None, Field(None, alias=prop))
    extra: Literal["forbid", "ignore"] = (
        "forbid" if schema.get("additionalProperties") is False else "ignore"
    )
    return create_model(name, __config__=ConfigDict(extra=extra), **fields)


# --------------------------------------------------------------------------- validator adapters


@dataclass
class Adapter:
    """How one library compiles a schema, accepts valid input and reports invalid input."""

    name: str
    compile: Callable[[dict[str, Any]], Any]
    validate: Callable[[Any, Any], Any]
    errors: Callable[[Any, Any], int]
    is_valid: Callable[[Any, Any], bool] | None = None
    first_error: Callable[[Any, Any], int] | None = None
    speaks_json_schema: bool = True
    status: str = ""
    notes: dict[str, str] = field(default_factory=dict)


def _jsonschema_rs() -> Adapter:
    """Adapter for jsonschema-rs (``validator_for`` picks the draft, 2020-12 by default)."""
    import jsonschema_rs

    def first_error(validator: Any, data: Any) -> int:
        try:
            validator.validate(data)
        except jsonschema_rs.ValidationError:
            return 1
        return 0

    return Adapter(
        name=f"jsonschema-rs {version_of('jsonschema-rs')}",
        compile=jsonschema_rs.validator_for,
        validate=lambda v, data: v.validate(data),
        errors=lambda v, data: sum(1 for _ in v.iter_errors(data)),
        is_valid=lambda v, data: v.is_valid(data),
        first_error=first_error,
        notes={
            "errors": "all (`iter_errors`), or first (`validate` raises)",
            "drafts": "4, 6, 7, 2019-09, 2020-12",
        },
    )


def _fastjsonschema() -> Adapter:
    """Adapter for fastjsonschema (compiles the schema to Python source)."""
    import fastjsonschema

    def first_error(validate: Any, data: Any) -> int:
        try:
            validate(data)
        except fastjsonschema.JsonSchemaValueException:
            return 1
        return 0

    return Adapter(
        name=f"fastjsonschema {version_of('fastjsonschema')}",
        compile=fastjsonschema.compile,
        validate=lambda validate, data: validate(data),
        errors=first_error,
        first_error=first_error,
        notes={"errors": "first only (raises)", "drafts": "4, 6, 7"},
    )


def _pydantic() -> Adapter:
    """Adapter for pydantic-core, through a model generated from the JSON Schema."""
    from pydantic import ValidationError

    def all_errors(model: Any, data: Any) -> int:
        try:
            model.model_validate(data)
        except ValidationError as exc:
            return len(exc.errors())
        return 0

    return Adapter(
        name=f"pydantic-core {version_of('pydantic-core')} (generated model)",
        compile=model_from_schema,
        validate=lambda model, data: model.model_validate(data),
        errors=all_errors,
        speaks_json_schema=False,
        notes={"errors": "all (`ValidationError.errors()`)", "drafts": "n/a (subset translated)"},
    )


def load_adapters() -> list[Adapter]:
    """Every adapter, with a status instead of callables for libraries that are missing."""
    adapters = []
    for factory, distribution in (
        (_jsonschema_rs, "jsonschema-rs"),
        (_fastjsonschema, "fastjsonschema"),
        (_pydantic, "pydantic"),
    ):
        try:
            adapters.append(factory())
        except ImportError:
            adapters.append(
                Adapter(distribution, _missing, _missing, _missing, status="not installed")
            )
    return adapters


def _missing(*_: Any) -> Any:
    """Stand-in for the callables of a library that is not installed."""
    raise RuntimeError("not installed")


# --------------------------------------------------------------------------- measurements


def _cell(value: float | None, base: float | None, unit: str = "µs") -> str:
    """``value`` with its ratio to ``base``."""
    if value is None:
        return "n/a"
    if not base:
        return format_value(value, unit)
    return f"{format_value(value, unit)} ({value / base:.2f}{TIMES})"


def time_valid(adapters: list[Adapter], schema: dict[str, Any], data: Any) -> dict[str, float]:
    """µs per validation of valid ``data``: ``<name>`` (full validate) and ``<name>:is_valid``."""
    cases: dict[str, Callable[[], Any]] = {}
    for adapter in adapters:
        if adapter.status:
            continue
        compiled = adapter.compile(schema)
        adapter.validate(compiled, data)  # must accept valid input (raises otherwise)
        cases[adapter.name] = _bind(adapter.validate, compiled, data)
        if adapter.is_valid is not None:
            cases[f"{adapter.name}:is_valid"] = _bind(adapter.is_valid, compiled, data)
    return compare_us(cases)


def time_invalid(
    adapters: list[Adapter], schema: dict[str, Any], data: Any
) -> tuple[dict[str, float], dict[str, int]]:
    """µs per rejection of invalid ``data`` (collecting errors) and the error count reported."""
    cases: dict[str, Callable[[], Any]] = {}
    counts: dict[str, int] = {}
    for adapter in adapters:
        if adapter.status:
            continue
        compiled = adapter.compile(schema)
        counts[adapter.name] = adapter.errors(compiled, data)
        cases[adapter.name] = _bind(adapter.errors, compiled, data)
        if adapter.is_valid is not None:
            cases[f"{adapter.name}:is_valid"] = _bind(adapter.is_valid, compiled, data)
        if adapter.first_error is not None:
            cases[f"{adapter.name}:first"] = _bind(adapter.first_error, compiled, data)
    return compare_us(cases), counts


def _bind(fn: Callable[[Any, Any], Any], compiled: Any, data: Any) -> Callable[[], Any]:
    """A zero-argument call of ``fn(compiled, data)``."""
    return lambda: fn(compiled, data)


def time_compile(
    adapters: list[Adapter], schemas: list[dict[str, Any]]
) -> tuple[dict[str, float], dict[str, int], int]:
    """µs per schema compiled, over the schemas every library accepts; plus rejection counts."""
    live = [adapter for adapter in adapters if not adapter.status]
    rejected = dict.fromkeys((adapter.name for adapter in live), 0)
    common = []
    for schema in schemas:
        ok = True
        for adapter in live:
            try:
                adapter.compile(schema)
            except Exception:
                rejected[adapter.name] += 1
                ok = False
        if ok:
            common.append(schema)
    if not common:
        return {}, rejected, 0
    cases = {
        adapter.name: BatchCase(lambda: common, _compile_each(adapter), len(common), repeat=5)
        for adapter in live
    }
    return compare_batch_us(cases), rejected, len(common)


def _compile_each(adapter: Adapter) -> Callable[[list[dict[str, Any]]], None]:
    """A batch runner compiling every schema with ``adapter``."""

    def run(schemas: list[dict[str, Any]]) -> None:
        held = [adapter.compile(schema) for schema in schemas]
        del held

    return run


def supports_2020_12(adapter: Adapter) -> str:
    """Probe: does the library reject an instance only a draft 2020-12 validator rejects?"""
    if adapter.status:
        return adapter.status
    if not adapter.speaks_json_schema:
        return "n/a (not a JSON Schema validator)"
    try:
        compiled = adapter.compile(DRAFT_2020_12_PROBE)
        rejected = adapter.errors(compiled, DRAFT_2020_12_INVALID) > 0
    except Exception as exc:
        return f"no ({type(exc).__name__} on a 2020-12 schema)"
    return "yes (probe rejected)" if rejected else "no (probe accepted)"


# --------------------------------------------------------------------------- tables


def results_table(adapters: list[Adapter]) -> str:
    """Time every workload and render the comparison matrix."""
    base_name = adapters[0].name  # jsonschema-rs: what schema-only tools use today
    live = [a for a in adapters if not a.status]
    header = ["Workload", *(a.name for a in adapters)]
    body: list[list[str]] = []

    def matrix_row(label: str, times: dict[str, float], suffix: str = "") -> list[str]:
        base = times.get(f"{base_name}{suffix}")
        cells = []
        for adapter in adapters:
            key = f"{adapter.name}{suffix}"
            cells.append("not installed" if adapter.status else _cell(times.get(key), base))
        return [label, *cells]

    add_times = time_valid(live, ADD_SCHEMA, ADD_ARGS)
    body.append(matrix_row("(i) `add` {a:int, b:int}, valid: `validate`", add_times))
    body.append(matrix_row("(i) ... `is_valid` only", add_times, ":is_valid"))
    weather_times = time_valid(live, WEATHER_SCHEMA, WEATHER_VALID)
    body.append(matrix_row("(ii) 6-property schema, valid: `validate`", weather_times))
    body.append(matrix_row("(ii) ... `is_valid` only", weather_times, ":is_valid"))
    invalid_times, counts = time_invalid(live, WEATHER_SCHEMA, WEATHER_INVALID)
    body.append(matrix_row("(iii) invalid input (7 faults), collect errors", invalid_times))
    body.append(matrix_row("(iii) ... first error only (raise)", invalid_times, ":first"))
    body.append(matrix_row("(iii) ... `is_valid` only", invalid_times, ":is_valid"))
    body.append(["(iii) errors reported", *(str(counts.get(a.name, "n/a")) for a in adapters)])
    schemas = load_bfcl_schemas(BFCL_SCHEMAS)
    compile_times, rejected, used = time_compile(live, schemas)
    body.append(matrix_row(f"(iv) compile, per schema ({used} BFCL definitions)", compile_times))
    body.append(
        [
            f"(iv) rejected of {len(schemas)}",
            *(str(rejected.get(a.name, "n/a")) for a in adapters),
        ]
    )
    title = "Schema-only validation: µs per operation, ratio to jsonschema-rs in the same row"
    return f"#### {title}\n\n{render_table(header, body)}"


def capabilities_table(adapters: list[Adapter]) -> str:
    """Render which drafts each library supports and how it reports errors."""
    header = ["Validator", "Draft 2020-12 (probe)", "Drafts", "Errors on invalid input"]
    body = [
        [
            a.name,
            supports_2020_12(a),
            a.notes.get("drafts", "n/a"),
            a.notes.get("errors", "n/a"),
        ]
        for a in adapters
    ]
    return f"#### Validator capabilities\n\n{render_table(header, body)}"


def run() -> Iterator[str]:
    """Run the validator benchmarks, yielding each rendered Markdown table."""
    adapters = load_adapters()
    yield results_table(adapters)
    yield capabilities_table(adapters)


def main() -> None:
    """Print the validator tables."""
    for table in run():
        print(table, end="\n\n", flush=True)


if __name__ == "__main__":
    main()
