"""Huge, non-finite, negative and boolean numbers in every numeric field of a definition.

Each bad definition is skipped with its reason and the others load: no field of any
definition kind (mock, builtin, internal, http, one made from an OpenAPI document, a
Python tool) lets a number raise out of loading or out of a call.
"""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from forge.core.errors import ToolDefinitionError
from forge.tools import ToolExecutor, ToolRegistry, tool
from forge.tools.config import HandlerRegistry, load_tools

HUGE = 10**400
"""A 401-digit integer: Python reads it, but no float (and so no deadline) can hold it."""

MOCK: dict[str, Any] = {
    "name": "mock_tool", "description": "d",
    "parameters": {"type": "object", "properties": {"q": {"type": "integer"}}},
    "implementation": {"type": "mock", "mock_response": {"ok": True}},
}  # fmt: skip
BUILTIN: dict[str, Any] = {
    "name": "builtin_tool", "description": "d",
    "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
    "implementation": {"type": "builtin", "handler": "echo"},
}  # fmt: skip
INTERNAL: dict[str, Any] = {
    **BUILTIN,
    "name": "internal_tool",
    "implementation": {"type": "internal", "handler": "notes.add"},
}
HTTP: dict[str, Any] = {
    "name": "http_tool", "description": "d",
    "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    "implementation": {"type": "http", "url": "https://api.example.com/search"},
}  # fmt: skip
KINDS = {"mock": MOCK, "builtin": BUILTIN, "internal": INTERNAL, "http": HTTP}

# Every numeric field a definition of any kind may hold, as a path into it.
COMMON_FIELDS = [
    ("timeout",), ("max_concurrency",), ("output_limit",), ("output_limit", "max_chars"),
    ("output_limit", "max_bytes"), ("resources", "num_cpus"), ("resources", "num_gpus"),
    ("resources", "memory"), ("resources", "resources", "shard"),
    ("parameters", "maxProperties"), ("parameters", "properties", "q", "maximum"),
    ("parameters", "properties", "q", "minimum"), ("parameters", "properties", "q", "multipleOf"),
    ("parameters", "properties", "q", "maxLength"), ("parameters", "properties", "q", "default"),
    ("output_schema", "maximum"),
]  # fmt: skip
FIELDS = [(kind, path) for kind in KINDS for path in COMMON_FIELDS] + [
    ("mock", ("implementation", "mock_response")),
    ("http", ("implementation", "timeout")),
    ("http", ("implementation", "max_response_bytes")),
]
# (value as JSON text, and the words of the reason it is skipped with); NaN and 1e400
# are written as JSON text, which Python's reader turns into nan and inf.
BAD_VALUES = {
    "huge": (str(HUGE), "an integer of 401 digits"),
    "1e400": ("1e400", "inf is not a JSON number"),
    "nan": ("NaN", "nan is not a JSON number"),
}
# Limits that must be positive; counts must also be whole numbers.
LIMITS = [
    ("timeout",), ("max_concurrency",), ("output_limit",), ("resources", "num_cpus"),
    ("implementation", "timeout"), ("implementation", "max_response_bytes"),
]  # fmt: skip
COUNTS = {("max_concurrency",), ("output_limit",), ("implementation", "max_response_bytes")}


def definition_with(kind: str, path: tuple[str, ...], marker: str) -> dict[str, Any]:
    """The kind's definition with ``marker`` (a string to replace by raw JSON) at ``path``."""
    definition = copy.deepcopy(KINDS[kind])
    definition["name"] = "bad"
    if path[0] == "output_schema":
        definition["output_schema"] = {"type": "integer"}
    node = definition
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = marker
    return definition


def load_one_bad(tmp_path: Path, kind: str, path: tuple[str, ...], raw: str) -> Any:
    """Load a JSON file with the bad definition between two valid ones of the same kind."""
    bad = json.dumps(definition_with(kind, path, "@VALUE@")).replace('"@VALUE@"', raw)
    good = [{**KINDS[kind], "name": name} for name in ("first", "last")]
    text = f"[{json.dumps(good[0])}, {bad}, {json.dumps(good[1])}]"
    file = tmp_path / "tools.json"
    file.write_text(text, encoding="utf-8")
    internal = HandlerRegistry("internal", {"notes.add": lambda text: text})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_tools(file, internal=internal)


@pytest.mark.parametrize("value", BAD_VALUES, ids=list(BAD_VALUES))
@pytest.mark.parametrize(("kind", "path"), FIELDS, ids=["-".join((k, *p)) for k, p in FIELDS])
def test_a_bad_number_skips_only_its_definition(
    tmp_path: Path, kind: str, path: tuple[str, ...], value: str
) -> None:
    """A huge, infinite or NaN number anywhere skips that definition with why; the rest load."""
    raw, reason = BAD_VALUES[value]
    report = load_one_bad(tmp_path, kind, path, raw)
    assert [t.name for t in report.tools] == ["first", "last"]
    [issue] = report.issues
    assert issue.tool == "bad"
    assert reason in issue.message
    assert "/".join(path) in issue.message


# (path, JSON text): a limit out of its range.
OUT_OF_RANGE = [
    (path, raw)
    for path in LIMITS
    for raw in ("-5", "0", "true", "1.5" if path in COUNTS else "1e12")
    if not (path == ("resources", "num_cpus") and raw in ("0", "1e12"))  # amounts, allowed
]


@pytest.mark.parametrize(
    ("path", "raw"), OUT_OF_RANGE, ids=[f"{'-'.join(p)}={r}" for p, r in OUT_OF_RANGE]
)
def test_an_out_of_range_limit_skips_only_its_definition(
    tmp_path: Path, path: tuple[str, ...], raw: str
) -> None:
    """A negative, zero, boolean, fractional or year-plus limit is refused by name."""
    kind = "http" if path[0] == "implementation" else "builtin"
    report = load_one_bad(tmp_path, kind, path, raw)
    assert [t.name for t in report.tools] == ["first", "last"]
    [issue] = report.issues
    assert issue.tool == "bad"
    assert path[-1] in issue.message


def test_a_huge_http_timeout_in_yaml_is_skipped(tmp_path: Path) -> None:
    """The filed case: a 400-digit http ``timeout`` in YAML is one issue, not an OverflowError."""
    file = tmp_path / "tools.yaml"
    file.write_text(
        "- name: slow\n  description: d\n  parameters: {type: object}\n"
        f"  implementation: {{type: http, url: 'https://api.example.com', timeout: {HUGE}}}\n"
        "- name: fine\n  description: d\n  parameters: {type: object}\n"
        "  implementation: {type: mock, mock_response: 1}\n",
        encoding="utf-8",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = load_tools(file)
    assert [t.name for t in report.tools] == ["fine"]
    assert [issue.tool for issue in report.issues] == ["slow"]


@pytest.mark.parametrize("seconds", [HUGE, 1e308, float("nan"), float("inf"), 2**63])
def test_a_python_tool_refuses_a_timeout_no_deadline_can_hold(seconds: float) -> None:
    """``@tool(timeout=...)`` past a year (or not finite) fails at definition time, by name."""

    def echo(text: str) -> str:
        return text

    with pytest.raises(ToolDefinitionError, match="timeout must be a positive number of seconds"):
        tool(echo, timeout=seconds)


def test_the_longest_timeout_allowed_still_runs_a_call() -> None:
    """A tool with the longest timeout runs on a worker thread and answers (no OverflowError)."""
    from forge.tools.values import MAX_TIMEOUT

    def echo(text: str) -> str:
        return text

    with ToolExecutor(ToolRegistry([tool(echo, timeout=MAX_TIMEOUT)])) as executor:
        for _ in range(20):  # some calls find the handler finished, others wait on it
            assert executor.run_sync("echo", {"text": "x"}).output == "x"


def test_an_openapi_operation_with_a_huge_bound_is_skipped() -> None:
    """An operation whose schema holds a 401-digit number is skipped, like in a file."""
    from forge.tools.config.openapi import import_openapi

    schema = {"type": "integer", "maximum": HUGE}
    document = {
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/bad": {"get": {"operationId": "bad", "responses": {"200": {"description": "ok"}},
                             "parameters": [{"name": "q", "in": "query", "schema": schema}]}},
            "/good": {"get": {"operationId": "good", "responses": {"200": {"description": "ok"}}}},
        },
    }  # fmt: skip
    result = import_openapi(document)
    assert [t.name for t in result.tools] == ["good"]
    [skipped] = result.skipped
    assert "an integer of 401 digits" in skipped.reason
