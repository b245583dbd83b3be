"""Schema mistakes raise the documented errors, naming the tool."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from forge.core.errors import SchemaConversionError, ToolDefinitionError
from forge.tools import ToolRegistry, from_record


def handler(**_: Any) -> int:
    return 1


def record(parameters: Any) -> dict[str, Any]:
    return {"name": "probe", "description": "d", "parameters": parameters, "handler": handler}


def test_a_parameter_list_of_lists_is_a_definition_error() -> None:
    """``parameters: [[1]]`` names the tool and the bad entry instead of an AttributeError."""
    with pytest.raises(ToolDefinitionError, match="each parameter must be a mapping") as caught:
        from_record(record([[1]]))
    assert caught.value.tool_name == "probe"


@pytest.mark.parametrize("uri", ["{{", "not a uri at all", "urn:example:unknown-meta"])
def test_a_bad_schema_uri_is_a_definition_error(uri: str) -> None:
    """A ``$schema`` that is not a URI or not a known draft is a ToolDefinitionError."""
    with pytest.raises(ToolDefinitionError, match=r"\$schema") as caught:
        from_record(record({"$schema": uri, "type": "object"}))
    assert caught.value.tool_name == "probe"


class _Counting(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"type": "object"}')

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def meta_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/meta"
    server.shutdown()
    server.server_close()


def test_an_unknown_meta_schema_is_never_fetched(meta_server: str) -> None:
    """A ``$schema`` URL is refused without a request: definitions never cause network access."""
    with pytest.raises(ToolDefinitionError, match="never fetched"):
        from_record(record({"$schema": meta_server, "type": "object"}))
    assert _Counting.hits == []


SELF_REFS = {
    "property": {"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}},
    "defs": {
        "type": "object",
        "$defs": {"n": {"$ref": "#/$defs/m"}, "m": {"$ref": "#/$defs/n"}},
        "properties": {"a": {"$ref": "#/$defs/n"}},
    },
}


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "mistral"])
@pytest.mark.parametrize("schema", list(SELF_REFS.values()), ids=list(SELF_REFS))
def test_strict_export_of_a_reference_cycle(provider: str, schema: dict[str, Any]) -> None:
    """A ``$ref`` that only refers to itself is a SchemaConversionError, or a fallback report."""
    registry = ToolRegistry([from_record(record(schema))])
    with pytest.raises(SchemaConversionError) as caught:
        registry.to_provider(provider, strict=True, errors="raise")
    assert caught.value.tool_name == "probe"
    assert caught.value.keyword == "$ref"
    [definition] = registry.to_provider(provider, strict=True)
    assert "probe" in str(definition)


@pytest.mark.parametrize(
    "node", [{"const": float("inf")}, {"type": "number", "maximum": float("nan")},
             {"enum": [1.0, float("-inf")]}, {"default": float("nan")}],
)  # fmt: skip
def test_nan_and_infinities_in_a_schema_are_a_definition_error(node: dict[str, Any]) -> None:
    """A schema holding NaN or an infinity is refused: no provider's JSON can carry it."""
    with pytest.raises(ToolDefinitionError, match="NaN and infinities") as caught:
        from_record(record({"type": "object", "properties": {"a": node}}))
    assert caught.value.tool_name == "probe"


def deep_items(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        node = {"type": "array", "items": node}
    return node


@pytest.mark.parametrize(
    "parameters",
    [{"type": 10**5_000}, {"type": "object", "properties": {"a": deep_items(3_000)}},
     {"type": "object", "properties": {"a": {"type": "string", "enum": [10**5_000]}}}],
    ids=["huge-type", "deep", "huge-enum"],
)  # fmt: skip
def test_importing_a_hostile_schema_is_a_definition_error(parameters: dict[str, Any]) -> None:
    """normalize_definition refuses 5,000-digit values and 3,000-deep schemas by name."""
    from forge.tools.importers.normalize import normalize_definition

    with pytest.raises(ToolDefinitionError) as caught:
        normalize_definition({"name": "probe", "description": "d", "parameters": parameters})
    assert caught.value.tool_name == "probe"


DRAFT_4 = "http://json-schema.org/draft-04/schema#"


@pytest.mark.parametrize(
    "parameters",
    [{"type": 10**5_000},
     {"type": "object", "properties": {"a": {"type": "number", "maximum": 10**5_000}}},
     {"$schema": DRAFT_4, "type": "object",
      "properties": {"a": {"type": "number", "maximum": 10**5_000, "exclusiveMaximum": True}}}],
    ids=["type", "bound", "draft-4-bound"],
)  # fmt: skip
def test_a_5000_digit_integer_in_a_schema_is_a_definition_error(
    parameters: dict[str, Any],
) -> None:
    """A value past Python's integer-text limit is refused by name, not a ValueError."""
    with pytest.raises(ToolDefinitionError) as caught:
        from_record(record(parameters))
    assert caught.value.tool_name == "probe"
