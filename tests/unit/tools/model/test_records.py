"""Tools from plain records: parameter lists, MCP's inputSchema and JSON Schema."""

import asyncio
from typing import Any

import pytest

from forge.tools import (
    ToolAnnotations,
    ToolCategory,
    ToolDefinitionError,
    ToolParameter,
    ToolRegistry,
    ToolValidationError,
    from_record,
)

EMPTY_OBJECT = {"type": "object", "properties": {}, "additionalProperties": False}

HELLO_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "required": ["name"],
}


def args_handler(args: dict[str, Any]) -> dict[str, Any]:
    """Seed 002/003 style: one positional arguments dict."""
    return {"received": args}


def kwargs_handler(**kwargs: Any) -> dict[str, Any]:
    """Keyword style with **kwargs."""
    return {"received": kwargs}


def named_handler(name: str, greeting: str = "Hello") -> str:
    """Keyword style with named parameters."""
    return f"{greeting}, {name}!"


def no_args_handler() -> str:
    """A handler for a tool without parameters."""
    return "pong"


def _record(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"name": "hello", "description": "Say hello", "handler": args_handler}
    record.update(changes)
    return record


def test_seed_002_record() -> None:
    """A get_weather record with a parameter list registers, runs and names a missing location."""
    registry = ToolRegistry()
    registry.register(
        {
            "name": "get_weather",
            "description": "Get current weather for a location",
            "parameters": [{"name": "location", "type": "string", "required": True}],
            "handler": lambda args: {"temp": 72, "condition": "sunny"},
        }
    )
    assert registry.get_or_raise("get_weather").parameters == {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
        "additionalProperties": False,
    }
    result = registry.execute("get_weather", {"location": "San Francisco"})
    assert result.output == {"temp": 72, "condition": "sunny"}
    with pytest.raises(ToolValidationError) as info:
        registry.execute("get_weather", {})
    assert info.value.missing == ("location",)


def test_seed_003_record() -> None:
    """The MCP-style hello record registers with inputSchema and its dict-style handler works."""
    registry = ToolRegistry()
    registry.register(
        {
            "name": "hello",
            "description": "Say hello",
            "inputSchema": HELLO_SCHEMA,
            "handler": lambda args: f"Hello, {args['name']}!",
        }
    )
    assert registry.definitions() == [
        {"name": "hello", "description": "Say hello", "parameters": HELLO_SCHEMA}
    ]
    assert registry.execute("hello", {"name": "World"}).output == "Hello, World!"


def test_seed_002_parameter_list_with_all_keys() -> None:
    """A parameter list entry may carry description, default, enum and items."""
    built = from_record(
        _record(
            parameters=[
                {"name": "name", "type": "string", "required": True, "description": "Who"},
                {"name": "tone", "type": "string", "required": False, "enum": ["warm", "dry"]},
                {"name": "times", "type": "integer", "required": False, "default": 1},
                {"name": "tags", "type": "array", "required": False, "items": {"type": "string"}},
            ]
        )
    )
    assert built.parameters == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Who"},
            "tone": {"type": "string", "enum": ["warm", "dry"]},
            "times": {"type": "integer", "default": 1},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["name"],
        "additionalProperties": False,
    }


def test_input_schema_snake_case_spelling() -> None:
    """The Anthropic spelling input_schema is accepted too."""
    assert from_record(_record(input_schema=HELLO_SCHEMA)).parameters == HELLO_SCHEMA


def test_unknown_key_rejected_with_suggestion() -> None:
    """A misspelt key is rejected by name, with the close match suggested."""
    record = {"name": "hello", "descripton": "Say hello", "handler": args_handler}
    with pytest.raises(ToolDefinitionError) as info:
        from_record(record)
    message = str(info.value)
    assert "'descripton'" in message
    assert "did you mean 'description'?" in message


def test_unknown_key_without_close_match() -> None:
    """An unknown key with no close match is still named and the allowed keys are listed."""
    with pytest.raises(ToolDefinitionError) as info:
        from_record(_record(zzzzzz=1))
    message = str(info.value)
    assert "'zzzzzz'" in message
    assert "did you mean" not in message
    assert "inputSchema" in message


@pytest.mark.parametrize(
    "record",
    [
        {"name": "hello", "handler": args_handler},
        {"name": "hello", "description": "", "handler": args_handler},
        {"name": "hello", "description": "   ", "handler": args_handler},
        {"name": "hello", "description": 3, "handler": args_handler},
    ],
)
def test_missing_description_rejected(record: dict[str, Any]) -> None:
    """A record without a non-empty description string is rejected, saying so."""
    with pytest.raises(ToolDefinitionError, match="'description'"):
        from_record(record)


@pytest.mark.parametrize(
    "record",
    [
        {"name": "hello", "description": "Say hello"},
        {"name": "hello", "description": "Say hello", "handler": "builtin:hello"},
        {"name": "hello", "description": "Say hello", "handler": None},
    ],
)
def test_missing_handler_rejected(record: dict[str, Any]) -> None:
    """A record without a callable handler is rejected, saying so."""
    with pytest.raises(ToolDefinitionError, match="callable 'handler'"):
        from_record(record)


@pytest.mark.parametrize("name", [None, "", "has space", "a.b"])
def test_invalid_name_rejected(name: Any) -> None:
    """A record with a missing or invalid name is rejected."""
    with pytest.raises(ToolDefinitionError):
        from_record(_record(name=name))


def test_non_mapping_rejected() -> None:
    """Something that is not a mapping is rejected with a definition error."""
    with pytest.raises(ToolDefinitionError, match="mapping"):
        from_record(["name", "hello"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "parameters",
    [
        {"type": "array", "items": {"type": "string"}},
        {"type": "string"},
        {"properties": {"name": {"type": "string"}}},
    ],
)
def test_parameters_not_object_rejected(parameters: dict[str, Any]) -> None:
    """A parameters schema whose type is not "object" is rejected, saying what is needed."""
    with pytest.raises(ToolDefinitionError, match='"type": "object"'):
        from_record(_record(parameters=parameters))


def test_invalid_json_schema_rejected() -> None:
    """A parameters schema that is not valid JSON Schema is rejected with the bad location."""
    bad = {"type": "object", "properties": {"name": {"type": "strnig"}}}
    with pytest.raises(ToolDefinitionError, match="properties/name/type"):
        from_record(_record(parameters=bad))


def test_parameters_as_non_mapping_rejected() -> None:
    """A parameters value that is neither a schema nor a list is rejected."""
    with pytest.raises(ToolDefinitionError, match="JSON object"):
        from_record(_record(parameters="name: string"))


@pytest.mark.parametrize(
    ("first", "second"),
    [("parameters", "inputSchema"), ("inputSchema", "input_schema")],
)
def test_two_schema_keys_rejected(first: str, second: str) -> None:
    """Giving the parameters under two keys is rejected, naming both."""
    with pytest.raises(ToolDefinitionError) as info:
        from_record(_record(**{first: HELLO_SCHEMA, second: HELLO_SCHEMA}))
    assert first in str(info.value)
    assert second in str(info.value)


@pytest.mark.parametrize(
    ("entry", "fragment"),
    [
        ({"name": "a", "type": "str"}, "string, integer, number, boolean, array, object"),
        ({"name": "a", "type": "string", "requird": True}, "requird"),
        ({"type": "string"}, "'name'"),
        ({"name": "a", "type": "string", "items": {"type": "string"}}, "items"),
    ],
)
def test_bad_parameter_list_entry_rejected(entry: dict[str, Any], fragment: str) -> None:
    """A bad parameter-list entry is rejected with a message pointing at the problem."""
    with pytest.raises(ToolDefinitionError, match="invalid parameter list") as info:
        from_record(_record(parameters=[entry]))
    assert fragment in str(info.value)


def test_duplicate_parameter_in_list_rejected() -> None:
    """A parameter list naming the same parameter twice is rejected."""
    params = [{"name": "a", "type": "string"}, {"name": "a", "type": "integer"}]
    with pytest.raises(ToolDefinitionError, match="twice"):
        from_record(_record(parameters=params))


def test_args_handler_receives_one_dict() -> None:
    """A handler(args) receives the arguments as one dict."""
    registry = ToolRegistry([_record(inputSchema=HELLO_SCHEMA, handler=args_handler)])
    assert registry.execute("hello", {"name": "Ada"}).output == {"received": {"name": "Ada"}}


def test_var_kwargs_handler_receives_keywords() -> None:
    """A handler(**kwargs) receives the arguments as keywords."""
    registry = ToolRegistry([_record(inputSchema=HELLO_SCHEMA, handler=kwargs_handler)])
    assert registry.execute("hello", {"name": "Ada"}).output == {"received": {"name": "Ada"}}


def test_named_parameters_handler_receives_keywords() -> None:
    """A handler naming every schema property receives keywords and keeps its own defaults."""
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "greeting": {"type": "string"}},
        "required": ["name"],
    }
    registry = ToolRegistry([_record(parameters=schema, handler=named_handler)])
    assert registry.execute("hello", {"name": "Ada"}).output == "Hello, Ada!"
    assert registry.execute("hello", {"name": "Ada", "greeting": "Hi"}).output == "Hi, Ada!"


def test_async_handler() -> None:
    """An async record handler is awaited, through both entry points."""

    async def hello(args: dict[str, Any]) -> str:
        await asyncio.sleep(0)
        return f"Hello, {args['name']}!"

    registry = ToolRegistry([_record(inputSchema=HELLO_SCHEMA, handler=hello)])
    assert registry.get_or_raise("hello").is_async is True
    assert registry.execute("hello", {"name": "Ada"}).output == "Hello, Ada!"
    assert asyncio.run(registry.aexecute("hello", {"name": "Bo"})).output == "Hello, Bo!"


def test_parameter_list_of_tool_parameters() -> None:
    """A parameter list may hold ToolParameter objects as well as mappings."""
    built = from_record(
        _record(
            parameters=[
                ToolParameter(name="name", type="string"),
                {"name": "n", "type": "integer", "required": False},
            ]
        )
    )
    assert built.parameters["properties"] == {"name": {"type": "string"}, "n": {"type": "integer"}}
    assert built.parameters["required"] == ["name"]


def test_handler_with_incompatible_signature_rejected() -> None:
    """A handler that accepts neither the properties by name nor one dict is rejected."""

    def two_required(a: str, b: str) -> str:
        return a + b

    with pytest.raises(ToolDefinitionError, match="two_required"):
        from_record(_record(inputSchema=HELLO_SCHEMA, handler=two_required))


def test_no_parameters_gives_empty_object_schema() -> None:
    """A record without parameters takes no arguments: an empty closed object schema."""
    registry = ToolRegistry([_record(name="ping", handler=no_args_handler)])
    assert registry.get_or_raise("ping").parameters == EMPTY_OBJECT
    assert registry.execute("ping").output == "pong"
    assert registry.execute("ping", {}).output == "pong"
    with pytest.raises(ToolValidationError) as info:
        registry.execute("ping", {"unexpected": 1})
    assert [(e.path, e.kind) for e in info.value.errors] == [("unexpected", "unexpected")]


def test_mcp_annotations_and_title() -> None:
    """MCP camelCase hints and a top-level title map to ToolAnnotations."""
    built = from_record(
        _record(
            title="Say Hello",
            annotations={
                "readOnlyHint": True,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": False,
            },
        )
    )
    assert built.annotations == ToolAnnotations(
        title="Say Hello", read_only=True, destructive=False, idempotent=True, open_world=False
    )
    assert built.annotations.to_mcp() == {
        "title": "Say Hello",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }


def test_snake_case_annotations() -> None:
    """snake_case annotation names are accepted in records too."""
    built = from_record(_record(annotations={"read_only": True, "open_world": True}))
    assert built.annotations == ToolAnnotations(read_only=True, open_world=True)


def test_annotation_title_wins_over_top_level_title() -> None:
    """A title inside annotations is kept over the record's top-level title."""
    built = from_record(_record(title="Outer", annotations={"title": "Inner"}))
    assert built.annotations.title == "Inner"


@pytest.mark.parametrize(
    ("annotations", "fragment"),
    [({"readOnly": True}, "readOnly"), ({"readOnlyHint": "yes"}, "readOnlyHint")],
)
def test_bad_annotations_rejected(annotations: dict[str, Any], fragment: str) -> None:
    """Unknown annotation names and non-boolean hints are rejected as definition errors."""
    with pytest.raises(ToolDefinitionError, match=fragment):
        from_record(_record(annotations=annotations))


@pytest.mark.parametrize("key", ["outputSchema", "output_schema"])
def test_output_schema_kept(key: str) -> None:
    """An output schema (MCP or snake_case spelling) is kept and appears in the definition."""
    output = {"type": "object", "properties": {"greeting": {"type": "string"}}}
    built = from_record(_record(**{key: output}))
    assert built.output_schema == output
    assert built.to_dict()["output_schema"] == output


def test_both_output_schema_keys_rejected() -> None:
    """Giving the output schema under both spellings is rejected."""
    output = {"type": "object"}
    with pytest.raises(ToolDefinitionError, match="output schema once"):
        from_record(_record(outputSchema=output, output_schema=output))


@pytest.mark.parametrize("output", ["object", {"type": 5}])
def test_invalid_output_schema_rejected(output: Any) -> None:
    """An output schema that is not a valid JSON Schema object is rejected."""
    with pytest.raises(ToolDefinitionError):
        from_record(_record(outputSchema=output))


def test_no_output_schema_not_in_definition() -> None:
    """Without an output schema the definition has only name, description and parameters."""
    assert set(from_record(_record()).to_dict()) == {"name", "description", "parameters"}


def test_metadata_keys() -> None:
    """Metadata keys in a record land in tool.metadata, with category aliases accepted."""
    built = from_record(
        _record(
            inputSchema=HELLO_SCHEMA,
            category="file-system",
            tags=["greeting"],
            display_name="Hello",
            version="2",
            examples=[{"description": "greet", "input": {"name": "Ada"}}],
            timeout=3,
        )
    )
    assert built.category is ToolCategory.FILE
    assert built.tags == ("greeting",)
    assert built.metadata.display_name == "Hello"
    assert built.metadata.version == "2"
    assert built.metadata.examples[0].input == {"name": "Ada"}
    assert built.timeout == 3


def test_record_example_validated() -> None:
    """An example in a record that its own schema rejects is a definition error."""
    with pytest.raises(ToolDefinitionError, match="example 1"):
        from_record(_record(inputSchema=HELLO_SCHEMA, examples=[{"description": "x", "input": {}}]))


@pytest.mark.parametrize(("key", "value"), [("category", "nope"), ("tags", ["greeting", 1])])
def test_bad_metadata_rejected(key: str, value: Any) -> None:
    """Invalid metadata values are reported as definition errors."""
    with pytest.raises(ToolDefinitionError):
        from_record(_record(**{key: value}))


def test_a_single_tag_string_is_one_tag() -> None:
    """``tags: greeting`` in a record is the one tag "greeting", not eight letters."""
    assert from_record(_record(tags="greeting")).tags == ("greeting",)


def test_record_is_not_mutated() -> None:
    """Building a tool leaves the caller's record and schema unchanged."""
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    record = _record(parameters=schema)
    snapshot = {"type": "object", "properties": {"name": {"type": "string"}}}
    registry = ToolRegistry([record])
    registry.execute("hello", {"name": "Ada"})
    assert schema == snapshot
    assert record["parameters"] is schema


def test_annotations_may_be_a_tool_annotations_instance() -> None:
    """A record accepts a ToolAnnotations object as well as a mapping; `title` fills its title."""
    from forge.tools import ToolAnnotations

    record = {
        "name": "lookup",
        "description": "Look something up.",
        "handler": lambda: "ok",
        "annotations": ToolAnnotations(read_only=True),
        "title": "Lookup",
    }
    built = from_record(record)
    assert built.annotations == ToolAnnotations(title="Lookup", read_only=True)
    titled = from_record({**record, "annotations": ToolAnnotations(title="Own", idempotent=True)})
    assert titled.annotations == ToolAnnotations(title="Own", idempotent=True)
