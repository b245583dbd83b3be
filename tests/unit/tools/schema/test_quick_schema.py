"""The quick parameters schema is pydantic's, key for key and in the same order.

An export reads a tool's schema before any call; for plainly typed functions it
is written without pydantic (`forge.tools.schema._quick`). These tests compare
it with the schema the full compile gives, on generated signatures and on the
benchmark's 1,000 generated tools, and check that anything else is compiled.
"""

from __future__ import annotations

import enum
import json
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools import ToolRegistry, tool
from forge.tools.schema._python import function_schema
from forge.tools.schema._quick import quick_parameters

BENCH = Path(__file__).resolve().parents[4] / "bench"


class Colour(enum.Enum):
    """Not plain: pydantic writes a ``$defs`` entry."""

    RED = "red"


NAMESPACE: dict[str, Any] = {
    "Any": typing.Any, "Optional": typing.Optional, "Union": typing.Union,
    "List": typing.List, "Dict": typing.Dict, "Literal": typing.Literal,  # noqa: UP006
    "Annotated": typing.Annotated, "Colour": Colour,
}  # fmt: skip

SCALARS = ["str", "int", "float", "bool", "None", "Any"]
NOT_PLAIN = [
    "tuple[int, str]", "set[int]", "Colour", "Annotated[int, 'x']", "bytes",
    "dict[int, str]", "Literal['only']", "Literal[True, False]", "Literal['a', 1]",
]  # fmt: skip


def annotations() -> st.SearchStrategy[str]:
    leaves = st.sampled_from(SCALARS + NOT_PLAIN) | st.sampled_from(
        ["Literal['a', 'b']", "Literal[1, 2, 3]", "list", "dict", "List", "Dict"]
    )

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            inner.map(lambda a: f"list[{a}]"),
            inner.map(lambda a: f"List[{a}]"),
            inner.map(lambda a: f"dict[str, {a}]"),
            inner.map(lambda a: f"Dict[str, {a}]"),
            inner.map(lambda a: f"Optional[{a}]"),
            st.lists(inner, min_size=2, max_size=3, unique=True).map(" | ".join),
            st.lists(inner, min_size=2, max_size=3).map(lambda a: f"Union[{', '.join(a)}]"),
        )

    return st.recursive(leaves, extend, max_leaves=4)


DEFAULTS = st.one_of(
    st.sampled_from(["None", "True", "False", "float('inf')", "float('nan')", "[1]", "Colour.RED"]),
    st.integers(-(10**20), 10**20).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=5).map(repr),
)  # source text of a default value


@st.composite
def functions(draw: st.DrawFn) -> tuple[Any, dict[str, str]]:
    count = draw(st.integers(0, 5))
    names = draw(st.lists(st.sampled_from("abcdefgh"), min_size=count, max_size=count, unique=True))
    params, seen_default = [], False
    for name in names:
        annotation = draw(annotations())
        if seen_default or draw(st.booleans()):
            seen_default = True
            params.append(f"{name}: {annotation} = {draw(DEFAULTS)}")
        else:
            params.append(f"{name}: {annotation}")
    marker = draw(st.sampled_from(["", "*, ", "/, "])) if params else ""
    if marker == "/, ":
        params.append("/")
    elif marker:
        params.insert(0, "*")
    source = f"def generated({', '.join(params)}) -> str:\n    return ''\n"
    namespace = dict(NAMESPACE)
    exec(compile(source, "<generated>", "exec", dont_inherit=True), namespace)
    descriptions = {n: f"about {n}" for n in names if draw(st.booleans())}
    return namespace["generated"], descriptions


def full_schema(fn: Any, descriptions: dict[str, str]) -> dict[str, Any] | None:
    try:
        return function_schema("generated", fn, descriptions).parameters
    except Exception:
        return None


@settings(max_examples=400, deadline=None)
@given(functions())
def test_the_quick_schema_is_pydantics_schema_or_none(case: tuple[Any, dict[str, str]]) -> None:
    fn, descriptions = case
    quick = quick_parameters(fn, descriptions)
    if quick is None:
        return
    full = full_schema(fn, descriptions)
    assert full is not None
    assert json.dumps(quick) == json.dumps(full)  # the same keys, values and order


def test_plain_signatures_take_the_quick_path() -> None:
    def plain(
        query: str, count: int = 10, tags: list[str] | None = None,
        mode: typing.Literal["a", "b"] = "a", extra: dict[str, float] | None = None,
    ) -> str:  # fmt: skip
        return query

    quick = quick_parameters(plain, {"query": "What to look for."})
    assert quick is not None
    assert json.dumps(quick) == json.dumps(full_schema(plain, {"query": "What to look for."}))


def test_the_benchmark_tools_all_take_the_quick_path_and_match() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from _workload import make_functions
    finally:
        sys.path.remove(str(BENCH))
    for fn in make_functions(300, prefix="quick_"):
        source = tool(fn).source
        descriptions = dict(source.param_descriptions)  # type: ignore[attr-defined]
        quick = quick_parameters(fn, descriptions)
        assert quick is not None, fn.__name__
        assert json.dumps(quick) == json.dumps(full_schema(fn, descriptions)), fn.__name__


def test_an_export_does_not_build_validators_and_a_call_reuses_the_schema() -> None:
    def lookup(city: str, limit: int = 3) -> str:
        """Look a city up.

        Args:
            city: The city.
        """
        return city * limit

    registry = ToolRegistry([lookup])
    exported = registry.to_provider("openai")
    found = registry.get("lookup")
    assert found is not None
    assert found._compiled is None  # the export did not compile the tool
    advertised = found.parameters
    assert exported[0]["function"]["parameters"] == advertised
    assert registry.execute("lookup", {"city": "ab", "limit": 2}).output == "abab"
    assert found.parameters is advertised  # the compiled tool shares the schema read before


def test_a_tool_with_examples_is_compiled_so_its_examples_are_checked() -> None:
    def double(x: int) -> int:
        """Double x."""
        return 2 * x

    with_examples = tool(double, examples=[{"input": {"x": 2}, "description": "two"}])
    object.__setattr__(with_examples, "_compiled", None)  # as a tool not compiled yet
    assert with_examples.parameters["required"] == ["x"]
    assert with_examples._compiled is not None


def test_text_annotations_pydantic_cannot_resolve_are_compiled_not_guessed() -> None:
    """Code run with ``exec`` resolves in its own globals, which pydantic does not read."""
    namespace: dict[str, Any] = {"Literal": typing.Literal, "__name__": "not_a_module"}
    source = (
        "from __future__ import annotations\ndef f(a: Literal['x', 'y']) -> str:\n    return a\n"
    )
    exec(compile(source, "<text annotations>", "exec", dont_inherit=True), namespace)
    assert quick_parameters(namespace["f"], {}) is None


# -- docstrings: one parser instead of four for the Google style -----------------------------

DOC_LINES = [
    "Do the thing.", "", "A longer description: with a colon.", "Args:", "    x: The x.",
    "    y (int): The y, optional.", "    z: Spans", "        two lines.", "Returns:",
    "    The answer.", "Raises:", "    ValueError: When bad.", ":param x: reST field.",
    ":returns: reST return.", "@param x: epydoc field.", "Parameters", "----------",
    "x : int", "    The x.", ".. deprecated:: 1.0", "Example:", "    >>> f(1)", "Note:",
    "    email@example.com is not an epydoc field.", "Attributes:", "    a: An attribute.",
]  # fmt: skip


def summary(parsed: Any) -> Any:
    meta = [(type(m).__name__, m.args, m.description) for m in parsed.meta]
    return parsed.short_description, parsed.long_description, parsed.style, meta


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DOC_LINES), min_size=1, max_size=12))
def test_the_google_shortcut_parses_as_docstring_parser_does(lines: list[str]) -> None:
    import docstring_parser

    from forge.tools.schema._python import _parse_docstring

    doc = "\n".join(lines)
    try:
        expected = summary(docstring_parser.parse(doc))
    except docstring_parser.ParseError:
        with pytest.raises(docstring_parser.ParseError):
            _parse_docstring(doc)
        return
    assert summary(_parse_docstring(doc)) == expected
