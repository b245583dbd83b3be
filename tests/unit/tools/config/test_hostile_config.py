"""Hostile configuration files: alias bombs, deep nesting, huge numbers.

Each bad definition is skipped with its reason and the others load; so is a tool whose
YAML aliases would expand past the per-tool limit. A file whose aliases would expand
past the whole-file limit (refused tools aside) is refused whole, at once.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from forge.core.errors import ConfigError, ConfigWarning
from forge.tools.config import load_tools
from forge.tools.config._limits import MAX_ALIAS_NODES, MAX_DEPTH, MAX_FILE_ALIAS_NODES

GOOD = """\
- name: good
  description: A tool that loads.
  parameters: {type: object, properties: {q: {type: string}}}
  implementation: {type: mock, mock_response: {ok: true}}
"""
BIG = "9" * 5000


def laughs(indent: int) -> str:
    """A "billion laughs": nine levels of nine aliases each (10**9 leaves once expanded)."""
    lines = ["lol0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"lol{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    return "\n".join(" " * indent + line for line in lines)


def bad(name: str, parameters: str = "{type: object}", mock: str = "1") -> str:
    """One definition with the given parameters and mock response (flow YAML)."""
    return (
        f"- name: {name}\n  description: A bad one.\n  parameters: {parameters}\n"
        f"  implementation: {{type: mock, mock_response: {mock}}}\n"
    )


def nested(depth: int) -> str:
    """A schema whose array items nest ``depth`` levels."""
    return (
        "{type: object, properties: {a: "
        + "{type: array, items: " * depth
        + "{}"
        + "}" * depth
        + "}}"
    )


BOMB_IN_MOCK = f"{GOOD}- name: bomb\n  description: x\n  parameters: {{type: object}}\n  implementation:\n    type: mock\n    mock_response:\n{laughs(6)}\n"  # noqa: E501
BOMB_IN_PARAMETERS = f"{GOOD}- name: bomb\n  description: x\n  parameters:\n    type: object\n    $defs:\n{laughs(6)}\n  implementation: {{type: mock, mock_response: 1}}\n"  # noqa: E501
BOMB_AT_TOP = f"tools:\n{GOOD}x-lol:\n{laughs(2)}\n"


def write(tmp_path: Path, text: str, name: str = "tools.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


PER_TOOL = f"more than {MAX_ALIAS_NODES:,} nodes by line"
PER_FILE = f"more than {MAX_FILE_ALIAS_NODES:,} nodes in all"


@pytest.mark.parametrize(
    ("text", "limit"),
    [(BOMB_IN_MOCK, PER_TOOL), (BOMB_IN_PARAMETERS, PER_TOOL), (BOMB_AT_TOP, PER_FILE)],
    ids=["mock", "parameters", "top"],
)
def test_alias_bomb_is_refused_naming_the_file_and_the_limit(
    tmp_path: Path, text: str, limit: str
) -> None:
    """A billion-laughs file fails strict loading with a ConfigError naming the file and limit."""
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_tools(path, strict=True)
    message = str(caught.value)
    assert str(path) in message
    assert limit in message
    assert "(the limit per" in message


@pytest.mark.parametrize(
    ("text", "where"),
    [(BOMB_IN_MOCK, "implementation"), (BOMB_IN_PARAMETERS, "parameters")],
    ids=["mock", "parameters"],
)
def test_an_alias_bomb_in_one_tool_skips_only_that_tool(
    tmp_path: Path, text: str, where: str
) -> None:
    """The bomb tool is skipped with its reason, the valid one loads, in bounded memory."""
    import tracemalloc

    path = write(tmp_path, text)
    tracemalloc.start()
    try:
        with pytest.warns(ConfigWarning, match="limit per tool"):
            report = load_tools(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [t.name for t in report.tools] == ["good"]
    [issue] = report.issues
    assert (issue.kind, issue.tool, issue.index) == ("invalid", "bomb", 2)
    assert PER_TOOL in issue.message
    assert f"(at {where})" in issue.message
    assert peak < 64 * 2**20, f"loading took {peak:,} bytes"


def test_alias_bomb_outside_the_tools_is_one_unreadable_issue(tmp_path: Path) -> None:
    """Aliases outside any definition count against the file: it is reported, nothing raises."""
    path = write(tmp_path, BOMB_AT_TOP)
    with pytest.warns(ConfigWarning, match="limit per file"):
        report = load_tools(path)
    assert [issue.kind for issue in report.issues] == ["unreadable"]
    assert report.tools == ()


def shared(name: str, alias: str, copies: int) -> str:
    """A mock definition whose response is ``copies`` aliases to ``alias``."""
    return bad(name, mock="[" + ", ".join([f"*{alias}"] * copies) + "]")


def test_tools_each_under_the_tool_limit_still_meet_the_file_limit(tmp_path: Path) -> None:
    """Many tools that each stay under the per-tool limit cannot add up past the file limit."""
    anchor = "- name: base\n  description: d\n  parameters: {type: object}\n" + (
        "  implementation: {type: mock, mock_response: &big [" + ", ".join(["x"] * 999) + "]}\n"
    )
    per_tool = MAX_ALIAS_NODES // 1000 - 1  # aliases of 1,000 nodes each, just under the limit
    tools = "".join(
        shared(f"t{i}", "big", per_tool) for i in range(MAX_FILE_ALIAS_NODES // MAX_ALIAS_NODES + 2)
    )
    with pytest.warns(ConfigWarning, match="limit per file"):
        report = load_tools(write(tmp_path, GOOD + anchor + tools))
    assert [issue.kind for issue in report.issues] == ["unreadable"]


def test_an_anchor_of_a_refused_tool_counts_again_where_it_is_reused(tmp_path: Path) -> None:
    """A later tool aliasing a bomb's anchor is refused too; a definition that is an alias too."""
    text = BOMB_IN_MOCK + shared("reuser", "a8", 2) + "- *a9\n" + GOOD.replace("good", "last")
    with pytest.warns(ConfigWarning):
        report = load_tools(write(tmp_path, text))
    assert [t.name for t in report.tools] == ["good", "last"]
    assert [(i.index, i.tool) for i in report.issues] == [(2, "bomb"), (3, "reuser"), (4, None)]
    assert all(PER_TOOL in issue.message for issue in report.issues)


def test_a_recursive_alias_is_refused(tmp_path: Path) -> None:
    """An alias inside the node it names is refused instead of looping."""
    path = write(tmp_path, bad("loop", "&p {type: object, properties: {a: *p}}"))
    with pytest.raises(ConfigError, match="recursive alias"):
        load_tools(path, strict=True)


def test_a_recursive_alias_skips_only_its_tool(tmp_path: Path) -> None:
    """Lenient loading skips the tool with the recursive alias and loads the others."""
    path = write(tmp_path, GOOD + bad("loop", "&p {type: object, properties: {a: *p}}"))
    with pytest.warns(ConfigWarning, match="recursive alias"):
        report = load_tools(path)
    assert [t.name for t in report.tools] == ["good"]
    assert [issue.tool for issue in report.issues] == ["loop"]


def test_ordinary_aliases_still_load(tmp_path: Path) -> None:
    """Anchors shared between definitions load as before."""
    text = (
        "- name: one\n  description: d\n  parameters: &p {type: object, properties: "
        "{q: {type: string}}}\n  implementation: {type: mock, mock_response: 1}\n"
        "- name: two\n  description: d\n  parameters: *p\n"
        "  implementation: {type: mock, mock_response: 2}\n"
    )
    report = load_tools(write(tmp_path, text), strict=True)
    assert [t.name for t in report.tools] == ["one", "two"]
    assert report.tools[1].parameters["properties"] == {"q": {"type": "string"}}


SKIPPED = {
    "props5": (bad("props5", "{type: object, properties: 5}"), "not valid JSON Schema"),
    "nan": (bad("nan", "{type: object, properties: {a: {maximum: .nan}}}"), "nan is not a JSON"),
    "inf": (bad("inf", "{type: object, properties: {a: {minimum: -.inf}}}"), "-inf is not a"),
    "mock_inf": (bad("mock_inf", mock=".inf"), "inf is not a JSON number"),
    "big_bound": (
        bad("big_bound", f"{{type: object, properties: {{a: {{maximum: {BIG}}}}}}}"),
        "an integer of 5000 digits",
    ),
    "big_mock": (bad("big_mock", mock=BIG), "an integer of 5000 digits"),
    "deep_schema": (bad("deep_schema", nested(2 * MAX_DEPTH)), f"more than {MAX_DEPTH} levels"),
    "deep_mock": (bad("deep_mock", mock="[" * 3000 + "]" * 3000), f"more than {MAX_DEPTH} levels"),
    "list_params": (bad("list_params", "[[1]]"), "must be a JSON Schema object"),
    "bad_schema_uri": (bad("bad_schema_uri", '{"$schema": "{{", type: object}'), "$schema"),
}


def test_each_bad_definition_is_skipped_and_the_others_load(tmp_path: Path) -> None:
    """Every hostile definition is skipped with its reason in one warning; the good ones load."""
    text = GOOD + "".join(t for t, _ in SKIPPED.values()) + GOOD.replace("good", "also_good")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = load_tools(write(tmp_path, text))
    assert [t.name for t in report.tools] == ["good", "also_good"]
    reasons = {issue.tool: issue.message for issue in report.issues}
    assert set(reasons) == set(SKIPPED)
    for name, (_, reason) in SKIPPED.items():
        assert reason in reasons[name], name
    [warning] = [w for w in caught if issubclass(w.category, ConfigWarning)]
    assert all(f"tool {name!r}" in str(warning.message) for name in SKIPPED)


def test_json_too_deep_for_the_parser_is_an_unreadable_file(tmp_path: Path) -> None:
    """JSON nested past the parser's reach fails that file with a message, not a crash."""
    text = '[{"name": "x", "mock": ' + "[" * 100_000 + "]" * 100_000 + "}]"
    with pytest.warns(ConfigWarning, match="nests too deeply"):
        report = load_tools(write(tmp_path, text, "tools.json"))
    assert [issue.kind for issue in report.issues] == ["unreadable"]


def test_json_huge_integer_skips_only_its_definition(tmp_path: Path) -> None:
    """A 5,000-digit JSON integer skips its definition; the next one loads."""
    good = {"name": "fine", "description": "d", "parameters": {"type": "object"},
            "implementation": {"type": "mock", "mock_response": 1}}  # fmt: skip
    text = f'[{{"name": "big", "mock": {BIG}}}, {json.dumps(good)}]'
    with pytest.warns(ConfigWarning, match="5000 digits"):
        report = load_tools(write(tmp_path, text, "tools.json"))
    assert [t.name for t in report.tools] == ["fine"]


def test_toml_huge_integer_is_an_unreadable_file(tmp_path: Path) -> None:
    """TOML's parser cannot skip one value: the file is reported, not raised."""
    with pytest.warns(ConfigWarning, match="invalid TOML"):
        report = load_tools(write(tmp_path, f"[[tools]]\nname = {BIG}\n", "tools.toml"))
    assert [issue.kind for issue in report.issues] == ["unreadable"]
