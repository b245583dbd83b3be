"""Each provider's definition shape, checked against its official SDK type."""

from __future__ import annotations

import pickle
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from forge.core.errors import SchemaConversionError, UnsupportedProviderError
from forge.tools import ToolRegistry, from_record, tool
from forge.tools.formats import PROVIDERS, convert, to_anthropic, to_openai, to_provider


class Address(BaseModel):
    """A postal address."""

    street: str
    city: str = "Paris"


class Node(BaseModel):
    """A recursive tree node."""

    value: int
    children: list[Node] = []


@tool(annotations={"read_only": True, "title": "Find places"})
def find(
    query: str,
    limit: int | None = 5,
    kind: Literal["shop", "park"] = "shop",
    near: Address | None = None,
    extra: dict[str, int] | None = None,
) -> list[str]:
    """Find places near an address."""
    return [query]


@tool
def grow(root: Node) -> int:
    """Count a tree."""
    return root.value


def _noop(**kwargs: Any) -> Any:
    return kwargs


@pytest.mark.parametrize("provider", list(PROVIDERS))
@pytest.mark.parametrize("strict", [False, True])
def test_every_provider_accepts_our_definitions(provider: str, strict: bool, sdk: Any) -> None:
    """Each target's SDK type accepts the definitions of a rich tool, plain and strict."""
    out = to_provider([find], provider, strict=strict)
    item = out[0]["functionDeclarations"][0] if provider == "gemini" else out[0]
    sdk[provider](item)


def test_shapes_match_provider_formats() -> None:
    """The envelope of each format is the documented one."""
    assert set(to_provider([find], "openai")[0]) == {"type", "function"}
    assert to_provider([find], "openai-responses")[0]["strict"] is False
    assert to_provider([find], "openai-responses", strict=True)[0]["strict"] is True
    assert set(to_provider([find], "anthropic")[0]) == {"name", "description", "input_schema"}
    gemini = to_provider([find, grow], "ollama")
    assert [g["function"]["name"] for g in gemini] == ["find", "grow"]
    wrapped = to_provider([find], "gemini")
    assert len(wrapped) == 1
    assert wrapped[0]["functionDeclarations"][0]["name"] == "find"
    assert to_provider([], "gemini") == []
    assert to_provider([find], "bedrock")[0]["toolSpec"]["inputSchema"]["json"] == find.parameters
    mcp = to_provider([find], "mcp")[0]
    assert mcp["annotations"] == {"readOnlyHint": True, "title": "Find places"}
    assert mcp["title"] == "Find places"


def test_bedrock_leaves_out_an_empty_description(sdk: Any) -> None:
    """Bedrock rejects empty strings, so an empty description is not sent."""
    quiet = from_record({"name": "quiet", "description": "x", "handler": _noop}).replace(
        description=""
    )
    spec = to_provider([quiet], "bedrock")[0]
    assert "description" not in spec["toolSpec"]
    sdk["bedrock"](spec)


def test_mcp_output_schema_and_annotations_round_trip(sdk: Any) -> None:
    """MCP definitions carry the output schema and every annotation hint."""
    t = from_record({
        "name": "stat", "description": "Stat a file.", "handler": _noop,
        "output_schema": {"type": "object", "properties": {"size": {"type": "integer"}}},
        "annotations": {"destructive": False, "idempotent": True, "open_world": False},
    })  # fmt: skip
    out = to_provider([t], "mcp")[0]
    assert out["outputSchema"]["properties"]["size"] == {"type": "integer"}
    assert out["annotations"] == {
        "destructiveHint": False, "idempotentHint": True, "openWorldHint": False,
    }  # fmt: skip
    sdk["mcp"](out)


def test_per_tool_helpers_share_the_to_provider_code() -> None:
    """`to_openai_schema`/`to_anthropic_schema` equal `to_provider` output, strict too."""
    assert find.to_openai_schema() == to_provider([find], "openai")[0]
    assert find.to_openai_schema(strict=True) == to_provider([find], "openai", strict=True)[0]
    assert find.to_anthropic_schema(strict=True) == to_provider([find], "anthropic", strict=True)[0]
    assert to_openai(grow, strict=True) == to_provider([grow], "openai", strict=True)[0]
    assert to_anthropic(grow, strict=True) == to_provider([grow], "anthropic", strict=True)[0]


def test_registry_caches_per_provider_strict_and_allowed() -> None:
    """The registry caches each (provider, strict, allowed) result until it changes."""
    registry = ToolRegistry([find, grow])
    plain = registry.to_provider("openai")
    strict = registry.to_provider("openai", strict=True)
    assert plain[0] is registry.to_provider("openai")[0]
    assert strict[0] is registry.to_provider("openai", strict=True)[0]
    assert plain[0] is not strict[0]
    assert strict[0]["function"]["strict"] is True
    gemini = registry.to_provider("gemini", allowed=["find"])
    assert gemini[0]["functionDeclarations"][0]["name"] == "find"


def test_unknown_provider_lists_every_supported_one() -> None:
    """The error lists all nine targets."""
    with pytest.raises(UnsupportedProviderError) as info:
        to_provider([find], "gpt")
    assert info.value.supported == tuple(PROVIDERS)
    assert len(PROVIDERS) == 9


def test_recursive_schema_goes_to_gemini_as_json_schema(sdk: Any) -> None:
    """A recursive model (beyond the OpenAPI subset) is sent whole as parametersJsonSchema."""
    registry = ToolRegistry([find, grow])
    [wrapper] = registry.to_provider("gemini")
    first, second = wrapper["functionDeclarations"]
    assert "parameters" in first
    assert second["parametersJsonSchema"] == grow.parameters
    assert "parameters" not in second
    sdk["gemini"](second)
    declaration, report = convert(grow, "gemini", errors="raise")  # lossless: never an error
    assert declaration == second
    [change] = report.changes
    assert (change.keyword, change.action) == ("$ref", "rewritten")
    assert "recursive" in change.detail
    assert "parametersJsonSchema" in change.detail
    assert report.lossless


def test_recursive_schema_is_kept_for_openai_strict(sdk: Any) -> None:
    """OpenAI strict supports recursion through $defs: the $ref stays."""
    out = to_provider([grow], "openai", strict=True)[0]
    sdk["openai"](out)
    assert "$defs" in out["function"]["parameters"]


def test_recursive_schema_falls_back_from_anthropic_strict(sdk: Any) -> None:
    """Anthropic strict has no recursion: the tool goes without strict mode, or raises if asked."""
    out, report = convert(grow, "anthropic", strict=True)
    sdk["anthropic"](out)
    assert "strict" not in out
    assert out["input_schema"] == grow.parameters
    assert report.changes[0].action == "fallback"
    assert "recursive" in report.changes[0].detail
    with pytest.raises(SchemaConversionError, match="anthropic") as info:
        to_provider([grow], "anthropic", strict=True, errors="raise")
    err = info.value
    assert (err.tool_name, err.keyword, err.provider) == ("grow", "$ref", "anthropic")
    assert isinstance(err, ValueError)
    assert pickle.loads(pickle.dumps(err)).keyword == "$ref"


def _schema_tool(schema: dict[str, Any], description: str = "d") -> Any:
    return from_record(
        {"name": "s", "description": description, "parameters": schema, "handler": _noop}
    )


def test_open_object_with_properties_cannot_be_strict(sdk: Any) -> None:
    """Listed properties plus open extra keys cannot be closed: sent non-strict, or an error."""
    t = _schema_tool({"type": "object", "properties": {"a": {"type": "string"}},
                      "additionalProperties": True})  # fmt: skip
    with pytest.raises(SchemaConversionError) as info:
        to_provider([t], "openai", strict=True, errors="raise")
    assert info.value.keyword == "additionalProperties"
    out, report = convert(t, "openai", strict=True)
    sdk["openai"](out)
    assert "strict" not in out["function"]
    assert out["function"]["parameters"]["additionalProperties"]
    assert [(c.keyword, c.action) for c in report.changes] == [("additionalProperties", "fallback")]
    responses = to_provider([t], "openai-responses", strict=True)[0]
    sdk["openai-responses"](responses)
    assert responses["strict"] is False


def test_all_of_that_cannot_merge(sdk: Any) -> None:
    """allOf of two schemas cannot be strict, nor Gemini's subset: a fallback each, or an error."""
    t = _schema_tool({"type": "object", "properties": {"a": {"allOf": [
        {"type": "string"}, {"type": "integer"}]}}})  # fmt: skip
    with pytest.raises(SchemaConversionError, match="allOf"):
        to_provider([t], "openai", strict=True, errors="raise")
    declaration, report = convert(t, "gemini")
    sdk["gemini"](declaration)
    assert declaration["parametersJsonSchema"] == t.parameters
    assert report.changes[0].keyword == "allOf"


LONG = (
    "Fetches a URL from the internet and extracts its contents as markdown. "
    "Although originally you did not have internet access, this tool now grants it. "
) * 20


def test_long_description_is_shortened_at_a_sentence_for_openai(sdk: Any) -> None:
    """Over 1,024 characters: cut after a whole sentence and reported; errors="raise" raises."""
    t = _schema_tool({"type": "object", "properties": {}}, description=LONG)
    for provider in ("openai", "openai-responses"):
        out, report = convert(t, provider)
        sdk[provider](out)
        text = out["function"]["description"] if provider == "openai" else out["description"]
        assert 900 < len(text) <= 1024
        assert text.endswith("markdown.")
        assert LONG.startswith(text + " ")
        [change] = report.changes
        assert (change.keyword, change.action) == ("description", "shortened")
        assert f"{len(LONG)} characters; " + provider + " takes at most 1024" in change.detail
        assert not report.lossless
        with pytest.raises(SchemaConversionError, match="1024") as info:
            convert(t, provider, errors="raise")
        assert (info.value.tool_name, info.value.provider) == ("s", provider)
    for provider in ("mcp", "anthropic", "gemini", "mistral"):
        assert convert(t, provider)[1].changes == ()
    assert to_provider([t], "mcp")[0]["description"] == LONG


def test_gemini_translates_what_its_subset_lacks(sdk: Any) -> None:
    """const, oneOf, type lists, integer enums and number formats are translated and reported."""
    t = _schema_tool({"type": "object", "properties": {
        "a": {"const": "x"},
        "b": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "c": {"type": ["integer", "string", "null"]},
        "d": {"type": "integer", "enum": [1, 2]},
        "e": {"type": "number", "format": "decimal", "exclusiveMinimum": 0},
        "f": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
        "g": {"type": "object", "properties": {"x": {"type": "string"}},
              "allOf": [{"required": ["x"]}]},
    }})  # fmt: skip
    out, report = convert(t, "gemini")
    sdk["gemini"](out)
    props = out["parameters"]["properties"]
    assert props["a"] == {"enum": ["x"], "type": "STRING"}
    assert props["b"]["anyOf"] == [{"type": "STRING"}, {"type": "INTEGER"}]
    assert props["c"]["nullable"] is True
    assert "enum" not in props["d"]
    assert "[1, 2]" in props["d"]["description"]
    assert "exclusiveMinimum" in props["e"]["description"]
    assert props["f"]["minItems"] == props["f"]["maxItems"] == 2
    assert props["g"]["required"] == ["x"]
    assert not report.lossless
    assert any(c.keyword == "enum" and c.action == "moved_to_description" for c in report.changes)
    assert "gemini" in str(report)


def test_strict_moves_unsupported_keywords_into_the_description(sdk: Any) -> None:
    """Keywords outside the strict subset are kept as text, and the report says so."""
    t = _schema_tool({"type": "object", "properties": {
        "a": {"type": "string", "format": "uri", "pattern": "(?=x)x"},
        "b": {"type": "array", "uniqueItems": True},
        "c": {"type": "string", "const": "k", "title": "C"},
    }, "required": ["a"]})  # fmt: skip
    out, report = convert(t, "openai", strict=True)
    sdk["openai"](out)
    props = out["function"]["parameters"]["properties"]
    assert props["a"] == {"type": "string", "description": '(format: "uri", pattern: "(?=x)x")'}
    assert props["b"]["items"]["type"] == "string"  # untyped items travel as JSON strings
    assert props["c"]["enum"] == ["k", None]
    assert {c.keyword for c in report.changes} >= {"format", "pattern", "uniqueItems", "const"}


def test_plain_conversion_reports_nothing() -> None:
    """Non-strict OpenAI output is the canonical schema itself: an empty, lossless report."""
    out, report = convert(find, "openai")
    assert out["function"]["parameters"] == find.parameters
    assert report.changes == ()
    assert report.lossless
    assert str(report) == "find -> openai: unchanged"


def test_ollama_and_mcp_ignore_strict() -> None:
    """Providers without a strict mode send the schema as is (and say so for Ollama)."""
    out, report = convert(find, "ollama", strict=True)
    assert out["function"]["parameters"] == find.parameters
    assert report.changes[0].keyword == "strict"
    assert convert(find, "mcp", strict=True)[0] == convert(find, "mcp")[0]


def test_strict_note_for_nullable_optional_with_a_default() -> None:
    """A nullable optional with a non-null default cannot keep its default in strict mode."""
    _, report = convert(find, "openai", strict=True)
    notes = [c for c in report.changes if c.action == "note" and c.keyword == "default"]
    assert [c.path for c in notes] == ["/properties/limit"]


def test_strict_size_limits_fail_clearly() -> None:
    """Nesting over 10 objects or over 1,000 enum values cannot be strict."""
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(11):
        deep = {"type": "object", "properties": {"x": deep}, "required": ["x"]}
    with pytest.raises(SchemaConversionError, match="nest 11 levels"):
        to_provider([_schema_tool(deep)], "openai", strict=True, errors="raise")
    assert convert(_schema_tool(deep), "openai", strict=True)[1].changes[0].action == "fallback"
    many = {"type": "object", "properties": {"e": {"type": "integer", "enum": list(range(1001))}}}
    with pytest.raises(SchemaConversionError, match="enum values; the limit is 1000"):
        to_provider([_schema_tool(many)], "openai", strict=True, errors="raise")
    wide = {"type": "object", "properties": {f"p{i}": {"type": "object", "properties": {
        f"q{j}": {"type": "integer"} for j in range(500)}} for i in range(11)}}  # fmt: skip
    with pytest.raises(SchemaConversionError, match="5511 properties"):
        to_provider([_schema_tool(wide)], "openai", strict=True, errors="raise")


def test_memo_replays_the_report_and_survives_clearing() -> None:
    """A second conversion of the same tool reports the same changes, memo or not."""
    from forge.tools.formats import _memo

    first = convert(find, "gemini")[1]
    assert convert(find, "gemini")[1] == first
    _memo.clear()
    assert convert(find, "gemini")[1] == first


def test_memo_keeps_at_most_max_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oldest memoised schemas go first once the memo is full."""
    from forge.tools.formats import _memo
    from forge.tools.formats._schema import Context

    _memo.clear()
    monkeypatch.setattr(_memo, "MAX_ENTRIES", 2)
    schemas = [{"type": "object", "properties": {f"p{i}": {"type": "string"}}} for i in range(3)]
    for schema in schemas:
        ctx = Context("t", "gemini", False)
        _memo.compiled(schema, None, ctx, "test", lambda s, _c, _t: dict(s))
    assert [entry[0] for entry in _memo._memo.values()] == schemas[1:]
    _memo.clear()
