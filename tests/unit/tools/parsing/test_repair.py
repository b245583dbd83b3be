"""Malformed arguments: repaired only where safe, otherwise an invalid_json result."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from forge.tools import (
    ErrorKind,
    ToolCall,
    ToolRegistry,
    format_results,
    parse_tool_calls,
    tool,
)
from forge.tools.values import QUOTE_CHARS
from forge.tools.values._repair import decode_arguments


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"city": "Paris"}', {"city": "Paris"}),
        ({"city": "Paris"}, {"city": "Paris"}),
        (None, {}),
        ("", {}),
        ("  \n", {}),
        ("{}", {}),
        (b'{"a": 1}', {"a": 1}),
        ('{"e": "\\ud83d\\ude00", "k": "\\u00e9"}', {"e": "\U0001f600", "k": "\u00e9"}),
    ],
)
def test_valid_arguments_are_used_as_sent(raw: Any, expected: dict[str, Any]) -> None:
    """A JSON object (text, bytes or dict) and empty text need no repair."""
    decoded = decode_arguments(raw)
    assert decoded == (expected, False, None)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"a": 1,}', {"a": 1}),
        ("{'a': 'x'}", {"a": "x"}),
        ('{"a": True, "b": None}', {"a": True, "b": None}),
        ("{a: 1}", {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('// the call\n{"a": 1}', {"a": 1}),
        ('{"a": 1} I hope this helps', {"a": 1}),
        ('{"a": 1}}', {"a": 1}),
        ('"{\\"a\\": 1}"', {"a": 1}),
        ("null", {}),
    ],
)
def test_complete_but_sloppy_json_is_repaired_and_marked(raw: str, expected: Any) -> None:
    """Syntax slips in otherwise complete JSON are repaired, and the call says so."""
    decoded = decode_arguments(raw)
    assert decoded.arguments == expected
    assert decoded.repaired
    assert decoded.error is None


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ('{"query": "weather in Par', "truncated JSON (an unclosed string"),
        ('{"query": "x", "limit": 3', "truncated JSON (an unclosed object"),
        ('{"ids": [1, 2', "truncated JSON (an unclosed array"),
        ('{"query": "x",', "truncated JSON"),
        ("{", "truncated JSON"),
        ('{"a": 1}{"b": 2}', "several JSON objects run together"),
        # two calls' arguments joined where one call has none (a server reusing index 0)
        ('{}{"path": "docs"}', "several JSON objects run together"),
        ('{"path": "docs"}{}', "several JSON objects run together"),
        ("{}\n{'path': 'docs',}", "several JSON objects run together"),
        ("[1, 2]", "must be a JSON object, not an array"),
        ("42", "must be a JSON object, not a number"),
        ("true", "must be a JSON object, not a boolean"),
        ('"just text"', "must be a JSON object, not a string"),
        ("hello there", "not valid JSON"),
        ("{foo bar}", "not valid JSON"),
        ("{,,}", "not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (3.5, "must be a JSON object, not a number"),
    ],
)
def test_unsafe_arguments_carry_the_problem(raw: Any, problem: str) -> None:
    """Truncated, merged, non-object or unreadable arguments are never guessed at."""
    decoded = decode_arguments(raw)
    assert decoded.error is not None
    assert problem in decoded.error
    assert not decoded.repaired


@pytest.mark.parametrize(
    "raw",
    [
        '{"e": "hi \\ud83d", "ok": ["\\ud83d\\ude00"]}',  # half an emoji's escape
        '{"e": "hi \ud83d", "ok": ["\U0001f600"]}',  # the surrogate itself, in the text
        '{"\\ud83d": 1}',
        '{"e": "hi \\ud83d", "ok": ["\\ud83d\\ude00"],}',  # and a slip to repair
    ],
)
def test_lone_surrogates_are_replaced_and_the_call_marked(raw: str) -> None:
    """A lone surrogate (UTF-8 cannot carry one) becomes U+FFFD, as in repaired text, and
    the call says so: the tool never gets text it cannot encode, and the result of a
    tool that echoes it is not blamed on the tool."""
    decoded = decode_arguments(raw)
    assert decoded.error is None
    assert decoded.repaired
    expected = {"\ufffd": 1} if raw.startswith('{"\\u') else {
        "e": "hi \ufffd", "ok": ["\U0001f600"]}  # fmt: skip
    assert decoded.arguments == expected
    call = ToolCall.from_raw("c1", "echo", raw)
    assert (call.arguments, call.repaired, call.raw_arguments) == (expected, True, raw)

    @tool
    def echo(e: str = "", ok: list[str] | None = None) -> str:
        """Echo."""
        return e

    registry = ToolRegistry()
    registry.register(echo)
    if "e" in expected:
        (result,) = registry.execute_all([call])
        assert (result.success, result.output) == (True, "hi \ufffd")


def test_the_problem_quotes_what_the_model_sent() -> None:
    """The message quotes the raw arguments, cut to a bounded length."""
    short = decode_arguments('{"q": "ab')
    assert short.error is not None
    assert short.error.endswith('{"q": "ab')
    long = decode_arguments('{"q": "' + "x" * 5000)
    assert long.error is not None
    assert len(long.error) < QUOTE_CHARS + 200
    assert "more characters" in long.error


def test_from_raw_marks_the_call() -> None:
    """A repaired call keeps its raw text; an invalid one keeps it with the problem."""
    repaired = ToolCall.from_raw("c1", "s", "{'a': 1}")
    assert (repaired.arguments, repaired.repaired, repaired.raw_arguments) == (
        {"a": 1}, True, "{'a': 1}",
    )  # fmt: skip
    broken = ToolCall.from_raw("c2", "s", '{"a": ')
    assert broken.argument_error
    assert broken.raw_arguments == '{"a": '
    clean = ToolCall.from_raw("c3", "s", '{"a": 1}')
    assert clean == ToolCall("c3", "s", {"a": 1})


def test_positional_construction_still_works() -> None:
    """``ToolCall(id, name, arguments)`` is unchanged; the new fields are keyword-only."""
    call = ToolCall("c", "s", {"a": 1})
    assert (call.repaired, call.argument_error, call.raw_arguments) == (False, None, None)
    with pytest.raises(TypeError):
        ToolCall("c", "s", {}, True)  # type: ignore[misc]


def test_coerce_decodes_text_arguments() -> None:
    """A mapping with JSON-text arguments (OpenAI's shape) is decoded the same way."""
    assert ToolCall.coerce({"id": "x", "name": "s", "arguments": '{"a": 1}'}).arguments == {"a": 1}
    assert ToolCall.coerce({"name": "s", "arguments": "[1]"}).argument_error


# -- execution -----------------------------------------------------------------------


@pytest.fixture
def registry() -> ToolRegistry:
    @tool
    def search(query: str, limit: int = 5) -> list[str]:
        """Search the index."""
        return [query] * min(limit, 2)

    return ToolRegistry([search])


def _message(*arguments: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "tool_calls": [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": "search", "arguments": a}}
            for i, a in enumerate(arguments)
        ],
    }  # fmt: skip


def test_invalid_json_becomes_a_result_quoting_the_problem(registry: ToolRegistry) -> None:
    """Execution answers a broken call with invalid_json; the other calls still run."""
    calls = parse_tool_calls(_message('{"query": "par', '{"query": "x", "limit": 1,}'))
    broken, repaired = registry.execute_all(calls)
    assert not broken.success
    assert broken.error_kind is ErrorKind.INVALID_JSON
    assert broken.call_id == "call_0"
    assert broken.tool_name == "search"
    assert broken.error is not None
    assert "truncated JSON" in broken.error
    assert '{"query": "par' in broken.error
    assert "query (string, required)" in broken.error
    assert "limit (integer)" in broken.error
    assert "Retrying can help" in broken.error
    assert repaired.success
    assert repaired.output == ["x"]


def test_invalid_json_never_runs_the_handler_with_empty_arguments() -> None:
    """A tool without required parameters is not run with ``{}`` for broken arguments."""
    ran = []

    @tool
    def ping(note: str = "") -> str:
        """Ping."""
        ran.append(note)
        return "pong"

    registry = ToolRegistry([ping])
    (result,) = registry.execute_all([ToolCall.from_raw("c", "ping", '{"note": "hel')])
    assert result.error_kind is ErrorKind.INVALID_JSON
    assert ran == []


def test_async_execution_reports_invalid_json(registry: ToolRegistry) -> None:
    """aexecute_all gives the same invalid_json result, in call order."""
    calls = parse_tool_calls(_message('{"query": "a"}', "[1, 2]"))
    good, bad = asyncio.run(registry.aexecute_all(calls))
    assert good.success
    assert bad.error_kind is ErrorKind.INVALID_JSON
    assert bad.call_id == "call_1"
    assert "not an array" in (bad.error or "")


def test_unknown_tool_wins_over_invalid_json(registry: ToolRegistry) -> None:
    """A call to a tool that does not exist is reported as unknown_tool."""
    (result,) = registry.execute_all([ToolCall.from_raw("c", "nope", "{")])
    assert result.error_kind is ErrorKind.UNKNOWN_TOOL


def test_no_parameter_tool_hint(registry: ToolRegistry) -> None:
    """The hint for a tool without parameters says to send {}."""

    @tool
    def now() -> str:
        """The time."""
        return "noon"

    registry.register(now)
    (result,) = registry.execute_all([ToolCall.from_raw("c", "now", "[]")])
    assert "takes no arguments" in (result.error or "")


def test_the_model_sees_the_problem_in_each_format(registry: ToolRegistry) -> None:
    """The invalid_json message reaches the model with the provider's error flag."""
    (result,) = registry.execute_all(parse_tool_calls(_message('{"query": ')))
    (openai_message,) = format_results([result], "openai")
    assert openai_message["content"].startswith("Error: Invalid JSON")
    (anthropic_message,) = format_results([result], "anthropic")
    assert anthropic_message["content"][0]["is_error"] is True
