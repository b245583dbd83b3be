"""Property tests: our argument validation accepts exactly what the JSON Schema accepts.

The independent oracle is the ``jsonschema`` library (Draft 2020-12) run on the
tool's own ``parameters``. Arguments are drawn from a mix of well-typed values,
values with random JSON in some fields, missing and extra keys, and arbitrary
JSON objects, so that both the accept and the reject paths are exercised.

Integers are drawn within +-2**200: a ``float`` parameter cannot hold an integer
beyond the float range (10**400 is a JSON Schema "number"), and rejecting it is
deliberate.
"""

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Optional

import jsonschema
import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from typing_extensions import TypedDict  # pydantic needs this one on Python < 3.12

from forge.core.errors import FieldError, ToolValidationError
from forge.tools import Tool, ToolRegistry, tool
from forge.tools.formats.strict_args import restore_arguments

pytestmark = pytest.mark.slow  # long property runs

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
BIG = 2**200

# -- strategies ------------------------------------------------------------------------

texts = st.text(max_size=8)
ints = st.integers(-BIG, BIG)
whole_floats = ints.map(float)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
json_ints = st.one_of(ints, whole_floats)
json_numbers = st.one_of(json_ints, finite_floats)
json_scalars = st.one_of(st.none(), st.booleans(), ints, finite_floats, texts)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(texts, children, max_size=4)
    ),
    max_leaves=12,
)


def mix(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a well-typed value, sometimes any JSON value."""
    return st.one_of(good, good, good, json_values)


def objects(
    good: dict[str, st.SearchStrategy[Any]], required: Iterable[str]
) -> st.SearchStrategy[dict[str, Any]]:
    """JSON objects shaped like ``good``: well-typed, noisy, sparse, with extras, or arbitrary."""
    required = set(required)
    req = {k: v for k, v in good.items() if k in required}
    opt = {k: v for k, v in good.items() if k not in required}
    well = st.fixed_dictionaries(req, optional=opt)
    noisy = st.fixed_dictionaries(
        {k: mix(v) for k, v in req.items()}, optional={k: mix(v) for k, v in opt.items()}
    )
    sparse = st.fixed_dictionaries({}, optional={k: mix(v) for k, v in good.items()})
    extra = st.tuples(well, st.dictionaries(texts, json_values, min_size=1, max_size=2)).map(
        lambda pair: {**pair[1], **pair[0]}
    )
    arbitrary = st.dictionaries(texts, json_values, max_size=4)
    return st.one_of(well, well, well, noisy, sparse, extra, arbitrary)


# -- types and tool functions (module level, so their annotations resolve) -------------


class Level(enum.IntEnum):
    """A numeric level."""

    LOW = 1
    HIGH = 2


class Shade(enum.Enum):
    """A shade."""

    LIGHT = "light"
    DARK = "dark"


class Address(BaseModel):
    """A postal address."""

    street: str
    number: int = 0
    zip_code: str | None = None


class Person(BaseModel):
    """A person."""

    name: str
    age: Annotated[int, Field(ge=0)]
    address: Address
    tags: list[str] = []


class Movie(TypedDict):
    """A film."""

    title: str
    year: int
    rating: float


@dataclass
class Point:
    """A point."""

    x: int
    y: float = 0.0


def scalars(text: str, count: int, ratio: float, flag: bool) -> None:
    """Take one of each scalar."""


def optionals(
    name: Optional[str],  # noqa: UP045 - the typing.Optional spelling is under test
    nick: str | None = None,
    limit: int | None = None,
    score: float | None = None,
) -> None:
    """Take optional values."""


def literals(
    unit: Literal["c", "f"], level: Literal[1, 2] = 1, mode: Literal["auto", 0] = 0
) -> None:
    """Take literals, including numeric ones."""


def int_list(values: list[int], grid: list[list[int]] = []) -> None:
    """Take lists of integers."""


def float_map(weights: dict[str, float]) -> None:
    """Take a mapping of numbers."""


def nested_model(person: Person, backup: Address | None = None) -> None:
    """Take nested pydantic models."""


def typed_dict(movie: Movie, more: list[Movie] = []) -> None:
    """Take TypedDicts."""


def annotated(
    count: Annotated[int, Field(ge=0, le=10)],
    ratio: Annotated[float, Field(ge=0, le=1)],
    code: Annotated[str, Field(min_length=2, max_length=4)],
    items: Annotated[list[int], Field(min_length=1)] = [0],
) -> None:
    """Take constrained values."""


def enums(level: Level, shade: Shade = Shade.LIGHT) -> None:
    """Take enum members."""


def dataclass_arg(point: Point) -> None:
    """Take a dataclass."""


def unique_ids(ids: set[int]) -> None:
    """Take a set of integers."""


address_values = objects(
    {"street": texts, "number": json_ints, "zip_code": st.none() | texts}, ["street"]
)
person_values = objects(
    {
        "name": texts,
        "age": st.integers(-2, 150),
        "address": address_values,
        "tags": st.lists(texts, max_size=3),
    },
    ["name", "age", "address"],
)
movie_values = objects(
    {"title": texts, "year": json_ints, "rating": json_numbers}, ["title", "year", "rating"]
)
point_values = objects({"x": json_ints, "y": json_numbers}, ["x"])


class Case:
    """A tool, a strategy for its arguments and one valid and one invalid example."""

    def __init__(
        self,
        t: Tool,
        arguments: st.SearchStrategy[dict[str, Any]],
        valid: dict[str, Any],
        invalid: dict[str, Any],
    ) -> None:
        self.tool = t
        self.arguments = arguments
        self.valid = valid
        self.invalid = invalid

    def __repr__(self) -> str:
        return f"Case({self.tool.name})"


def function_case(fn: Any, good: dict[str, Any], required: Iterable[str], valid, invalid) -> Case:
    """A case for a ``@tool`` function."""
    return Case(tool(fn), objects(good, required), valid, invalid)


FUNCTION_CASES = [
    function_case(
        scalars,
        {"text": texts, "count": json_ints, "ratio": json_numbers, "flag": st.booleans()},
        ["text", "count", "ratio", "flag"],
        {"text": "a", "count": 3.0, "ratio": 1, "flag": False},
        {"text": "a", "count": True, "ratio": 1, "flag": False},
    ),
    function_case(
        optionals,
        {
            "name": st.none() | texts,
            "nick": st.none() | texts,
            "limit": st.none() | json_ints,
            "score": st.none() | json_numbers,
        },
        ["name"],
        {"name": None, "limit": 2},
        {"nick": "n"},
    ),
    function_case(
        literals,
        {
            "unit": st.sampled_from(["c", "f", "C"]),
            "level": st.sampled_from([1, 2, 1.0, 3, True]),
            "mode": st.sampled_from(["auto", 0, 0.0, False, "0"]),
        },
        ["unit"],
        {"unit": "c", "level": 2.0, "mode": 0},
        {"unit": "c", "level": True},
    ),
    function_case(
        int_list,
        {
            "values": st.lists(json_ints, max_size=4),
            "grid": st.lists(st.lists(json_ints, max_size=3), max_size=3),
        },
        ["values"],
        {"values": [1, 2.0], "grid": [[], [3]]},
        {"values": [1, 2.5]},
    ),
    function_case(
        float_map,
        {"weights": st.dictionaries(texts, json_numbers, max_size=4)},
        ["weights"],
        {"weights": {"a": 1, "b": 0.5}},
        {"weights": {"a": "1"}},
    ),
    function_case(
        nested_model,
        {"person": person_values, "backup": st.none() | address_values},
        ["person"],
        {"person": {"name": "A", "age": 3, "address": {"street": "S", "extra": 1}}},
        {"person": {"name": "A", "age": -1, "address": {"street": "S"}}},
    ),
    function_case(
        typed_dict,
        {"movie": movie_values, "more": st.lists(movie_values, max_size=2)},
        ["movie"],
        {"movie": {"title": "Up", "year": 2009, "rating": 8}},
        {"movie": {"title": "Up", "year": 2009}},
    ),
    function_case(
        annotated,
        {
            "count": st.integers(-2, 12) | st.integers(-2, 12).map(float),
            "ratio": st.floats(-0.5, 1.5) | st.integers(-1, 2),
            "code": st.text(max_size=6),
            "items": st.lists(json_ints, max_size=3),
        },
        ["count", "ratio", "code"],
        {"count": 10, "ratio": 0, "code": "abcd"},
        {"count": 10, "ratio": 0, "code": "abcde"},
    ),
    function_case(
        enums,
        {
            "level": st.sampled_from([1, 2, 2.0, 0, True, "1"]),
            "shade": st.sampled_from(["light", "dark", "LIGHT"]),
        },
        ["level"],
        {"level": 1, "shade": "dark"},
        {"level": 1, "shade": "LIGHT"},
    ),
    function_case(
        dataclass_arg,
        {"point": point_values},
        ["point"],
        {"point": {"x": 1.0, "y": 2}},
        {"point": {"x": 1, "y": True}},
    ),
    function_case(
        unique_ids,
        {"ids": st.lists(st.integers(0, 3) | st.integers(0, 3).map(float), max_size=4)},
        ["ids"],
        {"ids": [1, 2.0, 3]},
        {"ids": [1, "2"]},
    ),
]

# -- schema-only (record) tools --------------------------------------------------------

RECORD_SCHEMAS: dict[str, dict[str, Any]] = {
    "record_scalars": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 5},
            "count": {"type": "integer", "minimum": 0, "maximum": 10},
            "ratio": {"type": "number", "exclusiveMinimum": 0},
            "flag": {"type": "boolean"},
            "mode": {"enum": ["a", "b", 1, None]},
            "kind": {"const": "x"},
            "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["name", "count"],
        "additionalProperties": False,
    },
    "record_nested": {
        "type": "object",
        "$defs": {
            "item": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "label": {"type": "string"}},
                "required": ["id"],
                "additionalProperties": False,
            }
        },
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/item"}, "maxItems": 3},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "meta": {
                "type": "object",
                "additionalProperties": {"type": "number"},
                "maxProperties": 2,
            },
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "items": False,
            },
        },
        "required": ["items"],
    },
    "record_combinators": {
        "type": "object",
        "properties": {
            "choice": {"oneOf": [{"type": "integer"}, {"type": "string", "minLength": 2}]},
            "not_null": {"not": {"type": "null"}},
            "code": {"type": "string", "pattern": "^[a-z]"},
            "shape": {
                "type": "object",
                "properties": {"kind": {"enum": ["circle", "square"]}, "r": {"type": "number"}},
                "if": {"properties": {"kind": {"const": "circle"}}},
                "then": {"required": ["r"]},
                "else": {"not": {"required": ["r"]}},
            },
        },
        "dependentRequired": {"code": ["choice"]},
        "minProperties": 1,
    },
}

item_values = objects({"id": json_ints, "label": texts}, ["id"])
RECORD_GOOD: dict[str, tuple[dict[str, st.SearchStrategy[Any]], list[str]]] = {
    "record_scalars": (
        {
            "name": st.text(max_size=6),
            "count": st.integers(-1, 11) | st.integers(-1, 11).map(float),
            "ratio": st.floats(-1, 100) | st.integers(-1, 100),
            "flag": st.booleans(),
            "mode": st.sampled_from(["a", "b", 1, 1.0, True, None, "c"]),
            "kind": st.sampled_from(["x", "x", "x", "y"]),
            "maybe": st.none() | texts,
        },
        ["name", "count"],
    ),
    "record_nested": (
        {
            "items": st.lists(item_values, max_size=4),
            "tags": st.lists(st.sampled_from(["a", "b", "c"]), max_size=3),
            "meta": st.dictionaries(texts, json_numbers, max_size=3),
            "pair": st.lists(json_ints | texts, max_size=3),
        },
        ["items"],
    ),
    "record_combinators": (
        {
            "choice": json_ints | texts,
            "not_null": json_scalars,
            "code": texts,
            "shape": st.fixed_dictionaries(
                {}, optional={"kind": st.sampled_from(["circle", "square"]), "r": json_numbers}
            ),
        },
        [],
    ),
}


def _record_tool(name: str, schema: dict[str, Any]) -> Tool:
    """Register a schema-only tool in a fresh registry and return it."""
    registry = ToolRegistry()
    return registry.register(
        {
            "name": name,
            "description": f"Schema-only tool {name}.",
            "parameters": schema,
            "handler": lambda **kwargs: kwargs,
        }
    )


RECORD_EXAMPLES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "record_scalars": ({"name": "ab", "count": 3.0}, {"name": "ab", "count": True}),
    "record_nested": ({"items": [{"id": 1}], "pair": [1, "a"]}, {"items": [{"id": 1, "x": 2}]}),
    "record_combinators": ({"choice": 3}, {"shape": {"kind": "square", "r": 1}}),
}
RECORD_CASES = [
    Case(_record_tool(name, schema), objects(*RECORD_GOOD[name]), *RECORD_EXAMPLES[name])
    for name, schema in RECORD_SCHEMAS.items()
]
CASES = {c.tool.name: c for c in FUNCTION_CASES + RECORD_CASES}


def outcome(t: Tool, args: Any) -> tuple[dict[str, Any] | None, ToolValidationError | None]:
    """Validate ``args``: the keyword arguments, or the ToolValidationError raised."""
    try:
        return t.validate(args), None
    except ToolValidationError as exc:
        return None, exc


def ours_accepts(t: Tool, args: Any) -> bool:
    """Whether our validation accepts ``args`` (ToolValidationError means no)."""
    return outcome(t, args)[1] is None


_ORACLES: dict[str, jsonschema.Draft202012Validator] = {}


def oracle_accepts(t: Tool, args: Any) -> bool:
    """Whether the jsonschema library accepts ``args`` under the tool's parameters schema.

    Arguments it rejects count as accepted when their strict-mode reading (a
    ``null`` for an optional parameter means it was left out, JSON text for an
    object means that object) is valid: validation applies that reading always.
    """
    oracle = _ORACLES.get(t.name)
    if oracle is None:
        oracle = _ORACLES[t.name] = jsonschema.Draft202012Validator(t.parameters)
    if oracle.is_valid(args):
        return True
    if not isinstance(args, dict):
        return False
    return oracle.is_valid(restore_arguments(t.parameters, args))


# -- tests -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", CASES)
def test_parameters_are_valid_draft_2020_12(name):
    """Every tool's parameters schema is itself a valid Draft 2020-12 schema."""
    case = CASES[name]
    jsonschema.Draft202012Validator.check_schema(case.tool.parameters)


@pytest.mark.parametrize("name", CASES)
def test_examples_reach_both_outcomes(name):
    """Each case has a valid and an invalid example on which ours and the oracle agree."""
    case = CASES[name]
    assert oracle_accepts(case.tool, case.valid)
    assert ours_accepts(case.tool, case.valid)
    assert not oracle_accepts(case.tool, case.invalid)
    assert not ours_accepts(case.tool, case.invalid)


@pytest.mark.parametrize("name", CASES)
@SETTINGS
@given(data=st.data())
def test_validation_agrees_with_jsonschema(name, data):
    """Our validation accepts an argument object iff jsonschema accepts it under .parameters."""
    case = CASES[name]
    args = data.draw(case.arguments, label="args")
    note(f"schema: {case.tool.parameters}")
    expected = oracle_accepts(case.tool, args)
    event("accepted" if expected else "rejected")
    assert ours_accepts(case.tool, args) == expected


weird_values = st.one_of(
    json_values,
    st.floats(),
    st.binary(max_size=4),
    st.sets(st.integers(), max_size=3),
    st.tuples(json_scalars, json_scalars),
    st.builds(object),
    st.complex_numbers(),
)
weird_arguments = st.one_of(
    st.none(),
    json_values,
    weird_values,
    st.dictionaries(st.one_of(texts, st.integers(), st.none()), weird_values, max_size=4),
)


@pytest.mark.parametrize("name", CASES)
@settings(SETTINGS, max_examples=100)
@given(data=st.data())
def test_validation_only_raises_tool_validation_error(name, data):
    """Any input, JSON or not, either validates to a dict or raises ToolValidationError."""
    case = CASES[name]
    args = data.draw(
        st.one_of(weird_arguments, case.arguments.map(lambda a: {**a, "x": object()})),
        label="args",
    )
    result, error = outcome(case.tool, args)
    if error is None:
        assert isinstance(result, dict)
    else:
        assert error.tool_name == case.tool.name
        assert error.errors
        assert all(isinstance(e, FieldError) and e.kind and e.message for e in error.errors)
        assert str(error)


@pytest.mark.parametrize("name", CASES)
def test_none_means_no_arguments(name):
    """``None`` is validated exactly like an empty argument object."""
    case = CASES[name]
    from_empty, empty_error = outcome(case.tool, {})
    from_none, none_error = outcome(case.tool, None)
    assert from_none == from_empty
    assert (none_error and none_error.errors) == (empty_error and empty_error.errors)


@pytest.mark.parametrize("value", [[], [{"a": 1}], "args", 3, 2.5, True])
@pytest.mark.parametrize("name", CASES)
def test_non_object_arguments_are_rejected(name, value):
    """A JSON value that is not an object is rejected with one type error at the root."""
    case = CASES[name]
    with pytest.raises(ToolValidationError) as info:
        case.tool.validate(value)
    assert [(e.path, e.kind) for e in info.value.errors] == [("", "type")]


@SETTINGS
@given(
    args=objects(
        {"text": texts, "count": json_ints, "ratio": json_numbers, "flag": st.booleans()},
        ["text", "count", "ratio", "flag"],
    )
)
def test_accepted_scalars_have_python_types(args):
    """Accepted scalars reach the handler as str, int (not bool), float and bool."""
    out, error = outcome(CASES["scalars"].tool, args)
    if error is not None:
        return
    assert type(out["text"]) is str
    assert type(out["count"]) is int
    assert out["count"] == args["count"]
    assert type(out["ratio"]) is float
    assert out["ratio"] == float(args["ratio"])
    assert type(out["flag"]) is bool


# -- regressions found by the properties above -----------------------------------------


@pytest.mark.parametrize("level", [True, "1", "2"])
def test_int_enum_rejects_booleans_and_strings(level):
    """An IntEnum parameter rejects true and "1", as its JSON Schema enum [1, 2] does."""
    t = tool(enums)
    assert not oracle_accepts(t, {"level": level})
    with pytest.raises(ToolValidationError) as info:
        t.validate({"level": level})
    assert [(e.path, e.kind) for e in info.value.errors] == [("level", "enum")]


def test_whole_floats_beyond_int64_are_integers():
    """A whole float outside the int64 range (1e20) is a JSON Schema integer and is accepted."""
    t = tool(scalars)
    args = {"text": "", "count": 1e20, "ratio": 0, "flag": True}
    assert oracle_accepts(t, args)
    assert t.validate(args)["count"] == 10**20


def test_set_parameter_rejects_duplicate_items():
    """A set[int] parameter (uniqueItems) rejects [1, 1] and [1, 1.0] like its schema."""
    t = tool(unique_ids)
    for ids in ([1, 1], [1, 1.0]):
        assert not oracle_accepts(t, {"ids": ids})
        assert not ours_accepts(t, {"ids": ids})
