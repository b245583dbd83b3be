"""Parameters schemas generated from type hints and docstrings by ``@tool``.

Types used in the annotations of tool functions live at module level: the
schema generator resolves annotations against the function's globals.
"""

import asyncio
import dataclasses
import enum
from collections.abc import Callable
from typing import Annotated, Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from forge.core.errors import ToolDefinitionError, ToolValidationError
from forge.tools import ExecutionContext, Tool, ToolCategory, ToolRegistry, tool

# -- types used by the tool functions below --------------------------------------------


class Color(enum.Enum):
    """A colour."""

    RED = "red"
    GREEN = "green"


@dataclasses.dataclass
class Point:
    """A point on a grid."""

    x: int
    y: int = 0


class Movie(TypedDict):
    """A film."""

    title: str
    year: int


class Address(BaseModel):
    """A postal address."""

    street: str
    zip_code: str | None = None


class Person(BaseModel):
    """Someone with an address."""

    name: str
    address: Address


class TreeNode(BaseModel):
    """A node of a tree (a recursive model)."""

    value: int
    children: list["TreeNode"] = []


class Opaque:
    """A plain class pydantic cannot build a schema for."""


def _titles_on_properties(schema: Any) -> list[str]:
    """Return the property names (anywhere in ``schema``) whose schema has a "title"."""
    found: list[str] = []
    if isinstance(schema, dict):
        for name, sub in schema.get("properties", {}).items():
            if isinstance(sub, dict) and "title" in sub:
                found.append(name)
        for value in schema.values():
            found += _titles_on_properties(value)
    elif isinstance(schema, list):
        for value in schema:
            found += _titles_on_properties(value)
    return found


# -- golden schemas --------------------------------------------------------------------


def get_weather(city: str, days: int, metric: bool = True, threshold: float = 0.5) -> str:
    """Get the weather forecast for a city.

    Uses the national weather service.

    Args:
        city: The city name.
        days: How many days to forecast.
        metric: Use metric units.
    """
    return city


def test_scalar_types_golden_schema():
    """Scalars map to JSON types, defaults are shown and only defaultless params are required."""
    t = tool(get_weather)
    assert (
        t.description
        == "Get the weather forecast for a city.\n\nUses the national weather service."
    )
    assert t.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city name."},
            "days": {"type": "integer", "description": "How many days to forecast."},
            "metric": {"type": "boolean", "default": True, "description": "Use metric units."},
            "threshold": {"type": "number", "default": 0.5},
        },
        "required": ["city", "days"],
        "additionalProperties": False,
    }


def search_items(
    query: str,
    tags: list[str],
    weights: dict[str, int],
    owner: Optional[str],  # noqa: UP045 - the typing.Optional spelling is under test
    cursor: str | None = None,
    unit: Literal["celsius", "fahrenheit"] = "celsius",
    level: Literal[1, 2] = 1,
    limit: Annotated[int, Field(ge=0, le=100, description="At most this many.")] = 10,
) -> list[str]:
    """Search the catalogue."""
    return tags


def test_containers_optional_literal_annotated_golden_schema():
    """Containers, Optional, Literal and Annotated[..., Field] give the expected schema."""
    assert tool(search_items).parameters == {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "weights": {"type": "object", "additionalProperties": {"type": "integer"}},
            "owner": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "cursor": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
            "level": {"type": "integer", "enum": [1, 2], "default": 1},
            "limit": {
                "type": "integer",
                "minimum": 0,
                "maximum": 100,
                "description": "At most this many.",
                "default": 10,
            },
        },
        "required": ["query", "tags", "weights", "owner"],
        "additionalProperties": False,
    }


def paint(color: Color, where: Point, film: Movie, fallback: Color = Color.RED) -> str:
    """Paint something."""
    return color.value


def test_enum_dataclass_typeddict_golden_schema():
    """An Enum, a dataclass and a TypedDict become $defs entries described by their docstrings."""
    assert tool(paint).parameters == {
        "type": "object",
        "$defs": {
            "Color": {
                "type": "string",
                "enum": ["red", "green"],
                "title": "Color",
                "description": "A colour.",
            },
            "Point": {
                "type": "object",
                "title": "Point",
                "description": "A point on a grid.",
                "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
                "required": ["x"],
            },
            "Movie": {
                "type": "object",
                "title": "Movie",
                "description": "A film.",
                "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
                "required": ["title", "year"],
            },
        },
        "properties": {
            "color": {"$ref": "#/$defs/Color"},
            "where": {"$ref": "#/$defs/Point"},
            "film": {"$ref": "#/$defs/Movie"},
            "fallback": {"$ref": "#/$defs/Color", "default": "red"},
        },
        "required": ["color", "where", "film"],
        "additionalProperties": False,
    }


def register_person(person: Person, tree: TreeNode | None = None) -> str:
    """Register a person."""
    return person.name


def test_nested_and_recursive_models_golden_schema():
    """Nested pydantic models are $defs entries; a recursive model refers to itself."""
    assert tool(register_person).parameters == {
        "type": "object",
        "$defs": {
            "Address": {
                "type": "object",
                "title": "Address",
                "description": "A postal address.",
                "properties": {
                    "street": {"type": "string"},
                    "zip_code": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                },
                "required": ["street"],
            },
            "Person": {
                "type": "object",
                "title": "Person",
                "description": "Someone with an address.",
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/Address"},
                },
                "required": ["name", "address"],
            },
            "TreeNode": {
                "type": "object",
                "title": "TreeNode",
                "description": "A node of a tree (a recursive model).",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {
                        "type": "array",
                        "items": {"$ref": "#/$defs/TreeNode"},
                        "default": [],
                    },
                },
                "required": ["value"],
            },
        },
        "properties": {
            "person": {"$ref": "#/$defs/Person"},
            "tree": {"anyOf": [{"$ref": "#/$defs/TreeNode"}, {"type": "null"}], "default": None},
        },
        "required": ["person"],
        "additionalProperties": False,
    }


# -- shape rules -----------------------------------------------------------------------


@pytest.mark.parametrize("fn", [get_weather, search_items, paint, register_person])
def test_top_level_shape(fn):
    """Every generated schema is a closed object with no auto-generated property titles."""
    schema = tool(fn).parameters
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert "title" not in schema
    assert _titles_on_properties(schema) == []


def only_defaults(a: int = 1, b: str | None = None) -> int:
    """Take only optional parameters."""
    return a


def test_no_required_parameters():
    """A function whose parameters all have defaults requires nothing."""
    schema = tool(only_defaults).parameters
    assert schema.get("required", []) == []
    assert schema["properties"]["b"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "default": None,
    }


def test_nested_model_arguments_are_validated_into_instances():
    """A nested and recursive model argument is validated and built as model instances."""
    args = tool(register_person).validate(
        {
            "person": {"name": "Ada", "address": {"street": "Main St"}},
            "tree": {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]},
        }
    )
    assert args["person"] == Person(name="Ada", address=Address(street="Main St"))
    assert isinstance(args["tree"], TreeNode)
    assert args["tree"].children[0].children[0].value == 3


def test_enum_dataclass_typeddict_arguments_are_converted():
    """Enum, dataclass and TypedDict arguments reach the handler as those types."""
    args = tool(paint).validate(
        {"color": "green", "where": {"x": 1}, "film": {"title": "Up", "year": 2009}}
    )
    assert args == {
        "color": Color.GREEN,
        "where": Point(x=1, y=0),
        "film": {"title": "Up", "year": 2009},
        "fallback": Color.RED,
    }


# -- docstrings ------------------------------------------------------------------------


def google_style(city: str, days: int = 3) -> str:
    """Get the weather forecast.

    Uses the national service.

    Args:
        city: The city name.
        days: How many days.

    Returns:
        The forecast.
    """
    return city


def numpy_style(city: str, days: int = 3) -> str:
    """Get the weather forecast.

    Uses the national service.

    Parameters
    ----------
    city : str
        The city name.
    days : int
        How many days.

    Returns
    -------
    str
        The forecast.
    """
    return city


def rest_style(city: str, days: int = 3) -> str:
    """Get the weather forecast.

    Uses the national service.

    :param city: The city name.
    :param days: How many days.
    :returns: The forecast.
    """
    return city


@pytest.mark.parametrize("fn", [google_style, numpy_style, rest_style])
def test_docstring_styles(fn):
    """Google, NumPy and reST docstrings give the description and each parameter's description."""
    t = tool(fn)
    assert t.description == "Get the weather forecast.\n\nUses the national service."
    assert t.parameters["properties"] == {
        "city": {"type": "string", "description": "The city name."},
        "days": {"type": "integer", "default": 3, "description": "How many days."},
    }


def field_beats_docstring(
    count: Annotated[int, Field(description="From the Field.")],
    other: int,
) -> int:
    """Count things.

    Args:
        count: From the docstring.
        other: Other from the docstring.
    """
    return count


def test_field_description_wins_over_docstring():
    """A Field(description=...) takes precedence over the docstring's description."""
    props = tool(field_beats_docstring).parameters["properties"]
    assert props["count"]["description"] == "From the Field."
    assert props["other"]["description"] == "Other from the docstring."


def test_explicit_description_wins_over_docstring():
    """``@tool(description=...)`` replaces the docstring's description."""
    assert tool(description="Explicit.")(google_style).description == "Explicit."


def undocumented(x: int) -> int:
    return x


def test_missing_docstring_gives_empty_description():
    """A function without a docstring gets an empty description and no parameter descriptions."""
    t = tool(undocumented)
    assert t.description == ""
    assert t.parameters["properties"] == {"x": {"type": "integer"}}


# -- execution context -----------------------------------------------------------------


def ctx_plain(x: int, ctx: ExecutionContext) -> tuple[int, str | None]:
    """Use the context."""
    return x, ctx.session_id


def ctx_optional(x: int, ctx: ExecutionContext | None = None) -> tuple[int, str | None]:
    """Use the optional context."""
    assert isinstance(ctx, ExecutionContext)
    return x, ctx.session_id


def ctx_typing_optional(
    ctx: Optional[ExecutionContext],  # noqa: UP045 - the typing.Optional spelling is under test
    x: int,
) -> tuple[int, str | None]:
    """Use the context, declared first."""
    assert isinstance(ctx, ExecutionContext)
    return x, ctx.session_id


async def ctx_async(x: int, ctx: ExecutionContext) -> tuple[int, str | None]:
    """Use the context from a coroutine."""
    await asyncio.sleep(0)
    return x, ctx.session_id


CONTEXT_TOOLS = [ctx_plain, ctx_optional, ctx_typing_optional, ctx_async]


@pytest.mark.parametrize("fn", CONTEXT_TOOLS)
def test_context_parameter_is_hidden_from_schema(fn):
    """A parameter annotated with ExecutionContext is not part of the schema."""
    assert tool(fn).parameters == {
        "type": "object",
        "properties": {"x": {"type": "integer"}},
        "required": ["x"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize("fn", CONTEXT_TOOLS)
def test_context_is_injected_at_call(fn):
    """registry.execute passes the given context to the context parameter."""
    registry = ToolRegistry([tool(fn)])
    result = registry.execute(fn.__name__, {"x": 7}, context=ExecutionContext(session_id="s-1"))
    assert result.success, result.error
    assert result.output == (7, "s-1")


@pytest.mark.parametrize("fn", CONTEXT_TOOLS)
def test_default_context_is_injected_without_one(fn):
    """Without a context, the handler still receives a fresh ExecutionContext."""
    result = ToolRegistry([tool(fn)]).execute(fn.__name__, {"x": 1})
    assert result.success, result.error
    assert result.output == (1, None)


def test_model_cannot_supply_the_context():
    """An argument named like the context parameter is rejected as unexpected."""
    with pytest.raises(ToolValidationError) as info:
        tool(ctx_plain).validate({"x": 1, "ctx": {"session_id": "forged"}})
    assert [(e.path, e.kind) for e in info.value.errors] == [("ctx", "unexpected")]


# -- async -----------------------------------------------------------------------------


async def fetch(url: str, retries: int = 2) -> str:
    """Fetch a URL.

    Args:
        url: Where to fetch from.
    """
    await asyncio.sleep(0)
    return f"{url}#{retries}"


def test_async_function_schema_and_execution():
    """An async function gets the same schema and runs through both entry points."""
    t = tool(fetch)
    assert t.is_async
    assert t.description == "Fetch a URL."
    assert t.parameters == {
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "Where to fetch from."},
            "retries": {"type": "integer", "default": 2},
        },
        "required": ["url"],
        "additionalProperties": False,
    }
    registry = ToolRegistry([t])
    assert registry.execute("fetch", {"url": "u"}).output == "u#2"
    assert asyncio.run(registry.aexecute("fetch", {"url": "v", "retries": 3})).output == "v#3"


# -- decorator forms -------------------------------------------------------------------


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(name="multiply-numbers", description="Multiply.", category="utility", tags=["math"])
def multiply(a: float, b: float) -> float:
    """Ignored docstring."""
    return a * b


def test_bare_decorator():
    """``@tool`` returns a Tool named after the function that can still be called directly."""
    assert isinstance(add, Tool)
    assert add.name == "add"
    assert add.description == "Add two integers."
    assert add(2, 3) == 5
    assert add(a=2, b=4) == 6


def test_decorator_with_arguments():
    """``@tool(name=..., description=..., category=..., tags=...)`` sets those fields."""
    assert isinstance(multiply, Tool)
    assert multiply.name == "multiply-numbers"
    assert multiply.description == "Multiply."
    assert multiply.category is ToolCategory.UTILITY
    assert multiply.tags == ("math",)
    assert multiply(2.0, 1.5) == 3.0
    assert ToolRegistry([multiply]).execute("multiply-numbers", {"a": 2, "b": 4}).output == 8


def test_async_tool_is_still_callable():
    """Calling an async Tool directly returns the coroutine of the function."""
    assert asyncio.run(tool(fetch)("x", retries=0)) == "x#0"


# -- definition errors -----------------------------------------------------------------


def with_varargs(*values: int) -> int:
    """Sum values."""
    return sum(values)


def with_positional_only(x: int, /) -> int:
    """Positional-only."""
    return x


def with_opaque(thing: Opaque) -> str:
    """Takes an opaque object."""
    return repr(thing)


def with_callable(fn: Callable[[], int]) -> int:
    """Takes a callable."""
    return fn()


def test_varargs_rejected():
    """``*args`` cannot be filled from a JSON object and is rejected when decorated."""
    with pytest.raises(ToolDefinitionError) as info:
        tool(with_varargs)
    assert info.value.tool_name == "with_varargs"
    assert "*values" in info.value.message
    assert "list parameter" in info.value.message


def test_positional_only_rejected():
    """A positional-only parameter is rejected when decorated, saying to remove the '/'."""
    with pytest.raises(ToolDefinitionError) as info:
        tool(with_positional_only)
    assert info.value.tool_name == "with_positional_only"
    assert "'x'" in info.value.message
    assert "positional-only" in info.value.message
    assert "'/'" in info.value.message


def test_unresolvable_annotation_rejected_at_compile():
    """A string annotation naming a local type fails at compile() with how to fix it."""

    class Local:
        pass

    def uses_local(x: "Local") -> None:
        """Uses a local type."""

    t = tool(uses_local)
    with pytest.raises(ToolDefinitionError) as info:
        t.compile()
    assert info.value.tool_name == "uses_local"
    assert "Local" in info.value.message
    assert "module level" in info.value.message


def test_unschemable_type_rejected_at_compile():
    """A plain class cannot become a schema: compile() names the tool and the type."""
    t = tool(with_opaque)
    with pytest.raises(ToolDefinitionError) as info:
        t.compile()
    assert info.value.tool_name == "with_opaque"
    assert "Opaque" in info.value.message
    assert "cannot build a schema" in info.value.message


def test_type_without_json_schema_rejected_at_compile():
    """A type pydantic validates but cannot express as JSON Schema fails at compile()."""
    with pytest.raises(ToolDefinitionError) as info:
        tool(with_callable).compile()
    assert info.value.tool_name == "with_callable"
    assert "JSON Schema" in info.value.message


def test_parameters_property_raises_definition_error_too():
    """Reading .parameters of an unschemable tool raises ToolDefinitionError, not pydantic's."""
    with pytest.raises(ToolDefinitionError):
        _ = tool(with_opaque).parameters


# -- names -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["has spaces", "math.factorial", "", "x" * 65, "1st_tool", "tab\tname", "new\nline"]
)
def test_invalid_names_rejected(name):
    """Names outside ^[A-Za-z_][A-Za-z0-9_-]{0,63}$ are rejected, quoting the name."""
    with pytest.raises(ToolDefinitionError) as info:
        tool(name=name)(add.handler)
    assert repr(name) in str(info.value)
    assert "^[A-Za-z_][A-Za-z0-9_-]{0,63}$" in str(info.value)


@pytest.mark.parametrize("name", ["kebab-case-name", "snake_case_name", "_private", "x" * 64])
def test_valid_names_accepted(name):
    """kebab-case, snake_case, a leading underscore and 64 characters are all valid."""
    assert tool(name=name)(add.handler).name == name
