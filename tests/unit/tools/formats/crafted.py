"""Tool definitions crafted after what real MCP servers ship, one per failure seen importing them.

Each is a plain record (the shape a configuration file or an MCP server gives),
so the same definitions feed the library tests and the command-line tests.
"""

from __future__ import annotations

from typing import Any

#: A description like the 2,000-3,400 character ones real servers ship (whole sentences).
LONG_DESCRIPTION = " ".join(
    f"Step {i}: the tool fetches the page, follows at most five redirects, strips scripts "
    "and styles, and converts what is left to markdown for the model to read."
    for i in range(1, 25)
)

_NODE = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "description": "The node's text."},
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
    },
    "required": ["label"],
}

#: name -> parameters schema (every tool has a short description unless noted).
SCHEMAS: dict[str, dict[str, Any]] = {
    "plain": {"type": "object", "properties": {"q": {"type": "string", "description": "Query."}},
              "required": ["q"]},
    # a tree: children of children (recursive $ref)
    "tree": {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
             "required": ["root"], "$defs": {"Node": _NODE}},
    # boolean sub-schemas
    "flags": {"type": "object", "properties": {
        "anything": True, "never": False, "q": {"type": "string"},
        "nested": {"type": "object", "properties": {"x": True}},
    }, "required": ["q"]},
    # draft 4: exclusiveMinimum true with minimum, a tuple, definitions
    "draft4": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
               "properties": {"n": {"$ref": "#/definitions/Positive"},
                              "pair": {"type": "array", "items": [{"type": "number"},
                                                                  {"type": "number"}]}},
               "definitions": {"Positive": {"type": "number", "minimum": 0,
                                            "exclusiveMinimum": True}}},
    # listed properties plus open extra keys: no strict mode can say it
    "open": {"type": "object", "properties": {"a": {"type": "string"}},
             "additionalProperties": True},
    # allOf of schemas that cannot be merged
    "merge": {"type": "object", "properties": {"a": {"allOf": [{"type": "string"},
                                                               {"type": "integer"}]}}},
    # the long description (its schema is plain)
    "fetch": {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}},
              "required": ["url"]},
}  # fmt: skip


def description(name: str) -> str:
    """The crafted tool's description."""
    return LONG_DESCRIPTION if name == "fetch" else f"The {name} tool."


def records(handler: Any) -> list[dict[str, Any]]:
    """Every crafted tool as a `forge.tools.from_record` mapping running ``handler``."""
    return [{"name": name, "description": description(name), "parameters": schema,
             "handler": handler} for name, schema in SCHEMAS.items()]  # fmt: skip


def config_entries() -> list[dict[str, Any]]:
    """Every crafted tool as a configuration-file definition (a mock implementation)."""
    return [{"name": name, "description": description(name), "parameters": schema,
             "implementation": {"type": "mock", "mock_response": "ok"}}
            for name, schema in SCHEMAS.items()]  # fmt: skip
