"""Loading tool definitions from YAML, JSON and TOML files."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from forge.core.errors import (
    ConfigError,
    ConfigWarning,
    DuplicateHandlerError,
    ToolDefinitionError,
)
from forge.tools import ToolCategory, ToolRegistry
from forge.tools.config import HandlerRegistry, builtin_handlers, load_tools


def definition(name: str, **changes: Any) -> dict[str, Any]:
    """A valid mock definition, with some keys changed."""
    base: dict[str, Any] = {
        "name": name,
        "description": f"The {name} tool.",
        "type": "function",
        "handler": name,
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}},
                       "required": ["q"]},
        "implementation": {"type": "mock", "mock_response": {"tool": name}},
    }  # fmt: skip
    base.update(changes)
    return base


YAML = """\
tools:
  - name: get_weather
    description: Get the current weather for a city.
    type: function
    handler: weather
    category: web
    tags: [weather]
    display_name: Weather
    examples:
      - description: Paris
        input: {city: Paris}
    annotations: {read_only: true}
    parameters:
      type: object
      properties:
        city: {type: string, description: City name}
      required: [city]
    implementation:
      type: mock
      mock_response: {temperature: 21, unit: c}
"""

TOML = """\
[[tools]]
name = "shout"
description = "Echo the arguments back."
type = "function"
handler = "echo"
category = "utility"

[tools.parameters]
type = "object"
properties = { text = { type = "string" } }

[tools.implementation]
type = "builtin"
handler = "echo"
"""


def test_yaml_file_with_metadata(tmp_path: Path) -> None:
    """A YAML definition becomes a tool with its metadata, examples and mock response."""
    path = tmp_path / "tools.yaml"
    path.write_text(YAML)
    report = load_tools(path)
    assert report.ok
    tool = report.registry.get_or_raise("get_weather")
    assert tool.category is ToolCategory.WEB
    assert tool.metadata.display_name == "Weather"
    assert tool.annotations.read_only is True
    assert tool.metadata.extra["implementation"] == "mock"
    assert report.registry.execute("get_weather", {"city": "Paris"}).output == {
        "temperature": 21,
        "unit": "c",
    }


def test_toml_file_with_a_builtin(tmp_path: Path) -> None:
    """A TOML [[tools]] table with a builtin handler runs that handler."""
    path = tmp_path / "tools.toml"
    path.write_text(TOML)
    report = load_tools(path)
    assert [t.name for t in report.tools] == ["shout"]
    assert report.registry.execute("shout", {"text": "hi"}).output == {"text": "hi"}


def test_json_list_with_an_internal_handler(tmp_path: Path) -> None:
    """A JSON list of definitions resolves internal handlers from the internal registry."""
    internal = HandlerRegistry("internal")
    store: dict[str, str] = {}

    def put(key: str, value: str) -> str:
        return store.setdefault(key, value)

    internal.register("kv.put", put)
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([definition(
        "put_value",
        parameters={"type": "object", "properties": {"key": {"type": "string"},
                                                     "value": {"type": "string"}}},
        implementation={"type": "internal", "handler": "kv.put"},
    )]))  # fmt: skip
    report = load_tools(path, internal=internal)
    assert report.registry.execute("put_value", {"key": "a", "value": "b"}).output == "b"
    assert store == {"a": "b"}


def test_mock_response_can_be_any_json_value(tmp_path: Path) -> None:
    """A mock response may be a list, a string, a number or null, and is copied per call."""
    path = tmp_path / "mocks.json"
    values: list[Any] = [[1, {"a": 2}], "text", 3.5, None]
    path.write_text(json.dumps([
        definition(f"m{i}", implementation={"type": "mock", "mock_response": v})
        for i, v in enumerate(values)
    ]))  # fmt: skip
    registry = load_tools(path).registry
    for i, value in enumerate(values):
        out = registry.execute(f"m{i}", {"q": "x"}).output
        assert out == value
    first = registry.execute("m0", {"q": "x"}).output
    first[1]["a"] = 99
    assert registry.execute("m0", {"q": "x"}).output == [1, {"a": 2}]


BAD: list[tuple[Any, str]] = [
    ({**definition("no_impl"), "implementation": None}, "implementation.type"),
    (definition("no_mock", implementation={"type": "mock"}), "needs 'mock_response'"),
    (definition("wrong_type", type="tool"), "'type' must be \"function\" (or left out)"),
    (definition("bad_params", parameters={"type": "array"}), '"type": "object"'),
    (definition("no_handler", handler=""), "'handler' must be a non-empty string"),
    (definition("unknown_impl", implementation={"type": "python", "code": "x"}), "one of mock"),
    (definition("extra_key", run="rm -rf /"), "unknown key"),
    (definition("bad_builtin", implementation={"type": "builtin", "handler": "nope"}),
     "unknown builtin handler 'nope'"),
    (definition("bad_example", examples=[{"description": "d", "input": {"q": 1}}]),
     "example 1"),
    ({"description": "nameless"}, "a tool name must be a string"),
    ("just a string", "must be a mapping"),
]  # fmt: skip


def test_mixed_file_logs_each_invalid_and_registers_all_valid(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Each invalid definition is logged with file, tool and reason; every valid one loads."""
    path = tmp_path / "mixed.json"
    valid = [definition("first"), definition("second"), definition("third")]
    items = [valid[0], *[b for b, _ in BAD[:6]], valid[1], *[b for b, _ in BAD[6:]], valid[2]]
    path.write_text(json.dumps(items))
    with (
        caplog.at_level(logging.ERROR, logger="forge.tools.config"),
        pytest.warns(ConfigWarning),
    ):
        report = load_tools(path)
    assert report.registry.names() == ["first", "second", "third"]
    assert len(report.issues) == len(BAD)
    for issue, (_, reason) in zip(report.issues, BAD, strict=True):
        assert issue.file == str(path)
        assert reason in issue.message
    logged = [r.getMessage() for r in caplog.records]
    assert len(logged) == len(BAD)
    assert (
        f"{path}: tool 'bad_builtin' (definition #10): unknown builtin handler 'nope'" in logged[7]
    )
    assert f"{path}: definition #" in logged[-1]


def test_duplicates_across_files_keep_the_first(tmp_path: Path) -> None:
    """A name defined in two files is reported for the second file; the first stays."""
    one, two = tmp_path / "one.json", tmp_path / "two.yaml"
    one.write_text(json.dumps([definition("shared"), definition("only_one")]))
    two.write_text(
        "- " + json.dumps(definition("shared", description="Second copy.")) + "\n"
        "- " + json.dumps(definition("only_two"))
    )
    with pytest.warns(ConfigWarning, match="already defined in"):
        report = load_tools([one, two])
    assert report.registry.names() == ["shared", "only_one", "only_two"]
    assert report.registry.get_or_raise("shared").description == "The shared tool."
    [issue] = report.issues
    assert issue.file == str(two)
    assert (issue.tool, issue.index, issue.kind) == ("shared", 1, "duplicate")
    assert issue.message == f"a tool with this name is already defined in {one} (definition #1)"


def test_duplicate_of_a_registered_tool(tmp_path: Path) -> None:
    """Loading into a registry that already holds a name keeps the registered tool."""
    registry = ToolRegistry()
    path = tmp_path / "t.json"
    path.write_text(json.dumps([definition("dup")]))
    load_tools(path, registry=registry)
    with pytest.warns(ConfigWarning):
        report = load_tools(path, registry=registry)
    assert report.tools == ()
    assert "already defined in the registry" in report.issues[0].message


def test_strict_mode_fails_and_registers_nothing(tmp_path: Path) -> None:
    """In strict mode any invalid definition raises ConfigError and nothing is registered."""
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps([definition("good"), definition("bad", type="x")]))
    registry = ToolRegistry()
    with pytest.raises(ConfigError) as info:
        load_tools(path, registry=registry, strict=True)
    assert len(registry) == 0
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith("1 problem in the tool configuration; nothing was registered")
    assert "tool 'bad' (definition #2): 'type' must be" in str(info.value)
    assert len(info.value.issues) == 1


def test_strict_mode_loads_valid_files(tmp_path: Path) -> None:
    """Strict mode registers everything when every definition is valid."""
    path = tmp_path / "ok.yaml"
    path.write_text(YAML)
    assert load_tools(path, strict=True).registry.names() == ["get_weather"]


@pytest.mark.parametrize(
    ("name", "text", "reason", "kind"),
    [
        ("missing.yaml", None, "file not found", "missing"),
        ("broken.json", "[{", "invalid JSON at line 1", "unreadable"),
        ("broken.toml", "[[tools]\n", "invalid TOML", "unreadable"),
        ("broken.yaml", "tools: [", "invalid YAML", "unreadable"),
        ("tools.txt", "[]", "unsupported file type", "unreadable"),
        ("scalar.yaml", "42", "expected a list", "unreadable"),
        ("other.yaml", "functions: []", "unknown top-level key", "unreadable"),
    ],
)
def test_unreadable_files_are_issues(
    tmp_path: Path, name: str, text: str | None, reason: str, kind: str
) -> None:
    """Missing or malformed files are reported with the file name and kind, not raised."""
    path = tmp_path / name
    if text is not None:
        path.write_text(text)
    with pytest.warns(ConfigWarning, match=reason):
        report = load_tools(path)
    [issue] = report.issues
    assert reason in issue.message
    assert issue.kind == kind
    assert str(issue).startswith(str(path))
    with pytest.raises(ConfigError, match=reason):
        load_tools(path, strict=True)


def test_empty_file_loads_nothing(tmp_path: Path) -> None:
    """An empty YAML file is valid and holds no tools."""
    path = tmp_path / "empty.yaml"
    path.write_text("")
    assert load_tools(path).ok


def test_builtin_registry_extensions() -> None:
    """Handler registries accept new names, refuse duplicates and bad names."""
    handlers = builtin_handlers()
    assert {"echo", "current_time", "word_count"} <= set(handlers)

    @handlers.register("double")
    def double(x: int) -> int:
        return 2 * x

    assert handlers.get("double") is double
    assert "double" not in builtin_handlers()
    assert len(handlers.copy()) == len(handlers)
    with pytest.raises(DuplicateHandlerError, match="already registered"):
        handlers.register("double", double)
    with pytest.raises(ValueError, match="invalid builtin handler name"):
        handlers.register("bad name", double)
    with pytest.raises(TypeError, match="must be callable"):
        handlers.register("x", 3)  # type: ignore[call-overload]
    assert "double" in repr(handlers)


def test_bundled_builtins_run(tmp_path: Path) -> None:
    """The shipped builtins word_count and current_time work from configuration."""
    path = tmp_path / "b.json"
    path.write_text(json.dumps([
        definition("count",
                   parameters={"type": "object", "properties": {"text": {"type": "string"}}},
                   implementation={"type": "builtin", "handler": "word_count"}),
        definition("now", parameters={"type": "object"},
                   implementation={"type": "builtin", "handler": "current_time"}),
    ]))  # fmt: skip
    registry = load_tools(path).registry
    assert registry.execute("count", {"text": "a b"}).output["words"] == 2
    assert registry.execute("now", {}).output.endswith("+00:00")


def test_build_tool_errors_name_the_tool() -> None:
    """build_tool raises ToolDefinitionError naming the tool."""
    from forge.tools.config import build_tool

    with pytest.raises(ToolDefinitionError) as info:
        build_tool(definition("x", handler=3), builtins=builtin_handlers(),
                   internal=HandlerRegistry("internal"))  # fmt: skip
    assert info.value.tool_name == "x"


def test_skipped_definitions_warn_once_naming_each_one(tmp_path: Path) -> None:
    """Without logging configured, one ConfigWarning at the caller names every skipped tool."""
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([
        definition("good"), definition("bad_type", type="tool"), definition("good"),
    ]))  # fmt: skip
    with pytest.warns(ConfigWarning) as caught:
        report = load_tools(path)
    [warning] = caught
    assert warning.filename == __file__
    assert isinstance(warning.message, ConfigWarning)
    assert warning.message.issues == report.issues
    text = str(warning.message)
    assert text.startswith("2 problems in the tool configuration; the invalid definitions were")
    assert f"{path}: tool 'bad_type' (definition #2): 'type' must be" in text
    duplicate = "a tool with this name is already defined in"
    assert f"{path}: tool 'good' (definition #3): {duplicate} {path} (definition #1)" in text
    assert report.registry.names() == ["good"]


def test_strict_error_lists_every_problem_without_claiming_the_first_stays(
    tmp_path: Path,
) -> None:
    """Strict mode names each problem, and a duplicate does not claim a tool was kept."""
    path = tmp_path / "tools.yaml"
    path.write_text(
        "- " + json.dumps(definition("dup")) + "\n- " + json.dumps(definition("dup")) + "\n"
        "- " + json.dumps(definition("bad", implementation={"type": "mok"})) + "\n"
    )
    with pytest.raises(ConfigError) as info:
        load_tools(path, strict=True)
    message = str(info.value)
    assert message.startswith("2 problems in the tool configuration; nothing was registered:\n")
    assert "first stays" not in message
    assert [i.kind for i in info.value.issues] == ["duplicate", "invalid"]
    assert [i.tool for i in info.value.issues] == ["dup", "bad"]


def test_every_problem_of_a_definition_is_reported_at_once(tmp_path: Path) -> None:
    """A definition with several mistakes is reported with all of them in one issue."""
    bad = {
        "name": "many",
        "type": "tool",
        "handler": 3,
        "colour": "red",
        "category": "planets",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        "examples": [{"description": "d", "input": {"q": 1}}],
        "implementation": {"type": "mock", "response": 1},
    }
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([bad]))
    with pytest.warns(ConfigWarning):
        [issue] = load_tools(path).issues
    for part in [
        "unknown key(s) ['colour']",
        "the definition has no 'description'",
        "'type' must be \"function\"",
        "'handler' must be a non-empty string",
        "unknown mock implementation key(s) ['response']",
        "a mock implementation needs 'mock_response'",
        "unknown tool category 'planets'",
    ]:
        assert part in issue.message


def test_the_record_fields_are_checked_even_when_the_implementation_is_invalid(
    tmp_path: Path,
) -> None:
    """An unresolvable handler does not hide an example that fails the tool's own schema."""
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([definition(
        "two", examples=[{"description": "d", "input": {"q": 1}}],
        implementation={"type": "builtin", "handler": "nope"},
    )]))  # fmt: skip
    with pytest.warns(ConfigWarning):
        [issue] = load_tools(path).issues
    assert "unknown builtin handler 'nope'" in issue.message
    assert "example 1 ('d') is rejected" in issue.message


def test_type_and_handler_are_optional(tmp_path: Path, http_server: str) -> None:
    """Mock, http and builtin definitions load without `type` and the top-level `handler`."""
    plain = {"type": "object", "properties": {"text": {"type": "string"}}}
    definitions = [
        {"name": "m", "description": "Mock.", "parameters": plain,
         "implementation": {"type": "mock", "mock_response": 1}},
        {"name": "h", "description": "HTTP.", "parameters": plain,
         "implementation": {"type": "http", "url": http_server + "/echo"}},
        {"name": "b", "description": "Builtin.", "parameters": plain,
         "implementation": {"type": "builtin", "handler": "word_count"}},
        {**definition("labelled"), "handler": "a_label"},
    ]  # fmt: skip
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(definitions))
    registry = load_tools(path, allow_private_network=["127.0.0.1"]).registry
    assert registry.names() == ["m", "h", "b", "labelled"]
    assert registry.execute("m", {}).output == 1
    assert registry.execute("h", {"text": "x"}).output["query"] == {"text": ["x"]}
    assert registry.execute("b", {"text": "a b"}).output["words"] == 2
    assert "handler" not in registry.get_or_raise("m").metadata.extra
    assert registry.get_or_raise("labelled").metadata.extra["handler"] == "a_label"


def test_the_top_level_handler_does_not_stand_in_for_the_implementation() -> None:
    """A builtin without `implementation.handler` is refused, saying the label is not used."""
    from forge.tools.config import build_tool

    bare = definition("b", handler="echo", implementation={"type": "builtin"})
    with pytest.raises(ToolDefinitionError, match="top-level 'handler' is only a label"):
        build_tool(bare, builtins=builtin_handlers(), internal=HandlerRegistry("internal"))


def test_an_internal_tool_without_a_handler_is_named_with_the_right_article() -> None:
    """The message reads "an internal implementation", never "a internal"."""
    from forge.tools.config import build_tool

    bare = definition("i", implementation={"type": "internal"})
    with pytest.raises(ToolDefinitionError, match="an internal implementation needs 'handler'"):
        build_tool(bare, builtins=builtin_handlers(), internal=HandlerRegistry("internal"))
    internal = HandlerRegistry("internal", {"notes.add": lambda: None})
    with pytest.raises(DuplicateHandlerError, match=r"an internal handler named 'notes\.add'"):
        internal.register("notes.add", lambda: None)


def test_config_warning_is_a_user_warning() -> None:
    """ConfigWarning is shown by Python's default filters and keeps its issues when pickled."""
    import pickle

    warning = ConfigWarning(["a.yaml: tool 'x': bad"])
    assert isinstance(warning, UserWarning)
    copy = pickle.loads(pickle.dumps(warning))
    assert copy.issues == warning.issues
    assert str(copy) == str(warning)


def test_a_plain_script_shows_the_skipped_definitions(tmp_path: Path) -> None:
    """With no logging configured and default warning filters, the skipped tool is on stderr."""
    import subprocess
    import sys

    path = tmp_path / "tools.json"
    path.write_text(json.dumps([definition("good"), definition("bad", type="tool")]))
    script = f"from forge.tools.config import load_tools\nload_tools({str(path)!r})\n"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "ConfigWarning: 1 problem in the tool configuration" in done.stderr
    assert f"{path}: tool 'bad' (definition #2): 'type' must be" in done.stderr
