"""Vertex AI calls streamed in pieces (``functionCall.partialArgs``, ``willContinue``).

Each piece names where its value goes with a JSONPath and holds one scalar; a string can
come in several pieces. The streams here are validated as ``GenerateContentResponse``
chunks by google-genai (whose ``PartialArg`` / ``FunctionCall.partial_args`` types define
the shape) before they are fed, as wire dicts, snake_case dicts and SDK objects.
"""

from __future__ import annotations

import itertools
import json
import re
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools import ToolCall, ToolCallAccumulator, ToolCallFormatError, parse_tool_calls
from forge.tools.parsing._partial_args import parse_json_path

_SNAKE = {
    "functionCall": "function_call", "partialArgs": "partial_args",
    "willContinue": "will_continue", "jsonPath": "json_path", "stringValue": "string_value",
    "numberValue": "number_value", "boolValue": "bool_value", "nullValue": "null_value",
}  # fmt: skip


def chunk(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": list(parts)}}]}


def fc(**call: Any) -> dict[str, Any]:
    return {"functionCall": call}


def piece(path: str, **value: Any) -> dict[str, Any]:
    return {"jsonPath": path, **value}


def sdk(chunks: list[dict[str, Any]]) -> list[Any]:
    """The chunks as google-genai objects (raises if the SDK rejects a shape)."""
    from google.genai import types

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return [types.GenerateContentResponse.model_validate(c) for c in chunks]


def snake(value: Any, *, inside_args: bool = False) -> Any:
    """The snake_case spelling of a wire chunk (argument values left alone)."""
    if isinstance(value, list):
        return [snake(v, inside_args=inside_args) for v in value]
    if not isinstance(value, dict) or inside_args:
        return value
    return {_SNAKE.get(k, k): snake(v, inside_args=k == "args") for k, v in value.items()}


def feeds(chunks: list[dict[str, Any]]) -> dict[str, list[Any]]:
    return {"wire": chunks, "snake": [snake(c) for c in chunks], "sdk": sdk(chunks)}


def accumulate(stream: list[Any]) -> tuple[list[list[ToolCall]], list[ToolCall]]:
    acc = ToolCallAccumulator()
    returned = [acc.add(c) for c in stream]
    assert acc.provider == "gemini"
    return returned, acc.finish()


# A stream shaped like Vertex AI's: the name first, then pieces (a string split in three,
# a nested object, an array of objects, a number, a boolean, a null), then an empty
# functionCall closing the call.
WEATHER = [
    chunk({"text": "Checking."}),
    chunk(fc(id="fc_1", name="get_weather", willContinue=True)),
    chunk(fc(partialArgs=[piece("$.location", stringValue="New ", willContinue=True)],
             willContinue=True)),
    chunk(fc(partialArgs=[piece("$.location", stringValue="York", willContinue=True),
                          piece("$.location", stringValue=", NY")], willContinue=True)),
    chunk(fc(partialArgs=[piece("$.units.temperature", stringValue="celsius"),
                          piece("$.days[0].offset", numberValue=0),
                          piece("$.days[1].offset", numberValue=1.5),
                          piece("$['hourly?']", boolValue=False),
                          piece("$.since", nullValue=None)], willContinue=True)),
    chunk(fc()),
]  # fmt: skip
WEATHER_CALL = ToolCall(
    "fc_1",
    "get_weather",
    {
        "location": "New York, NY",
        "units": {"temperature": "celsius"},
        "days": [{"offset": 0}, {"offset": 1.5}],
        "hourly?": False,
        "since": None,
    },
)


@pytest.mark.parametrize("feed", ["wire", "snake", "sdk"])
def test_pieces_are_assembled_and_the_call_waits_for_the_last(feed: str) -> None:
    """No call while ``willContinue`` is true; the closing chunk returns the whole call."""
    returned, calls = accumulate(feeds(WEATHER)[feed])
    assert returned == [[]] * (len(WEATHER) - 1) + [[WEATHER_CALL]]
    assert calls == [WEATHER_CALL]


def test_pieces_in_one_list_of_parts_parse_like_the_stream() -> None:
    """``parse_tool_calls`` on the parts gathered from such a stream gives the same call."""
    parts = [p for c in WEATHER for p in c["candidates"][0]["content"]["parts"]]
    assert parse_tool_calls(parts, "gemini") == [WEATHER_CALL]
    assert parse_tool_calls({"role": "model", "parts": parts}) == [WEATHER_CALL]


def test_the_last_piece_may_close_the_call_itself() -> None:
    """A piece without ``willContinue`` completes the call (no empty closing part needed)."""
    stream = [
        chunk(fc(name="lookup", willContinue=True)),
        chunk(fc(partialArgs=[piece("$.ids[0]", numberValue=7), piece("$.ids[1]", numberValue=8)],
                 willContinue=False)),
        chunk(fc(name="now", args={})),
    ]  # fmt: skip
    returned, calls = accumulate(sdk(stream))
    assert [[c.arguments for c in r] for r in returned] == [[], [{"ids": [7, 8]}], [{}]]
    assert [c.name for c in calls] == ["lookup", "now"]
    assert calls[0].id != calls[1].id


def test_a_stream_cut_off_mid_call_flags_the_call() -> None:
    """A call still waiting for pieces when the stream ends is not run: it says why."""
    returned, calls = accumulate(WEATHER[:4])
    assert returned == [[]] * 4
    (call,) = calls
    assert (call.id, call.name, call.arguments) == ("fc_1", "get_weather", {})
    assert call.argument_error is not None
    assert "incomplete" in call.argument_error
    assert "willContinue" in call.argument_error
    assert json.loads(call.raw_arguments or "") == {"location": "New York, NY"}


def test_a_new_call_while_one_is_open_closes_it_as_incomplete() -> None:
    """A part naming another function means the open call lost its end: it is flagged."""
    stream = [
        chunk(fc(name="a", willContinue=True)),
        chunk(fc(partialArgs=[piece("$.x", numberValue=1)], willContinue=True)),
        chunk(fc(name="b", args={"y": 2})),
    ]
    _, calls = accumulate(stream)
    assert [c.name for c in calls] == ["a", "b"]
    assert calls[0].argument_error is not None
    assert calls[1].arguments == {"y": 2}


@pytest.mark.parametrize(
    ("pieces", "problem"),
    [
        ([piece("$.a", stringValue="x"), piece("$.a.b", numberValue=1)], "already holds a string"),
        ([piece("$.a[0]", numberValue=1), piece("$.a.b", numberValue=1)], "already holds an array"),
        ([piece("$..a", numberValue=1)], "not a path to one value"),
        ([piece("$.a[*]", numberValue=1)], "not a path to one value"),
        ([piece("a.b", numberValue=1)], "starting with '$'"),
        ([piece("$[0]", numberValue=1)], "must start with a member"),
        ([{"stringValue": "x"}], "starting with '$'"),
        ([piece("$.a", numberValue="1")], "numberValue of type str"),
        ([piece("$.a", boolValue="yes")], "boolValue of type str"),
        ([piece("$.a", stringValue=5)], "stringValue of type int"),
        ([piece("$.a[100001]", numberValue=1)], "array index 100001"),
        ([piece("$" + ".a" * 129, numberValue=1)], "deeper than 128"),
    ],
)
def test_pieces_that_cannot_be_placed_flag_the_call(
    pieces: list[dict[str, Any]], problem: str
) -> None:
    """A bad piece does not break the stream: its call carries the problem, the next is fine."""
    stream = [
        chunk(fc(name="bad", partialArgs=pieces, willContinue=True)),
        chunk(fc()),
        chunk(fc(name="good", args={"ok": True})),
    ]
    returned, calls = accumulate(stream)
    bad, good = calls
    assert returned == [[], [bad], [good]]
    assert bad.name == "bad"
    assert "could not be assembled" in (bad.argument_error or "")
    assert problem in (bad.argument_error or "")
    assert good == ToolCall(good.id, "good", {"ok": True})


@pytest.mark.parametrize(
    "stream",
    [
        [chunk(fc(partialArgs=[piece("$.a", numberValue=1)]))],
        [chunk(fc(partialArgs=[piece("$.a", numberValue=1)], willContinue=True)), chunk(fc())],
    ],
)
def test_a_streamed_call_that_never_names_its_function_fails(stream: list[Any]) -> None:
    """Pieces with no function name anywhere cannot be answered: a format error."""
    acc = ToolCallAccumulator("gemini")
    for item in stream[:-1]:
        acc.add(item)
    with pytest.raises(ToolCallFormatError, match="never named its function"):
        acc.add(stream[-1])


def test_an_empty_function_call_outside_a_streamed_call_is_ignored() -> None:
    """A stray closing part (an empty ``functionCall``) is not a call and not an error."""
    assert parse_tool_calls([{"functionCall": {}}], "gemini") == []


@pytest.mark.parametrize(
    ("path", "segments"),
    [
        ("$", ()),
        ("$.a.b_2", ("a", "b_2")),
        ("$.a[0][12].c", ("a", 0, 12, "c")),
        ("$['a.b']['it\\'s'][\"q\\\"\"]", ("a.b", "it's", 'q"')),
        ("$['\\n\\t\\\\\\/\\u00e9\\ud83d\\ude00']", ("\n\t\\/é😀",)),
        ("$[ 'sp' ][ 3 ]", ("sp", 3)),
        ("$.ünï", ("ünï",)),
    ],
)
def test_json_paths(path: str, segments: tuple[Any, ...]) -> None:
    """Member names (dotted or quoted, with escapes) and indexes are read as RFC 9535 says."""
    assert parse_json_path(path) == segments


# -- property: any arguments, cut into any pieces, come back exactly -------------------

SCALARS = (
    st.none() | st.booleans() | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=10)
)  # fmt: skip
# Pieces carry scalars only, so an empty object or array cannot be streamed: containers
# below the top level hold at least one value.
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3)
        | st.dictionaries(st.text(max_size=6), inner, min_size=1, max_size=3)
    ),
    max_leaves=10,
)
ARGUMENTS = st.dictionaries(st.text(max_size=6), VALUES, max_size=4)
NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True)
_SIMPLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CONTROL = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def render(segments: list[str | int], data: st.DataObject) -> str:
    """A JSONPath for ``segments``: dotted names where allowed, else quoted and escaped."""
    out = "$"
    for segment in segments:
        if isinstance(segment, int):
            out += f"[{segment}]"
        elif _SIMPLE.fullmatch(segment) and data.draw(st.booleans()):
            out += f".{segment}"
        else:
            quote = data.draw(st.sampled_from(["'", '"']))
            text = "".join(
                "\\" + ch if ch in ("\\", quote)
                else _CONTROL.get(ch) or (f"\\u{ord(ch):04x}" if ord(ch) < 0x20 else ch)
                for ch in segment
            )  # fmt: skip
            out += f"[{quote}{text}{quote}]"
    return out


def leaves(value: Any, at: list[str | int]) -> list[tuple[list[str | int], Any]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in leaves(v, [*at, k])]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in leaves(v, [*at, i])]
    return [(at, value)]


def pieces_for(arguments: dict[str, Any], data: st.DataObject) -> list[dict[str, Any]]:
    """Every leaf as pieces (strings cut at random points), per-path order kept, shuffled."""
    queues: list[list[dict[str, Any]]] = []
    for segments, value in leaves(arguments, []):
        path = render(segments, data)
        if isinstance(value, str):
            cuts = sorted(data.draw(st.lists(st.integers(0, len(value)), max_size=3)))
            bounds = [0, *cuts, len(value)]
            texts = [value[a:b] for a, b in itertools.pairwise(bounds)]
            queue = [piece(path, stringValue=t, willContinue=True) for t in texts]
            del queue[-1]["willContinue"]
        elif value is None:
            queue = [piece(path, nullValue=None)]
        elif isinstance(value, bool):
            queue = [piece(path, boolValue=value)]
        else:
            queue = [piece(path, numberValue=value)]
        queues.append(queue)
    out: list[dict[str, Any]] = []
    while any(queues):
        pick = data.draw(st.sampled_from([i for i, q in enumerate(queues) if q]))
        out.append(queues[pick].pop(0))
    return out


def streamed_call(call: ToolCall, data: st.DataObject) -> tuple[list[list[dict[str, Any]]], bool]:
    """The chunks' parts for one call in pieces; whether its last chunk is an empty close."""
    pieces = pieces_for(dict(call.arguments), data)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(pieces)), max_size=4)))
    bounds = [0, *cuts, len(pieces)]
    groups = [pieces[a:b] for a, b in itertools.pairwise(bounds)]
    calls = [{"partialArgs": g, "willContinue": True} for g in groups]
    calls[0].update(id=call.id, name=call.name)
    closing = data.draw(st.booleans())
    if closing:
        calls.append({})
    else:
        calls[-1]["willContinue"] = data.draw(st.sampled_from([False, None]))
        if calls[-1]["willContinue"] is None:
            del calls[-1]["willContinue"]
    return [[fc(**c)] for c in calls], closing


@settings(max_examples=80, deadline=None)
@given(st.data(), st.lists(st.tuples(NAMES, ARGUMENTS, st.booleans()), min_size=1, max_size=3))
def test_any_arguments_in_any_pieces_come_back_exactly(
    data: st.DataObject, drawn: list[tuple[str, dict[str, Any], bool]]
) -> None:
    """Random arguments cut into random pieces reassemble exactly, whole calls in between.

    Every chunk before a call's last piece returns nothing; that chunk returns the call.
    """
    expected: list[ToolCall] = []
    chunks: list[dict[str, Any]] = []
    completes_at: list[int] = []
    for number, (name, arguments, in_pieces) in enumerate(drawn):
        call = ToolCall(f"fc_{number}", name, arguments)
        expected.append(call)
        if in_pieces:
            groups, _ = streamed_call(call, data)
            chunks += [chunk(*parts) for parts in groups]
        else:
            chunks.append(chunk({"text": "."}, fc(id=call.id, name=name, args=arguments)))
        completes_at.append(len(chunks) - 1)
    for feed, stream in feeds(chunks).items():
        returned, calls = accumulate(stream)
        assert calls == expected, feed
        assert [i for i, r in enumerate(returned) if r] == completes_at, feed
        assert [c for r in returned for c in r] == expected, feed
    parts = [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]
    assert parse_tool_calls(parts, "gemini") == expected


JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8)
    | st.sampled_from(["$", "$.a", "$.a[0]", "$.a.b", "$['a']", "$[0]", "$..a", "$.a[99]"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["jsonPath", "stringValue", "numberValue", "boolValue", "nullValue",
                         "willContinue", "name", "id", "args", "partialArgs", "x"]),
        inner, max_size=4),
    max_leaves=12,
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", None]), st.booleans(), JUNK), max_size=5))
def test_hostile_pieces_only_raise_format_errors(
    drawn: list[tuple[str | None, bool, Any]],
) -> None:
    """Junk in ``partialArgs`` gives calls carrying the problem, or a `ToolCallFormatError`."""
    acc = ToolCallAccumulator("gemini")
    try:
        for name, more, pieces in drawn:
            call: dict[str, Any] = {"partialArgs": pieces, "willContinue": more}
            if name:
                call["name"] = name
            acc.add(chunk(fc(**call)))
        calls = acc.finish()
    except ToolCallFormatError:
        return
    for call in calls:
        assert isinstance(call.arguments, dict)
        assert call.argument_error is None or call.arguments == {}


def test_partial_args_that_are_not_a_list_flag_the_call() -> None:
    """``partialArgs`` holding an object instead of a list is reported on the call."""
    acc = ToolCallAccumulator("gemini")
    acc.add(chunk(fc(name="a", partialArgs={"jsonPath": "$.x"}, willContinue=True)))
    (call,) = acc.add(chunk(fc()))
    assert "expected a list, got dict" in (call.argument_error or "")


def test_args_sent_alongside_pieces_are_merged_without_changing_the_input() -> None:
    """Members sent whole in ``args`` are kept, pieces add to them, the input is untouched."""
    first = chunk(fc(name="a", args={"o": {"b": 1}}, willContinue=True))
    acc = ToolCallAccumulator("gemini")
    acc.add(first)
    (call,) = acc.add(chunk(fc(partialArgs=[piece("$.o.c", numberValue=2)])))
    assert call.arguments == {"o": {"b": 1, "c": 2}}
    assert first["candidates"][0]["content"]["parts"][0]["functionCall"]["args"] == {"o": {"b": 1}}
