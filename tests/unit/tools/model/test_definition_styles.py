"""One tool, every way of defining it: all styles must behave identically."""

import asyncio
import copy
from collections.abc import Callable
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from forge.tools import (
    BaseTool,
    ErrorKind,
    ExecutionContext,
    ToolCategory,
    ToolParameter,
    ToolRegistry,
    ToolResult,
    ToolValidationError,
    create_tool,
    tool,
)

Unit = Literal["c", "f"]

NAME = "get_weather"
DESCRIPTION = "Get the current weather for a location."
LOCATION_DOC = "City name, e.g. Paris."
UNIT_DOC = "Temperature unit."

EXPECTED_DEFINITION = {
    "name": NAME,
    "description": DESCRIPTION,
    "parameters": {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": LOCATION_DOC},
            "unit": {"type": "string", "description": UNIT_DOC, "enum": ["c", "f"], "default": "c"},
        },
        "required": ["location"],
        "additionalProperties": False,
    },
}
# From the ``-> str`` of the typed styles; declared by the others. Only MCP carries it.
OUTPUT_SCHEMA = {"type": "string"}
EXPECTED_NEUTRAL = {**EXPECTED_DEFINITION, "output_schema": OUTPUT_SCHEMA}


def _report(location: str, unit: str) -> str:
    return f"{location}: 20 degrees {unit}"


# 1. Decorator on a typed function with a Google docstring.
@tool
def get_weather(location: str, unit: Unit = "c") -> str:
    """Get the current weather for a location.

    Args:
        location: City name, e.g. Paris.
        unit: Temperature unit.
    """
    return _report(location, unit)


# 2. BaseTool subclass.
class WeatherTool(BaseTool):
    """The weather tool as a BaseTool class."""

    output_schema = OUTPUT_SCHEMA

    @property
    def name(self) -> str:
        return NAME

    @property
    def description(self) -> str:
        return DESCRIPTION

    @property
    def category(self) -> ToolCategory:
        return ToolCategory.WEB

    @property
    def parameters(self) -> list[ToolParameter]:
        return [
            ToolParameter(name="location", type="string", description=LOCATION_DOC),
            ToolParameter(
                name="unit",
                type="string",
                description=UNIT_DOC,
                required=False,
                default="c",
                enum=["c", "f"],
            ),
        ]

    async def _execute(self, context: ExecutionContext, **kwargs: Any) -> ToolResult:
        return ToolResult.ok(_report(kwargs["location"], kwargs.get("unit", "c")))


# 3. Builder with a pydantic model schema.
# (No class docstring: pydantic would put it in the schema as the object's "description".)
class WeatherInput(BaseModel):
    location: str = Field(description=LOCATION_DOC)
    unit: Unit = Field("c", description=UNIT_DOC)


def weather_from_model(params: WeatherInput) -> str:
    """Builder handler that receives the validated model instance."""
    return _report(params.location, params.unit)


# 4. Builder without a schema: the types come from the implementation.
def weather_impl(
    location: Annotated[str, Field(description=LOCATION_DOC)],
    unit: Annotated[Unit, Field(description=UNIT_DOC)] = "c",
) -> str:
    """Builder handler whose signature is the schema."""
    return _report(location, unit)


# 5-7. Records.
def weather_kwargs(location: str, unit: str = "c") -> str:
    """Record handler taking keyword arguments."""
    return _report(location, unit)


def weather_args(args: dict[str, Any]) -> str:
    """Record handler taking one arguments dict (the plain-record convention)."""
    return _report(args["location"], args.get("unit", "c"))


JSON_SCHEMA = EXPECTED_DEFINITION["parameters"]


def _decorator() -> Any:
    return get_weather


def _base_tool() -> Any:
    return WeatherTool()


def _builder_with_model() -> Any:
    return (
        create_tool()
        .name(NAME)
        .description(DESCRIPTION)
        .category(ToolCategory.WEB)
        .schema(WeatherInput)
        .implement(weather_from_model)
        .build()
    )


def _builder_from_implementation() -> Any:
    return (
        create_tool()
        .name(NAME)
        .description(DESCRIPTION)
        .category("web")
        .implement(weather_impl)
        .build()
    )


def _record_parameters() -> Any:
    return {
        "name": NAME,
        "description": DESCRIPTION,
        "parameters": copy.deepcopy(JSON_SCHEMA),
        "handler": weather_kwargs,
        "output_schema": OUTPUT_SCHEMA,
    }


def _record_mcp() -> Any:
    return {
        "name": NAME,
        "description": DESCRIPTION,
        "inputSchema": copy.deepcopy(JSON_SCHEMA),
        "handler": weather_args,
        "outputSchema": OUTPUT_SCHEMA,
    }


def _record_parameter_list() -> Any:
    return {
        "name": NAME,
        "description": DESCRIPTION,
        "parameters": [
            {"name": "location", "type": "string", "required": True, "description": LOCATION_DOC},
            {
                "name": "unit",
                "type": "string",
                "required": False,
                "description": UNIT_DOC,
                "default": "c",
                "enum": ["c", "f"],
            },
        ],
        "handler": weather_args,
        "outputSchema": OUTPUT_SCHEMA,
    }


STYLES: dict[str, Callable[[], Any]] = {
    "decorator": _decorator,
    "base_tool": _base_tool,
    "builder_model": _builder_with_model,
    "builder_implementation": _builder_from_implementation,
    "record_parameters": _record_parameters,
    "record_mcp_input_schema": _record_mcp,
    "record_parameter_list": _record_parameter_list,
}


@pytest.fixture(params=sorted(STYLES))
def registry(request: pytest.FixtureRequest) -> ToolRegistry:
    """A fresh registry holding the weather tool defined in one style."""
    reg = ToolRegistry()
    reg.register(STYLES[request.param]())
    return reg


def test_every_style_registers_the_same_definition() -> None:
    """All seven styles produce definitions that are equal as dicts."""
    definitions = {}
    for style, make in STYLES.items():
        reg = ToolRegistry()
        reg.register(make())
        definitions[style] = reg.definitions()
    first = definitions["decorator"]
    assert all(d == first for d in definitions.values()), definitions
    assert first == [EXPECTED_NEUTRAL]


def test_definition_matches_expected(registry: ToolRegistry) -> None:
    """Each style's registered definition is exactly the expected name, description and schema."""
    assert registry.names() == [NAME]
    assert registry.definitions() == [EXPECTED_NEUTRAL]


def test_openai_format_matches(registry: ToolRegistry) -> None:
    """Each style converts to the same OpenAI tool definition."""
    assert registry.get_or_raise(NAME).to_openai_schema() == {
        "type": "function",
        "function": EXPECTED_DEFINITION,
    }


def test_executes_with_default(registry: ToolRegistry) -> None:
    """Each style runs {"location": "Paris"} to the same output, using the default unit."""
    result = registry.execute(NAME, {"location": "Paris"})
    assert result.success is True
    assert result.output == "Paris: 20 degrees c"
    assert result.tool_name == NAME


def test_executes_with_explicit_enum_value(registry: ToolRegistry) -> None:
    """Each style passes an allowed enum value through to the handler."""
    result = registry.execute(NAME, {"location": "Paris", "unit": "f"})
    assert result.output == "Paris: 20 degrees f"


def test_async_execution_matches(registry: ToolRegistry) -> None:
    """Each style gives the same output through the async entry point."""
    result = asyncio.run(registry.aexecute(NAME, {"location": "Paris"}))
    assert result.success is True
    assert result.output == "Paris: 20 degrees c"


def test_rejects_missing_location_and_bad_unit(registry: ToolRegistry) -> None:
    """Each style rejects {"unit": "k"}, naming the missing location and the bad unit."""
    with pytest.raises(ToolValidationError) as info:
        registry.execute(NAME, {"unit": "k"})
    err = info.value
    assert err.tool_name == NAME
    assert err.missing == ("location",)
    assert {(e.path, e.kind) for e in err.errors} == {("location", "missing"), ("unit", "enum")}
    assert "location" in str(err)
    assert "unit" in str(err)


def test_rejects_unknown_argument(registry: ToolRegistry) -> None:
    """Each style rejects an argument that is not in the schema."""
    with pytest.raises(ToolValidationError) as info:
        registry.execute(NAME, {"location": "Paris", "country": "FR"})
    assert [(e.path, e.kind) for e in info.value.errors] == [("country", "unexpected")]


def test_execute_all_reports_invalid_call_as_result(registry: ToolRegistry) -> None:
    """Each style's invalid call becomes a failed result naming both bad fields in a batch."""
    good, bad = registry.execute_all(
        [
            {"id": "a", "name": NAME, "arguments": {"location": "Paris"}},
            {"id": "b", "name": NAME, "arguments": {"unit": "k"}},
        ]
    )
    assert (good.success, good.output, good.call_id) == (True, "Paris: 20 degrees c", "a")
    assert (bad.success, bad.error_kind, bad.call_id) == (False, ErrorKind.INVALID_ARGUMENTS, "b")
    assert "location" in (bad.error or "")
    assert "unit" in (bad.error or "")
