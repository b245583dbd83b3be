"""Value types: ToolParameter, ToolResult, ExecutionContext, ToolCall, ToolCategory, metadata."""

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest

from forge.tools import (
    ErrorKind,
    ExecutionContext,
    ToolAnnotations,
    ToolCall,
    ToolCategory,
    ToolExample,
    ToolMetadata,
    ToolParameter,
    ToolResult,
)

# --- ToolParameter ---------------------------------------------------------------------


def test_parameter_defaults() -> None:
    """A parameter is required by default with no description, default, enum or items."""
    param = ToolParameter(name="path", type="string")
    assert (param.required, param.default, param.enum, param.items) == (True, None, None, None)
    assert param.to_json_schema() == {"type": "string"}


def test_parameter_seed_example_schema() -> None:
    """The original design's message parameter converts to type plus description."""
    param = ToolParameter(name="message", type="string", description="Test message")
    assert param.to_json_schema() == {"type": "string", "description": "Test message"}


def test_parameter_default_shown_when_not_none() -> None:
    """A non-None default appears in the schema."""
    param = ToolParameter(name="unit", type="string", required=False, default="c")
    assert param.to_json_schema() == {"type": "string", "default": "c"}


@pytest.mark.parametrize(("type_", "default"), [("integer", 0), ("boolean", False), ("string", "")])
def test_parameter_falsy_default_shown(type_: str, default: Any) -> None:
    """Falsy defaults such as 0, False and "" are shown; only None means no default."""
    param = ToolParameter(name="p", type=type_, required=False, default=default)
    assert param.to_json_schema() == {"type": type_, "default": default}


def test_parameter_none_default_hidden() -> None:
    """A None default is not shown in the schema."""
    param = ToolParameter(name="p", type="integer", required=False, default=None)
    assert "default" not in param.to_json_schema()


def test_parameter_enum() -> None:
    """An enum is listed in the schema as a list."""
    param = ToolParameter(name="unit", type="string", enum=("c", "f"))
    assert param.to_json_schema() == {"type": "string", "enum": ["c", "f"]}


def test_parameter_items_for_arrays() -> None:
    """items is included for arrays."""
    param = ToolParameter(name="tags", type="array", items={"type": "string"})
    assert param.to_json_schema() == {"type": "array", "items": {"type": "string"}}


def test_parameter_full_schema() -> None:
    """All keys together give the complete JSON Schema."""
    param = ToolParameter(
        name="mode", type="string", description="How", required=False, default="a", enum=["a", "b"]
    )
    assert param.to_json_schema() == {
        "type": "string",
        "description": "How",
        "enum": ["a", "b"],
        "default": "a",
    }


@pytest.mark.parametrize("type_", ["string", "integer", "number", "boolean", "object"])
def test_parameter_items_rejected_for_non_arrays(type_: str) -> None:
    """items on a non-array parameter is rejected."""
    with pytest.raises(ValueError, match="'items' is only valid for type 'array'"):
        ToolParameter(name="p", type=type_, items={"type": "string"})


@pytest.mark.parametrize("type_", ["str", "int", "float", "list", "dict", "null", "String", ""])
def test_parameter_invalid_type_lists_valid_ones(type_: str) -> None:
    """An invalid type is rejected with a message listing every valid type."""
    with pytest.raises(ValueError) as info:
        ToolParameter(name="p", type=type_)
    assert "string, integer, number, boolean, array, object" in str(info.value)
    assert repr(type_) in str(info.value)


@pytest.mark.parametrize("enum", [[], "abc"])
def test_parameter_bad_enum_rejected(enum: Any) -> None:
    """An empty enum, or a string instead of a list, is rejected."""
    with pytest.raises(ValueError, match="enum"):
        ToolParameter(name="p", type="string", enum=enum)


@pytest.mark.parametrize("name", ["", None, 3])
def test_parameter_bad_name_rejected(name: Any) -> None:
    """A parameter needs a non-empty string name."""
    with pytest.raises(ValueError, match="name"):
        ToolParameter(name=name, type="string")


def test_parameter_is_frozen() -> None:
    """A ToolParameter cannot be changed after creation."""
    param = ToolParameter(name="p", type="string")
    with pytest.raises(dataclasses.FrozenInstanceError):
        param.required = False  # type: ignore[misc]


def test_parameter_from_mapping() -> None:
    """from_mapping builds a parameter from a parameter-list mapping."""
    param = ToolParameter.from_mapping({"name": "location", "type": "string", "required": True})
    assert param == ToolParameter(name="location", type="string")


@pytest.mark.parametrize(
    ("mapping", "fragment"),
    [({"name": "a", "type": "string", "optional": True}, "optional"), ({"name": "a"}, "'type'")],
)
def test_parameter_from_mapping_rejects(mapping: dict[str, Any], fragment: str) -> None:
    """from_mapping rejects unknown keys and missing name/type, naming them."""
    with pytest.raises(ValueError) as info:
        ToolParameter.from_mapping(mapping)
    assert fragment in str(info.value)


# --- ToolResult ------------------------------------------------------------------------


def test_result_ok() -> None:
    """ok() makes a successful result with output and metadata."""
    result = ToolResult.ok({"temp": 72}, elapsed=1)
    assert result.success is True
    assert result.output == {"temp": 72}
    assert result.error is None
    assert result.error_kind is None
    assert result.metadata == {"elapsed": 1}
    assert (result.call_id, result.tool_name) == (None, None)


def test_result_ok_without_output() -> None:
    """ok() with no output equals a plain successful result."""
    assert ToolResult.ok() == ToolResult(success=True)


def test_result_fail_default_kind() -> None:
    """fail() makes a failed result whose error_kind defaults to tool_error."""
    result = ToolResult.fail("boom", attempt=2)
    assert result.success is False
    assert result.output is None
    assert result.error == "boom"
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert result.error_kind == "tool_error"
    assert result.metadata == {"attempt": 2}


@pytest.mark.parametrize("kind", list(ErrorKind))
def test_result_fail_kind_from_string(kind: ErrorKind) -> None:
    """fail() accepts every error kind by its string value."""
    assert ToolResult.fail("x", error_kind=kind.value).error_kind is kind


def test_error_kinds() -> None:
    """The error kinds are the spec's model-facing contract."""
    assert {k.value for k in ErrorKind} == {
        "invalid_json",
        "unknown_tool",
        "invalid_arguments",
        "denied",
        "timeout",
        "cancelled",
        "tool_error",
    }


def test_result_fail_unknown_kind_rejected() -> None:
    """fail() with an unknown error kind raises ValueError."""
    with pytest.raises(ValueError, match="nope"):
        ToolResult.fail("x", error_kind="nope")


def test_result_for_call() -> None:
    """for_call returns a copy tagged with the call id and tool name; the original is unchanged."""
    original = ToolResult.ok(5, elapsed=1)
    tagged = original.for_call("call_9", "adder")
    assert (tagged.call_id, tagged.tool_name) == ("call_9", "adder")
    assert (tagged.success, tagged.output, tagged.metadata) == (True, 5, {"elapsed": 1})
    assert (original.call_id, original.tool_name) == (None, None)


def test_result_for_call_keeps_failure() -> None:
    """for_call keeps a failure's error and kind."""
    tagged = ToolResult.fail("late", error_kind="timeout").for_call("c", "t")
    assert (tagged.success, tagged.error, tagged.error_kind) == (False, "late", ErrorKind.TIMEOUT)


def test_result_to_dict_success() -> None:
    """to_dict of a success has success and output, plus metadata only when present."""
    assert ToolResult.ok(5).to_dict() == {"success": True, "output": 5}
    assert ToolResult.ok(None, n=1).to_dict() == {
        "success": True,
        "output": None,
        "metadata": {"n": 1},
    }


def test_result_to_dict_failure() -> None:
    """to_dict of a failure has success, error and error_kind as a plain string."""
    out = ToolResult.fail("bad", error_kind=ErrorKind.DENIED).to_dict()
    assert out == {"success": False, "error": "bad", "error_kind": "denied"}
    assert type(out["error_kind"]) is str


def test_result_to_dict_call_fields_and_json() -> None:
    """to_dict includes call_id and tool_name when set and is JSON-serialisable."""
    out = ToolResult.ok([1, 2]).for_call("c1", "t").to_dict()
    assert out == {"success": True, "output": [1, 2], "call_id": "c1", "tool_name": "t"}
    assert json.loads(json.dumps(out)) == out


def test_result_replace() -> None:
    """replace returns a changed copy and leaves the original alone."""
    original = ToolResult.ok(1)
    changed = original.replace(output=2, metadata={"dry_run": True})
    assert (changed.output, changed.metadata) == (2, {"dry_run": True})
    assert (original.output, original.metadata) == (1, {})


def test_result_replace_rejects_unknown_field() -> None:
    """replace with an unknown field raises TypeError."""
    with pytest.raises(TypeError):
        ToolResult.ok(1).replace(outptu=2)


@pytest.mark.parametrize("field", ["success", "output", "error", "error_kind", "call_id"])
def test_result_is_frozen(field: str) -> None:
    """Assigning to any field of a result raises."""
    result = ToolResult.ok(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(result, field, None)


def test_result_is_keyword_only() -> None:
    """ToolResult's constructor takes keywords only."""
    with pytest.raises(TypeError):
        ToolResult(True, 1)  # type: ignore[misc]


def test_result_equality() -> None:
    """Results compare by value."""
    assert ToolResult.ok(1, a=2) == ToolResult(success=True, output=1, metadata={"a": 2})
    assert ToolResult.ok(1) != ToolResult.ok(2)


# --- ExecutionContext ------------------------------------------------------------------


def test_context_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A default context uses the current directory, no session, no dry run and 120 s."""
    monkeypatch.chdir(tmp_path)
    context = ExecutionContext()
    assert context.working_dir == os.getcwd()
    assert context.session_id is None
    assert context.dry_run is False
    assert context.timeout == 120
    assert context.metadata == {}


def test_context_working_dir_read_at_creation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default working_dir is the directory current when the context is made."""
    first = tmp_path / "a"
    second = tmp_path / "b"
    first.mkdir()
    second.mkdir()
    monkeypatch.chdir(first)
    one = ExecutionContext()
    monkeypatch.chdir(second)
    two = ExecutionContext()
    assert Path(one.working_dir).name == "a"
    assert Path(two.working_dir).name == "b"


def test_context_metadata_not_shared() -> None:
    """Each context gets its own metadata dict."""
    assert ExecutionContext().metadata is not ExecutionContext().metadata


def test_context_fields() -> None:
    """Every field can be set by keyword."""
    context = ExecutionContext(
        working_dir="/w", session_id="s1", dry_run=True, timeout=0.5, metadata={"user": "ada"}
    )
    assert (context.working_dir, context.session_id, context.dry_run) == ("/w", "s1", True)
    assert (context.timeout, context.metadata) == (0.5, {"user": "ada"})


@pytest.mark.parametrize("timeout", [0, -1, -0.5, float("nan")])
def test_context_rejects_non_positive_timeout(timeout: float) -> None:
    """A zero, negative or NaN timeout is rejected."""
    with pytest.raises(ValueError, match="positive"):
        ExecutionContext(timeout=timeout)


@pytest.mark.parametrize("timeout", [True, False, "5", None])
def test_context_rejects_non_number_timeout(timeout: Any) -> None:
    """A bool, string or None timeout is rejected with TypeError."""
    with pytest.raises(TypeError, match="timeout"):
        ExecutionContext(timeout=timeout)


def test_context_replace() -> None:
    """replace returns a changed copy, still validated."""
    context = ExecutionContext(working_dir="/w")
    assert context.replace(dry_run=True) == ExecutionContext(working_dir="/w", dry_run=True)
    with pytest.raises(ValueError, match="positive"):
        context.replace(timeout=0)


def test_context_is_frozen_and_keyword_only() -> None:
    """A context cannot be changed after creation and is built by keyword."""
    context = ExecutionContext()
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.timeout = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        ExecutionContext("/w")  # type: ignore[misc]


# --- ToolCall ---------------------------------------------------------------------------------


def test_call_coerce_full_mapping() -> None:
    """coerce keeps a mapping's id, name and arguments."""
    call = ToolCall.coerce({"id": "call_abc", "name": "get_weather", "arguments": {"a": 1}})
    assert call == ToolCall("call_abc", "get_weather", {"a": 1})


def test_call_coerce_generates_id() -> None:
    """coerce generates a unique id when the mapping has none, and defaults arguments to {}."""
    first = ToolCall.coerce({"name": "t"})
    second = ToolCall.coerce({"name": "t", "arguments": None})
    assert isinstance(first.id, str)
    assert first.id
    assert first.id != second.id
    assert first.arguments == {}
    assert second.arguments == {}


def test_call_coerce_passes_tool_call_through() -> None:
    """coerce returns a ToolCall unchanged."""
    call = ToolCall("1", "t", {})
    assert ToolCall.coerce(call) is call


def test_call_create() -> None:
    """create makes a call with a fresh id."""
    one, two = ToolCall.create("t", {"x": 1}), ToolCall.create("t")
    assert (one.name, one.arguments, two.arguments) == ("t", {"x": 1}, {})
    assert one.id != two.id


@pytest.mark.parametrize("value", [None, 3, "get_weather", ["t", {}]])
def test_call_coerce_rejects_non_mapping(value: Any) -> None:
    """coerce rejects values that are neither a ToolCall nor a mapping with TypeError."""
    with pytest.raises(TypeError, match="mapping"):
        ToolCall.coerce(value)


@pytest.mark.parametrize("value", [{}, {"arguments": {}}, {"name": 3}, {"name": None}])
def test_call_coerce_rejects_missing_name(value: dict[str, Any]) -> None:
    """coerce rejects a mapping without a string name with ValueError."""
    with pytest.raises(ValueError, match="'name'"):
        ToolCall.coerce(value)


def test_call_is_frozen() -> None:
    """A ToolCall cannot be changed after creation."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        ToolCall("1", "t").name = "u"  # type: ignore[misc]


# --- ToolCategory ----------------------------------------------------------------------

SEED_001_CATEGORIES = {
    "FILE_SYSTEM": "file-system",
    "WEB": "web",
    "CODE": "code",
    "DATABASE": "database",
    "API": "api",
    "UTILITY": "utility",
    "CUSTOM": "custom",
}
SEED_004_CATEGORIES = {
    "FILE": "file",
    "EXECUTION": "execution",
    "WEB": "web",
    "TASK": "task",
    "NOTEBOOK": "notebook",
    "MCP": "mcp",
    "OTHER": "other",
}


def test_category_values_are_union_of_seeds() -> None:
    """The canonical values are both original category lists, file-system folded into file."""
    assert [c.value for c in ToolCategory] == [
        "file",
        "execution",
        "web",
        "code",
        "database",
        "api",
        "task",
        "notebook",
        "mcp",
        "utility",
        "custom",
        "other",
    ]


@pytest.mark.parametrize("member", sorted(SEED_001_CATEGORIES.keys() | SEED_004_CATEGORIES.keys()))
def test_category_seed_member_names(member: str) -> None:
    """Every member name either original category list uses exists on ToolCategory."""
    assert isinstance(ToolCategory[member], ToolCategory)


@pytest.mark.parametrize(
    "value", sorted(set(SEED_001_CATEGORIES.values()) | set(SEED_004_CATEGORIES.values()))
)
def test_category_seed_values_parse(value: str) -> None:
    """Every value either original category list uses parses to a category."""
    assert isinstance(ToolCategory.parse(value), ToolCategory)


def test_category_file_system_alias() -> None:
    """FILE_SYSTEM is an alias of FILE, and 'file-system' parses to FILE."""
    assert ToolCategory.FILE_SYSTEM is ToolCategory.FILE
    assert ToolCategory("file-system") is ToolCategory.FILE
    assert ToolCategory.parse("file-system") is ToolCategory.FILE
    assert ToolCategory.FILE.value == "file"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("FILE_SYSTEM", ToolCategory.FILE),
        ("File-System", ToolCategory.FILE),
        ("filesystem", ToolCategory.FILE),
        ("  web ", ToolCategory.WEB),
        ("EXECUTION", ToolCategory.EXECUTION),
        (ToolCategory.MCP, ToolCategory.MCP),
    ],
)
def test_category_parse_spellings(text: Any, expected: ToolCategory) -> None:
    """parse accepts any case, underscores for hyphens, surrounding spaces and members."""
    assert ToolCategory.parse(text) is expected


def test_category_is_str() -> None:
    """Categories are strings equal to their value."""
    assert isinstance(ToolCategory.WEB, str)
    assert ToolCategory.WEB == "web"
    assert str(ToolCategory.FILE) == "file"


@pytest.mark.parametrize("value", ["files", "", "web-search", 3, None])
def test_category_parse_error_lists_valid_values(value: Any) -> None:
    """An unknown category raises ValueError listing every valid value."""
    with pytest.raises(ValueError) as info:
        ToolCategory.parse(value)
    message = str(info.value)
    assert repr(value) in message
    for category in ToolCategory:
        assert category.value in message
    assert "file-system" in message


# --- ToolAnnotations and ToolMetadata -------------------------------------------


def test_annotations_default_unspecified() -> None:
    """Default annotations leave every hint unspecified and map to an empty MCP object."""
    notes = ToolAnnotations()
    assert (notes.title, notes.read_only, notes.destructive) == (None, None, None)
    assert (notes.idempotent, notes.open_world) == (None, None)
    assert notes.to_mcp() == {}
    assert ToolAnnotations.coerce(None) == notes


def test_annotations_coerce_snake_case() -> None:
    """coerce accepts snake_case names."""
    notes = ToolAnnotations.coerce({"title": "T", "read_only": True, "destructive": False})
    assert notes == ToolAnnotations(title="T", read_only=True, destructive=False)


def test_annotations_coerce_camel_case() -> None:
    """coerce accepts MCP's camelCase hint names."""
    notes = ToolAnnotations.coerce(
        {
            "title": "T",
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": None,
        }
    )
    assert notes == ToolAnnotations(title="T", read_only=True, destructive=False, idempotent=True)


def test_annotations_coerce_passes_instance_through() -> None:
    """coerce returns a ToolAnnotations unchanged."""
    notes = ToolAnnotations(read_only=True)
    assert ToolAnnotations.coerce(notes) is notes


def test_annotations_to_mcp() -> None:
    """to_mcp uses MCP's names, omits unspecified hints and round-trips through coerce."""
    notes = ToolAnnotations(read_only=True, open_world=False)
    assert notes.to_mcp() == {"readOnlyHint": True, "openWorldHint": False}
    full = ToolAnnotations(
        title="T", read_only=False, destructive=True, idempotent=False, open_world=True
    )
    assert full.to_mcp() == {
        "title": "T",
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    assert ToolAnnotations.coerce(full.to_mcp()) == full


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ({"readonly": True}, ValueError),
        ({"read_only": "yes"}, TypeError),
        ({"openWorldHint": 1}, TypeError),
        (["read_only"], TypeError),
    ],
)
def test_annotations_coerce_rejects(value: Any, error: type[Exception]) -> None:
    """coerce rejects unknown names, non-boolean hints and non-mappings."""
    with pytest.raises(error):
        ToolAnnotations.coerce(value)


def test_metadata_defaults() -> None:
    """Default metadata is category other with everything else empty."""
    meta = ToolMetadata.build()
    assert meta == ToolMetadata()
    assert meta.category is ToolCategory.OTHER
    assert (meta.tags, meta.examples, meta.limitations) == ((), (), ())
    assert (meta.deprecated, meta.replaced_by, meta.extra) == (False, None, {})


def test_metadata_build_loose_values() -> None:
    """build accepts a category string, lists, example dicts and other fields by keyword."""
    meta = ToolMetadata.build(
        category="file-system",
        tags=["a", "b"],
        examples=[{"description": "d", "input": {"x": 1}, "output": 2, "explanation": "e"}],
        limitations=["big files"],
        display_name="Reader",
        usage_notes="n",
        version="1.0",
        author="me",
        deprecated=True,
        replaced_by="reader2",
        extra={"team": "io"},
    )
    assert meta == ToolMetadata(
        display_name="Reader",
        category=ToolCategory.FILE,
        tags=("a", "b"),
        examples=(ToolExample(description="d", input={"x": 1}, output=2, explanation="e"),),
        usage_notes="n",
        limitations=("big files",),
        version="1.0",
        author="me",
        deprecated=True,
        replaced_by="reader2",
        extra={"team": "io"},
    )


def test_metadata_build_single_limitation_string() -> None:
    """A single limitation string becomes a one-item tuple."""
    assert ToolMetadata.build(limitations="slow").limitations == ("slow",)


def test_single_tag_string_is_one_tag() -> None:
    """A single tag string becomes a one-item tuple, not one tag per character."""
    assert ToolMetadata.build(tags="file").tags == ("file",)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"tags": ["ok", 3]}, TypeError),
        ({"limitations": [None]}, TypeError),
        ({"category": "nope"}, ValueError),
        ({"examples": [{"input": "x"}]}, ValueError),
        ({"examples": [{"input": {}, "inputs": {}}]}, ValueError),
        ({"examples": ["x"]}, TypeError),
        ({"colour": "red"}, TypeError),
    ],
)
def test_metadata_build_rejects(kwargs: dict[str, Any], error: type[Exception]) -> None:
    """build rejects non-string items, bad categories, examples and fields."""
    with pytest.raises(error):
        ToolMetadata.build(**kwargs)


def test_example_to_dict_omits_empty_fields() -> None:
    """ToolExample.to_dict leaves out a missing output and explanation."""
    example = ToolExample.coerce({"description": "d", "input": {"x": 1}})
    assert example.to_dict() == {"description": "d", "input": {"x": 1}}
    full = ToolExample(description="d", input={}, output=0, explanation="why")
    assert full.to_dict() == {"description": "d", "input": {}, "output": 0, "explanation": "why"}


@pytest.mark.parametrize(
    "value", [ToolMetadata(), ToolAnnotations(), ToolExample(description="d", input={})]
)
def test_metadata_values_are_frozen(value: Any) -> None:
    """Metadata, annotations and examples cannot be changed after creation."""
    field = dataclasses.fields(value)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, None)
