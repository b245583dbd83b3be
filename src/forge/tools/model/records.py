"""Tools from plain records: parameter lists, MCP's ``inputSchema`` and JSON Schema spellings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from forge.core.errors import ToolDefinitionError
from forge.tools.model.options import OPTION_NAMES, reject_unknown, tool_fields
from forge.tools.model.tool import Tool, is_coroutine
from forge.tools.schema import check_name
from forge.tools.values.params import ToolParameter, parameters_schema

__all__ = ["from_record"]

_SCHEMA_KEYS = {"parameters", "inputSchema", "input_schema"}
_OUTPUT_KEYS = {"output_schema", "outputSchema"}
_KEYS = OPTION_NAMES | {"handler"} | _SCHEMA_KEYS | _OUTPUT_KEYS


def from_record(record: Mapping[str, Any]) -> Tool:
    """Build a `Tool` from a mapping.

    Required: ``name``, ``description`` and a callable ``handler``. The
    parameters come as ``parameters`` (a JSON Schema object, or a list
    of ``{name, type, required, description}``) or ``inputSchema`` (MCP);
    without them the tool takes no arguments. Every other option of
    `ToolOptions` (metadata, ``annotations`` in snake_case or as MCP hints,
    ``title``, ``timeout``, ``placement``, ...) and ``output_schema`` /
    ``outputSchema`` are optional. Any other key is rejected by name.
    """
    if not isinstance(record, Mapping):
        raise ToolDefinitionError(
            "<record>", f"a tool record must be a mapping, got {type(record).__name__}"
        )
    name = record.get("name")
    name = check_name(name)
    reject_unknown(name, record, _KEYS, "key(s) in tool record")
    description = record.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ToolDefinitionError(name, "a tool record needs a non-empty 'description' string")
    handler = record.get("handler")
    if not callable(handler):
        raise ToolDefinitionError(
            name, f"a tool record needs a callable 'handler', got {type(handler).__name__}"
        )
    rewrites: list[str] = []
    schema = _parameters(name, record, rewrites)
    from forge.tools.schema import SchemaSource, call_style

    options = {k: v for k, v in record.items() if k in OPTION_NAMES}
    options["placement"] = record.get("placement") or "auto"
    options["output_schema"] = _output_schema(name, record)
    fields = tool_fields(name, options)
    result = Tool(
        name=name,
        description=description,
        handler=handler,
        source=SchemaSource(
            schema,
            handler,
            call_style(name, handler, schema),
            is_coroutine(handler),
            tuple(rewrites),
        ),
        **fields,
    )
    if result.metadata.examples:
        result.compile()
    return result


def _parameters(name: str, record: Mapping[str, Any], rewrites: list[str]) -> dict[str, Any]:
    from forge.tools.schema import check_json_schema

    given = [k for k in _SCHEMA_KEYS if k in record]
    if len(given) > 1:
        raise ToolDefinitionError(
            name, f"give the parameters once, not as {' and '.join(sorted(given))}"
        )
    if not given:
        return {"type": "object", "properties": {}, "additionalProperties": False}
    value = record[given[0]]
    if isinstance(value, list | tuple):
        try:
            params = [
                p if isinstance(p, ToolParameter) else ToolParameter.from_mapping(p) for p in value
            ]
            return parameters_schema(params)
        except (TypeError, ValueError) as exc:
            raise ToolDefinitionError(name, f"invalid parameter list: {exc}") from None
    return check_json_schema(name, value, rewrites)


def _output_schema(name: str, record: Mapping[str, Any]) -> Any:
    """The output schema under either spelling (checked by `tool_fields`)."""
    given = [k for k in _OUTPUT_KEYS if k in record]
    if len(given) > 1:
        raise ToolDefinitionError(
            name, "give the output schema once, as output_schema or outputSchema"
        )
    return record[given[0]] if given else None
