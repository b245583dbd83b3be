"""One tool never breaks a whole export: each tool converts, falls back or is named."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forge.core.errors import SchemaConversionError, UnsupportedProviderError
from forge.tools import Tool, ToolRegistry, from_record
from forge.tools.formats import LIMITS, PROVIDERS, convert, convert_all, to_provider
from forge.tools.formats.limits import shorten
from tests.unit.tools.formats.crafted import LONG_DESCRIPTION, records

WIRE = [p for p in PROVIDERS if p != "langchain"]


def _noop(**kwargs: Any) -> Any:
    return kwargs


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    """A registry of the crafted tools."""
    return ToolRegistry([from_record(r) for r in records(_noop)])


def declarations(provider: str, definitions: list[Any]) -> list[Any]:
    """The per-tool definitions of an export (Gemini's are inside its one wrapper)."""
    if provider == "gemini":
        return list(definitions[0]["functionDeclarations"]) if definitions else []
    return definitions


def name_of(provider: str, definition: Any) -> str:
    """The tool name in one provider definition."""
    if provider in ("openai", "mistral", "ollama"):
        return str(definition["function"]["name"])
    if provider == "bedrock":
        return str(definition["toolSpec"]["name"])
    if provider == "langchain":
        return str(definition.name)
    return str(definition["name"])


@pytest.mark.parametrize("provider", list(PROVIDERS))
@pytest.mark.parametrize("strict", [False, True])
def test_every_crafted_tool_converts_for_every_provider(
    registry: ToolRegistry, provider: str, strict: bool, sdk: Any
) -> None:
    """No tool is lost or breaks the others, and the provider's SDK type accepts each one."""
    definitions = registry.to_provider(provider, strict=strict)
    items = declarations(provider, definitions)
    assert [name_of(provider, d) for d in items] == registry.names()
    for item in items:
        sdk[provider](item)
    conversion = registry.conversion(provider, strict=strict)
    assert list(conversion.definitions) == definitions
    assert [r.tool for r in conversion.reports] == registry.names()
    assert conversion.excluded == ()


def _actions(provider: str, strict: bool, tool: str, registry: ToolRegistry) -> set[str]:
    report = registry.conversion(provider, strict=strict).report(tool)
    return {c.action for c in report.changes}


def test_recursive_tree_goes_to_gemini_as_json_schema(registry: ToolRegistry) -> None:
    """Gemini gets the tree whole as parametersJsonSchema; the report names the fallback."""
    tree = registry.get_or_raise("tree")
    declaration = declarations("gemini", registry.to_provider("gemini"))[1]
    assert declaration == {"name": "tree", "description": "The tree tool.",
                           "parametersJsonSchema": tree.parameters}  # fmt: skip
    report = registry.conversion("gemini").report("tree")
    assert report.lossless
    assert [c.action for c in report.changes] == ["rewritten"]
    assert "'parametersJsonSchema'" in report.changes[0].detail


def test_long_description_and_the_prompt_text_it_offers(registry: ToolRegistry) -> None:
    """OpenAI gets whole sentences up to 1,024 characters; generate_prompt offers the rest."""
    body = declarations("openai", registry.to_provider("openai"))[-1]["function"]
    kept = body["description"]
    assert len(LONG_DESCRIPTION) > 1024 >= len(kept)
    assert kept.endswith("model to read.")
    rest = registry.generate_prompt(shortened_for="openai")
    assert rest.startswith("More about the tools (their descriptions were cut to fit openai's")
    assert rest.endswith(LONG_DESCRIPTION[len(kept) + 1 :])
    assert f"- fetch (continued): {LONG_DESCRIPTION[len(kept) + 1 :]}" in rest
    assert registry.generate_prompt(shortened_for="anthropic") == ""
    assert registry.generate_prompt(shortened_for="openai", categories=["web"]) == ""
    with pytest.raises(UnsupportedProviderError):
        registry.generate_prompt(shortened_for="gpt")
    assert _actions("openai", False, "fetch", registry) == {"shortened"}
    assert _actions("mistral", False, "fetch", registry) == set()


def test_boolean_parameters_for_ollama_and_the_strict_modes(registry: ToolRegistry) -> None:
    """Ollama gets {} for true and no 'false' parameter; strict modes fall back, Gemini too."""
    params = declarations("ollama", registry.to_provider("ollama"))[2]["function"]["parameters"]
    nested = {"type": "object", "properties": {"x": {}}}
    assert params["properties"] == {"anything": {}, "q": {"type": "string"}, "nested": nested}
    assert params["required"] == ["q"]
    report = registry.conversion("ollama").report("flags")
    assert [(c.path, c.action) for c in report.changes] == [
        ("/properties/anything", "rewritten"),
        ("/properties/never", "removed"),
        ("/properties/nested/properties/x", "rewritten"),
    ]
    for provider in ("openai", "anthropic", "bedrock", "mistral"):
        assert _actions(provider, True, "flags", registry) >= {"fallback"}, provider
    gemini = registry.conversion("gemini").report("flags")
    assert gemini.changes[-1].action == "rewritten"
    assert gemini.changes[-1].path == "/properties/never"


def test_draft_4_tool_converts_everywhere(registry: ToolRegistry) -> None:
    """The draft-4 tool was upgraded on import, so every provider sees 2020-12."""
    tool = registry.get_or_raise("draft4")
    assert tool.parameters["properties"]["n"] == {"$ref": "#/$defs/Positive"}
    assert len(tool.schema_rewrites) == 4
    openai = declarations("openai", registry.to_provider("openai", strict=True))[3]
    assert openai["function"]["strict"] is True


def test_errors_raise_names_tool_provider_and_limit(registry: ToolRegistry) -> None:
    """With errors="raise" the first tool that cannot be sent as asked raises, naming it."""
    with pytest.raises(SchemaConversionError) as info:
        registry.to_provider("openai", errors="raise")
    err = info.value
    assert (err.tool_name, err.provider, err.keyword) == ("fetch", "openai", "description")
    assert "takes at most 1024" in str(err)
    with pytest.raises(SchemaConversionError) as strict_info:
        registry.to_provider("anthropic", strict=True, errors="raise")
    assert strict_info.value.tool_name == "tree"
    assert len(declarations("gemini", registry.to_provider("gemini", errors="raise"))) == 7
    with pytest.raises(ValueError, match="errors must be"):
        to_provider([], "openai", errors="ignore")  # type: ignore[arg-type]


def test_openai_takes_at_most_128_tools(caplog: pytest.LogCaptureFixture) -> None:
    """Tools past the 128th are kept with a note and a log line; errors="raise" raises instead."""
    tools = [from_record({"name": f"t{i}", "description": "T.", "handler": _noop})
             for i in range(130)]  # fmt: skip
    with caplog.at_level("WARNING"):
        conversion = convert_all(tools, "openai")
    assert "the openai export has 130 tools; one request takes at most 128" in caplog.text
    assert len(conversion.definitions) == 130
    assert conversion.excluded == ()
    over = [r.tool for r in conversion.reports if any(c.action == "over_limit" for c in r.changes)]
    assert over == ["t128", "t129"]
    assert "at most 128 tools" in conversion.reports[-1].changes[-1].detail
    assert conversion.reports[-1].lossless
    assert len(to_provider(tools, "anthropic")) == 130
    with pytest.raises(SchemaConversionError, match="at most 128"):
        convert_all(tools, "openai", errors="raise")


@dataclass(frozen=True)
class Foreign:
    """A definition from elsewhere (the `ToolDefinition` protocol) under an MCP-style name."""

    tool: Tool
    name: str

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.tool, attribute)


def test_a_name_a_provider_rejects_leaves_only_that_tool_out() -> None:
    """math.add is fine for Gemini and MCP, left out (and named) for OpenAI."""
    plain = from_record({"name": "add", "description": "Add.", "handler": _noop})
    dotted = Foreign(plain, "math.add")
    conversion = convert_all([dotted, plain], "openai")  # type: ignore[list-item]
    assert [d["function"]["name"] for d in conversion.definitions] == ["add"]
    [left_out] = conversion.excluded
    assert left_out.to_dict()["exported"] is False
    assert "'math.add' does not match" in str(left_out)
    with pytest.raises(SchemaConversionError, match="does not match"):
        convert(dotted, "openai")  # type: ignore[arg-type]
    assert len(to_provider([dotted], "gemini")[0]["functionDeclarations"]) == 1  # type: ignore[list-item]
    assert to_provider([dotted], "mcp")[0]["name"] == "math.add"  # type: ignore[list-item]


def test_every_provider_has_a_limits_entry() -> None:
    """The limits table covers every provider."""
    assert set(LIMITS) == set(PROVIDERS)
    assert LIMITS["openai"].name_problem("ok_name") is None


@given(st.text(alphabet=st.sampled_from("ab .!?\n"), max_size=300), st.integers(8, 120))
def test_shorten_cuts_between_words_and_loses_nothing(text: str, limit: int) -> None:
    """The kept part fits and ends at a sentence or a space; kept and rest hold every character."""
    kept, rest = shorten(text, limit)
    if len(text) <= limit:
        assert (kept, rest) == (text, "")
        return
    assert len(kept) <= limit
    body = kept.removesuffix(" …")
    assert text.startswith(body)
    assert "".join((body + rest).split()) == "".join(text.split())
    at_boundary = text[len(body) : len(body) + 1] in (" ", "\n") or body[-1:] in (".", "!", "?")
    no_space = " " not in text[1 : limit - 1]
    assert at_boundary or no_space
