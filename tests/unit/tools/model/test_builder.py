"""The fluent builder, ``create_tool()``."""

import asyncio
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from forge.tools import (
    Tool,
    ToolAnnotations,
    ToolBuilder,
    ToolCategory,
    ToolDefinitionError,
    ToolExample,
    ToolMetadata,
    ToolRegistry,
    ToolValidationError,
    create_tool,
)

Encoding = Literal["utf-8", "ascii", "base64"]


class ReadFileInput(BaseModel):
    path: str = Field(description="Path to the file to read")
    encoding: Encoding = "utf-8"


class PathOnly(BaseModel):
    path: str


def read_file(params: ReadFileInput) -> str:
    """Handler annotated with the model: receives the validated instance."""
    assert isinstance(params, ReadFileInput)
    return f"read {params.path} as {params.encoding}"


def read_file_kwargs(path: str, encoding: str) -> str:
    """Handler taking the model's fields as keyword arguments."""
    return f"kwargs {path} as {encoding}"


def read_file_untyped(request):  # type: ignore[no-untyped-def]
    """Handler with one unannotated parameter not named like a field: receives the instance."""
    return type(request).__name__


def path_only(path):  # type: ignore[no-untyped-def]
    """Handler whose single unannotated parameter is named like the field: receives kwargs."""
    return f"path={path}"


async def read_file_async(params: ReadFileInput) -> str:
    """An async handler."""
    await asyncio.sleep(0)
    return f"async {params.path}"


def echo_args(args: dict[str, Any]) -> dict[str, Any]:
    """Handler taking one arguments dict (for JSON Schema dicts)."""
    return args


def greet(name: str, punctuation: str = "!") -> str:
    """Handler taking keyword arguments (for JSON Schema dicts)."""
    return f"Hello, {name}{punctuation}"


GREET_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "punctuation": {"type": "string"}},
    "required": ["name"],
    "additionalProperties": False,
}


def _base(name: str = "read-file") -> ToolBuilder:
    return create_tool().name(name).description("Read a file").category(ToolCategory.FILE)


def test_seed_example_builds_with_all_optional_parts() -> None:
    """The original design's read-file example builds, with every optional part in tool.metadata."""
    built = (
        create_tool()
        .name("read-file")
        .display_name("Read File")
        .description("Read the contents of a file from the file system")
        .category(ToolCategory.FILE_SYSTEM)
        .tags(["file", "read", "io"])
        .schema(ReadFileInput)
        .example(
            {
                "description": "Read a text file",
                "input": {"path": "./README.md", "encoding": "utf-8"},
                "output": "# My Project\n\nWelcome to...",
            }
        )
        .example(
            {
                "description": "Read a binary file as base64",
                "input": {"path": "./image.png", "encoding": "base64"},
            }
        )
        .usage_notes("Paths are relative to the current working directory")
        .limitations(["Cannot read files larger than 10MB", "Requires read permissions"])
        .version("1.2.0")
        .author("forge team")
        .deprecated(replaced_by="read-file-v2")
        .implement(read_file)
        .build()
    )
    assert isinstance(built, Tool)
    assert built.name == "read-file"
    assert built.description == "Read the contents of a file from the file system"
    assert built.metadata == ToolMetadata(
        display_name="Read File",
        category=ToolCategory.FILE,
        tags=("file", "read", "io"),
        examples=(
            ToolExample(
                description="Read a text file",
                input={"path": "./README.md", "encoding": "utf-8"},
                output="# My Project\n\nWelcome to...",
            ),
            ToolExample(
                description="Read a binary file as base64",
                input={"path": "./image.png", "encoding": "base64"},
            ),
        ),
        usage_notes="Paths are relative to the current working directory",
        limitations=("Cannot read files larger than 10MB", "Requires read permissions"),
        version="1.2.0",
        author="forge team",
        deprecated=True,
        replaced_by="read-file-v2",
    )
    assert built.category is ToolCategory.FILE
    assert built.tags == ("file", "read", "io")


def test_model_schema_definition() -> None:
    """A pydantic model schema becomes a closed parameters schema with field descriptions."""
    built = _base().schema(ReadFileInput).implement(read_file).build()
    assert built.parameters == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Path to the file to read"},
            "encoding": {
                "type": "string",
                "enum": ["utf-8", "ascii", "base64"],
                "default": "utf-8",
            },
        },
        "required": ["path"],
        "additionalProperties": False,
    }


def test_deprecated_without_replacement() -> None:
    """deprecated() with no argument marks the tool deprecated with no replacement."""
    built = _base().implement(greet).deprecated().build()
    assert built.metadata.deprecated is True
    assert built.metadata.replaced_by is None


def test_limitations_accepts_single_string_and_accumulates() -> None:
    """limitations() accepts one string and repeated calls add up, like tags()."""
    built = (
        _base()
        .implement(greet)
        .limitations("one")
        .limitations(["two"])
        .tags(["a"])
        .tags(["b"])
        .build()
    )
    assert built.metadata.limitations == ("one", "two")
    assert built.tags == ("a", "b")


def test_timeout_and_annotations() -> None:
    """timeout() and annotations() land on the tool."""
    built = _base().implement(greet).timeout(5).annotations(read_only=True).build()
    assert built.timeout == 5
    assert built.annotations == ToolAnnotations(read_only=True)


def test_category_accepts_seed_spelling() -> None:
    """category() accepts the original design's string 'file-system' as an alias of file."""
    built = create_tool().name("x").description("d").category("file-system").implement(greet)
    assert built.build().category is ToolCategory.FILE


def test_unknown_category_rejected_at_once() -> None:
    """An unknown category fails immediately, listing the valid ones."""
    with pytest.raises(ValueError, match="unknown tool category 'filez'") as info:
        create_tool().category("filez")
    assert "file" in str(info.value)
    assert "utility" in str(info.value)


@pytest.mark.parametrize(
    ("builder", "missing"),
    [
        (create_tool(), ["name", "description", "category", "implement"]),
        (create_tool().name("x"), ["description", "category", "implement"]),
        (create_tool().name("x").description("d"), ["category", "implement"]),
        (create_tool().name("x").description("d").category("web"), ["implement"]),
        (create_tool().description("d").category("web").implement(greet), ["name"]),
        (create_tool().name("x").category("web").implement(greet), ["description"]),
    ],
)
def test_build_lists_missing_parts(builder: ToolBuilder, missing: list[str]) -> None:
    """build() without a required part raises ToolDefinitionError listing exactly the missing."""
    with pytest.raises(ToolDefinitionError) as info:
        builder.build()
    message = info.value.message
    for part in ["name", "description", "category", "implement"]:
        assert (f".{part}(...)" in message) == (part in missing), (part, message)
    assert "missing " + ", ".join(missing) in message


@pytest.mark.parametrize("description", ["", "   "])
def test_blank_description_fails_build(description: str) -> None:
    """A blank description counts as missing, as it does for records."""
    builder = create_tool().name("x").description(description).category("web").implement(greet)
    with pytest.raises(ToolDefinitionError, match="description"):
        builder.build()


def test_invalid_name_raises_at_once() -> None:
    """.name('invalid name with spaces') raises before build(), quoting the name and the rule."""
    builder = create_tool()
    with pytest.raises(ToolDefinitionError) as info:
        builder.name("invalid name with spaces")
    message = str(info.value)
    assert "'invalid name with spaces'" in message
    assert "space" in message
    assert "^[A-Za-z_][A-Za-z0-9_-]{0,63}$" in message


def test_invalid_name_error_keeps_the_plain_name() -> None:
    """The error's tool_name is the offending name itself, not its repr."""
    with pytest.raises(ToolDefinitionError) as info:
        create_tool().name("invalid name with spaces")
    assert info.value.tool_name == "invalid name with spaces"


@pytest.mark.parametrize("name", ["valid-name", "read_file", "_x", "a" * 64])
def test_valid_names_accepted(name: str) -> None:
    """kebab-case, snake_case and 64-character names are valid."""
    assert create_tool().name(name).description("d").category("web").implement(greet).build()


@pytest.mark.parametrize("name", ["", "1abc", "has.dot", "a" * 65, "tab\there"])
def test_other_invalid_names_rejected(name: str) -> None:
    """Empty, digit-first, dotted, over-long and whitespace names are rejected."""
    with pytest.raises(ToolDefinitionError, match="invalid tool name"):
        create_tool().name(name)


def test_example_rejected_by_schema_fails_build() -> None:
    """An example whose input the tool's own schema rejects makes build() fail, naming it."""
    builder = (
        _base()
        .schema(ReadFileInput)
        .example({"description": "bad encoding", "input": {"path": "a", "encoding": "latin-1"}})
        .implement(read_file)
    )
    with pytest.raises(ToolDefinitionError) as info:
        builder.build()
    message = str(info.value)
    assert "bad encoding" in message
    assert "encoding" in message


def test_example_rejected_without_schema_fails_build() -> None:
    """Examples are also validated against a schema taken from the implementation."""
    builder = _base().example({"description": "no name", "input": {}}).implement(greet)
    with pytest.raises(ToolDefinitionError, match="name: missing"):
        builder.build()


def test_example_as_tool_example_instance() -> None:
    """example() also accepts a ToolExample object."""
    example = ToolExample(description="greet Ada", input={"name": "Ada"}, output="Hello, Ada!")
    built = _base("greet").example(example).implement(greet).build()
    assert built.metadata.examples == (example,)


def test_malformed_example_fails_build() -> None:
    """An example without an input mapping fails build() with a definition error."""
    builder = _base().example({"description": "oops", "input": "path"}).implement(greet)
    with pytest.raises(ToolDefinitionError, match="input"):
        builder.build()


def test_handler_annotated_with_model_receives_instance() -> None:
    """A handler whose single parameter is annotated with the model receives the instance."""
    registry = ToolRegistry([_base().schema(ReadFileInput).implement(read_file).build()])
    result = registry.execute("read-file", {"path": "a.txt"})
    assert result.output == "read a.txt as utf-8"


def test_unannotated_single_parameter_receives_instance() -> None:
    """A single unannotated parameter not named like a field receives the instance."""
    registry = ToolRegistry([_base().schema(ReadFileInput).implement(read_file_untyped).build()])
    assert registry.execute("read-file", {"path": "a"}).output == "ReadFileInput"


def test_handler_with_field_parameters_receives_kwargs() -> None:
    """A handler taking the model's fields by name receives keyword arguments with defaults."""
    registry = ToolRegistry([_base().schema(ReadFileInput).implement(read_file_kwargs).build()])
    assert registry.execute("read-file", {"path": "a"}).output == "kwargs a as utf-8"


def test_single_parameter_named_like_field_receives_kwargs() -> None:
    """A single unannotated parameter named like the model's only field receives the value."""
    registry = ToolRegistry([_base().schema(PathOnly).implement(path_only).build()])
    assert registry.execute("read-file", {"path": "a"}).output == "path=a"


def test_model_schema_validates_arguments() -> None:
    """The model rejects wrong types, enum violations and unknown arguments, naming each."""
    registry = ToolRegistry([_base().schema(ReadFileInput).implement(read_file).build()])
    with pytest.raises(ToolValidationError) as info:
        registry.execute("read-file", {"path": 3, "encoding": "latin-1", "mode": "r"})
    assert {(e.path, e.kind) for e in info.value.errors} == {
        ("path", "type"),
        ("encoding", "enum"),
        ("mode", "unexpected"),
    }


def test_json_schema_dict_with_kwargs_handler() -> None:
    """A JSON Schema dict is used as-is and a handler taking its properties gets kwargs."""
    built = _base("greet").schema(GREET_SCHEMA).implement(greet).build()
    assert built.parameters == GREET_SCHEMA
    assert ToolRegistry([built]).execute("greet", {"name": "Ada"}).output == "Hello, Ada!"


def test_json_schema_dict_with_args_handler() -> None:
    """A JSON Schema dict with a single-parameter handler passes the arguments dict."""
    built = _base("echo").schema(GREET_SCHEMA).implement(echo_args).build()
    result = ToolRegistry([built]).execute("echo", {"name": "Ada", "punctuation": "?"})
    assert result.output == {"name": "Ada", "punctuation": "?"}


def test_json_schema_dict_validates() -> None:
    """Arguments are validated against a JSON Schema dict before the handler runs."""
    registry = ToolRegistry([_base("greet").schema(GREET_SCHEMA).implement(greet).build()])
    with pytest.raises(ToolValidationError) as info:
        registry.execute("greet", {"punctuation": 1})
    assert info.value.missing == ("name",)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "items": {"type": "string"}},
        {"properties": {"a": {"type": "string"}}},
        {"type": "object", "properties": {"a": {"type": "strng"}}},
    ],
)
def test_invalid_json_schema_dict_fails_build(schema: dict[str, Any]) -> None:
    """A schema dict that is not a valid object schema fails build() with a definition error."""
    with pytest.raises(ToolDefinitionError):
        _base().schema(schema).implement(echo_args).build()


def test_schema_rejects_other_types() -> None:
    """schema() with neither a model class nor a dict fails build()."""
    with pytest.raises(ToolDefinitionError, match="pydantic model"):
        _base().schema(int).implement(echo_args).build()


def test_implement_rejects_non_callable() -> None:
    """implement() with something that is not callable raises TypeError at once."""
    with pytest.raises(TypeError, match="callable"):
        create_tool().implement("not a function")  # type: ignore[arg-type]


def test_async_implement_with_model() -> None:
    """An async handler works through both the sync and the async entry points."""
    built = _base().schema(ReadFileInput).implement(read_file_async).build()
    assert built.is_async is True
    registry = ToolRegistry([built])
    assert registry.execute("read-file", {"path": "a"}).output == "async a"
    assert asyncio.run(registry.aexecute("read-file", {"path": "b"})).output == "async b"


def test_async_implement_without_schema() -> None:
    """An async handler's own signature gives the schema when no schema() is set."""

    async def fetch(url: str) -> str:
        await asyncio.sleep(0)
        return f"fetched {url}"

    built = create_tool().name("fetch").description("Fetch").category("web").implement(fetch)
    registry = ToolRegistry([built.build()])
    assert registry.get_or_raise("fetch").parameters["required"] == ["url"]
    assert asyncio.run(registry.aexecute("fetch", {"url": "u"})).output == "fetched u"


def test_handler_exception_becomes_failed_result() -> None:
    """An exception in a built tool's handler is returned as a failed result."""

    def broken(path: str) -> str:
        raise OSError(f"cannot read {path}")

    registry = ToolRegistry([_base().implement(broken).build()])
    result = registry.execute("read-file", {"path": "a"})
    assert result.success is False
    assert "cannot read a" in (result.error or "")


def test_tags_accepts_a_single_string_as_one_tag() -> None:
    """tags("abc") adds the one tag "abc", not the tags "a", "b" and "c"."""
    built = _base().implement(greet).tags("abc").tags(["d", "e"]).build()
    assert built.tags == ("abc", "d", "e")
