"""The definition linter behind `forge-tools validate`."""

from __future__ import annotations

from typing import Any

from forge.tools import from_record
from forge.tools.formats import PROVIDERS, convert_all
from forge.tools.model.lint import conversion_findings, lint_tool, lint_tools


def tool(parameters: dict[str, Any], description: str = "Does a thing.") -> Any:
    """A schema-only tool."""
    return from_record({"name": "t", "description": description, "parameters": parameters,
                        "handler": lambda args: args})  # fmt: skip


def messages(parameters: dict[str, Any], description: str = "Does a thing.") -> list[str]:
    """The findings of the linter and of every export, as 'provider/severity: message'."""
    built = tool(parameters, "placeholder").replace(description=description)
    exports = [convert_all([built], p) for p in PROVIDERS if p != "langchain"]
    found = lint_tool(built) + conversion_findings(exports)
    return [f"{f.provider}/{f.severity}: {f.message}" for f in found]


def test_clean_tool_has_no_findings() -> None:
    """A closed schema whose parameters are all described and required is clean."""
    schema = {"type": "object", "properties": {"q": {"type": "string", "description": "Query"}},
              "required": ["q"], "additionalProperties": False}  # fmt: skip
    assert messages(schema) == []


def test_description_problems() -> None:
    """An empty description is an error; one over 1,024 characters is shortened for OpenAI."""
    closed = {"type": "object", "properties": {}, "additionalProperties": False}
    assert messages(closed, " ") == [
        "all/error: the description is empty; models choose tools by their description"
    ]
    found = messages(closed, "x" * 1500)
    assert [m.split(":")[0] for m in found] == ["openai/warning", "openai-responses/warning"]
    assert "/: description shortened: the description is 1500 characters" in found[0]


def test_parameters_without_descriptions_including_nested() -> None:
    """Every parameter without a description is reported by its path."""
    item = {"type": "object", "additionalProperties": False,
            "properties": {"c": {"type": "integer"}}}  # fmt: skip
    items = {"type": "array", "description": "Items", "items": item}
    schema = {"type": "object", "additionalProperties": False, "required": ["a", "b"],
              "properties": {"a": {"type": "string"}, "b": items}}  # fmt: skip
    found = [m for m in messages(schema) if "no description" in m]
    assert found == ["all/warning: parameter 'a' has no description",
                     "all/warning: parameter 'b[].c' has no description"]  # fmt: skip


def test_openai_strict_changes_are_reported() -> None:
    """Optional parameters and open objects are reported as OpenAI strict-mode changes."""
    schema = {"type": "object", "properties": {"q": {"type": "string", "description": "Q"},
              "opts": {"type": "object", "description": "Options"}}, "required": ["q"]}  # fmt: skip
    found = messages(schema)
    assert "openai/warning: strict mode makes the optional parameter(s) opts required" in found[0]
    assert "(root), opts" in found[1]


def test_gemini_losses_are_reported() -> None:
    """What Gemini's schema subset loses is reported; closing objects and inlining are not."""
    schema = {"type": "object", "additionalProperties": False, "required": ["p"],
              "$defs": {"P": {"type": "object", "additionalProperties": {"type": "string"}}},
              "properties": {"p": {"$ref": "#/$defs/P", "description": "P"},
                             "k": {"const": "x", "description": "K"}}}  # fmt: skip
    gemini = [m for m in messages(schema) if m.startswith("gemini")]
    assert gemini == [
        "gemini/warning: /properties/p: additionalProperties moved_to_description: "
        "Gemini's schema subset has no additionalProperties"
    ]


def test_lint_tools_and_to_dict() -> None:
    """lint_tools concatenates the findings of several tools; findings serialise to dicts."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    found = lint_tools([tool(schema), tool(schema)])
    assert len(found) == 2 * len(lint_tool(tool(schema)))
    assert set(found[0].to_dict()) == {"tool", "provider", "severity", "message"}


def test_strict_mode_warning_says_what_execution_does_with_null() -> None:
    """The warning's claim holds: a null means "left out" on every execution path."""
    from forge.tools import ToolCall, ToolExecutor, ToolRegistry
    from forge.tools import tool as make_tool

    @make_tool
    def find(query: str, limit: int = 10, cursor: str | None = None) -> list[object]:
        """Find things.

        Args:
            query: What to find.
            limit: The most results.
            cursor: Where to resume.
        """
        return [query, limit, cursor]

    [strict_warning] = [f.message for f in lint_tool(find) if "strict mode makes" in f.message]
    assert strict_warning.startswith(
        "strict mode makes the optional parameter(s) limit, cursor required and nullable; "
        "a null the model sends for limit counts as left out (the default applies) on every "
        "execution path, with no switch to set"
    )
    registry = ToolRegistry([find])
    call = ToolCall("c1", "find", {"query": "q", "limit": None, "cursor": None})
    assert registry.execute_all([call])[0].output == ["q", 10, None]
    assert ToolExecutor(registry).execute_call_sync(call).output == ["q", 10, None]
    assert registry.execute("find", {"query": "q", "limit": None}).output == ["q", 10, None]


def test_a_null_for_an_optional_parameter_without_default_means_left_out() -> None:
    """A record's optional, non-nullable parameter with no default: null is dropped, not sent."""
    from forge.tools import ToolRegistry, from_record

    seen: list[dict[str, object]] = []
    schema = {"type": "object", "required": ["q"],
              "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}}  # fmt: skip
    record = from_record({"name": "look", "description": "Look.", "parameters": schema,
                          "handler": lambda **kw: seen.append(kw) or "ok"})  # fmt: skip
    registry = ToolRegistry([record])
    assert registry.execute("look", {"q": "x", "n": None}).success
    assert seen == [{"q": "x"}]
    assert registry.execute_all([{"name": "look", "arguments": {"q": None}}])[0].error_kind == (
        "invalid_arguments"
    )


def test_strict_mode_warning_for_nullable_parameters_only() -> None:
    """Optional parameters that already accept null get no claim about defaults."""
    schema = {"type": "object", "additionalProperties": False, "required": [],
              "properties": {"c": {"type": ["string", "null"], "description": "C"}}}  # fmt: skip
    assert messages(schema) == [
        "openai/warning: strict mode makes the optional parameter(s) c required and nullable"
    ]
