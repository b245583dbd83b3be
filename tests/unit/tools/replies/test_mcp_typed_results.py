"""``format_results(..., "mcp", tools=...)``: outputs shaped by each tool's output schema."""

from __future__ import annotations

import json

import jsonschema_rs
import mcp_types as types
from pydantic import BaseModel, Field

from forge.tools import ToolRegistry, format_results, tool
from forge.tools.values.readonly import thaw


class Weather(BaseModel):
    city: str
    temp_c: float = Field(alias="tempC")


@tool
def weather(city: str) -> Weather:
    """The weather."""
    return Weather(city=city, tempC=21.5)


@tool
def greet(name: str) -> str:
    """A greeting."""
    return f"hello {name}"


@tool
def maybe(found: bool) -> Weather | None:
    """A weather, or nothing."""
    return Weather(city="Oslo", tempC=2) if found else None


@tool(output_schema=False)
def plain(name: str) -> str:
    """No output schema."""
    return name


REGISTRY = ToolRegistry([weather, greet, maybe, plain])


def _reply(name: str, arguments: dict[str, object]) -> dict[str, object]:
    call = {"id": "c1", "name": name, "arguments": arguments}
    (result,) = REGISTRY.execute_all([call])
    (reply,) = format_results([result], "mcp", tools=REGISTRY)
    listed = {t["name"]: t for t in REGISTRY.to_provider("mcp")}[name]
    parsed = types.CallToolResult.model_validate(reply)
    if "outputSchema" in listed:
        schema = thaw(listed["outputSchema"])
        assert jsonschema_rs.validator_for(schema).is_valid(parsed.structured_content)
    return reply


def test_an_object_output_uses_the_serializer_of_its_type() -> None:
    """A model goes as structuredContent with its aliases, and as the same JSON text."""
    reply = _reply("weather", {"city": "Paris"})
    assert reply["structuredContent"] == {"city": "Paris", "tempC": 21.5}
    assert json.loads(reply["content"][0]["text"]) == reply["structuredContent"]  # type: ignore[index]


def test_a_string_of_a_typed_tool_is_wrapped() -> None:
    """A ``-> str`` tool's text is also structuredContent, wrapped as the listing says."""
    reply = _reply("greet", {"name": "Ada"})
    assert reply["structuredContent"] == {"result": "hello Ada"}
    assert reply["_meta"] == {"forge-tools/wrapped": True}
    assert reply["content"] == [{"type": "text", "text": "hello Ada"}]


def test_a_union_is_wrapped_even_when_the_value_is_an_object() -> None:
    """The schema, not the value, decides the wrapping: ``Weather | None`` always wraps."""
    assert _reply("maybe", {"found": True})["structuredContent"] == {
        "result": {"city": "Oslo", "tempC": 2.0}
    }
    assert _reply("maybe", {"found": False})["structuredContent"] == {"result": None}


def test_without_a_schema_or_without_tools_nothing_changes() -> None:
    """A tool without a schema, or no ``tools``, keeps the plain format."""
    assert "structuredContent" not in _reply("plain", {"name": "x"})
    (result,) = REGISTRY.execute_all([{"id": "c", "name": "greet", "arguments": {"name": "x"}}])
    assert "structuredContent" not in format_results([result], "mcp")[0]


def test_a_cut_output_of_a_typed_tool_keeps_its_structured_content() -> None:
    """MCP clients require structuredContent from a tool with an output schema, even cut."""
    long = "word " * 1_000
    (result,) = REGISTRY.execute_all([{"id": "c", "name": "greet", "arguments": {"name": long}}])
    (reply,) = format_results([result], "mcp", tools=REGISTRY, limit=1_000)
    types.CallToolResult.model_validate(reply)
    assert reply["_meta"] == {"forge-tools/wrapped": True, "forge-tools/truncated": True}
    assert reply["structuredContent"] == {"result": f"hello {long}"}
    assert len(reply["content"][0]["text"]) <= 1_000  # type: ignore[index]
    (untyped,) = REGISTRY.execute_all([{"id": "c", "name": "plain", "arguments": {"name": long}}])
    assert (
        "structuredContent" not in format_results([untyped], "mcp", tools=REGISTRY, limit=1_000)[0]
    )
