"""Arguments the quick check admits are exactly what the validator returns.

A call whose arguments `admits_for`'s check accepts skips pydantic-core
(`forge.tools.schema._admits`). These tests generate plainly typed signatures
and arguments of every kind (wrong types, bools for ints, infinite floats, big
ints, unpaired surrogates, unknown and missing keys) and check that whatever is
admitted validates to the same values of the same types, with the defaults of
the left-out parameters; and that signatures it cannot vouch for get no check.
"""

from __future__ import annotations

import inspect
import math
import typing
from typing import Annotated, Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from forge.tools import ToolExecutor, ToolRegistry, tool
from forge.tools.schema._admits import admits_for

SCALARS = {"int": int, "str": str, "float": float, "bool": bool}
DEFAULTS: dict[str, st.SearchStrategy[Any]] = {
    "int": st.integers(-(10**30), 10**30),
    "str": st.text(max_size=4),
    "float": st.floats(allow_nan=False, allow_infinity=False),
    "bool": st.booleans(),
}
VALUES = st.one_of(
    st.integers(-(10**30), 10**30), st.booleans(), st.none(),
    st.floats(), st.text(max_size=4), st.just("\ud800"),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)  # fmt: skip


@st.composite
def signatures(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    """A function ``f`` with 1-5 scalar parameters (required first), and its defaults."""
    names = draw(st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=5, unique=True))
    optional = draw(st.integers(0, len(names)))
    params, defaults, namespace = [], {}, {}
    for i, name in enumerate(names):
        kind = draw(st.sampled_from(sorted(SCALARS)))
        if i >= len(names) - optional:
            defaults[name] = draw(DEFAULTS[kind])
            namespace[f"d_{name}"] = defaults[name]
            params.append(f"{name}: {kind} = d_{name}")
        else:
            params.append(f"{name}: {kind}")
    source = f"def f({', '.join(params)}):\n    return locals()\n"
    exec(source, namespace)
    return namespace["f"], defaults


@st.composite
def arguments(draw: st.DrawFn, fn: Any) -> dict[Any, Any]:
    names = list(inspect.signature(fn).parameters)
    hints = typing.get_type_hints(fn)
    out: dict[Any, Any] = {}
    for name in names:
        choice = draw(st.sampled_from(["right", "right", "other", "missing"]))
        if choice == "right":
            kind = hints[name].__name__
            right = DEFAULTS[kind] | st.just(math.inf) if kind == "float" else DEFAULTS[kind]
            out[name] = draw(right)
        elif choice == "other":
            out[name] = draw(VALUES)
    if draw(st.booleans()) and draw(st.integers(0, 4)) == 0:
        out[draw(st.sampled_from(["z", "extra", 1]))] = draw(VALUES)
    return out


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_what_is_admitted_validates_to_itself(data: st.DataObject) -> None:
    fn, defaults = data.draw(signatures())
    admitted = admits_for(fn)
    assert admitted is not None
    compiled = tool(fn).compiled()
    for _ in range(5):
        args = data.draw(arguments(fn))
        if not admitted.admits(args):
            continue
        kwargs = compiled.validate(dict(args))
        expected = {**{k: v for k, v in defaults.items() if k not in args}, **args}
        assert kwargs == expected
        assert {k: type(v) for k, v in kwargs.items()} == {k: type(v) for k, v in expected.items()}
        completed = admitted.complete(args)  # what hooks are handed: the same, in the same order
        assert list(completed.items()) == list(kwargs.items())


def test_exact_types_only() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    admitted = admits_for(add)
    assert admitted is not None
    admits = admitted.admits
    assert admits({"a": 1, "b": 2})
    assert not admits({"a": True, "b": 2})  # a bool is left to the validator (which refuses it)
    assert not admits({"a": 1.0, "b": 2})  # converted by the validator
    assert not admits({"a": 1})
    assert not admits({"a": 1, "b": 2, "c": 3})
    assert not admits({"a": 1, "c": 2})


def test_floats_must_be_finite() -> None:
    def scale(x: float, factor: float = 2.0) -> float:
        return x * factor

    admitted = admits_for(scale)
    assert admitted is not None
    admits = admitted.admits
    assert admits({"x": 1.5})
    assert not admits({"x": math.inf})
    assert not admits({"x": math.nan})
    assert not admits({"x": 1})  # an int for a float is the validator's to judge


def test_signatures_it_cannot_vouch_for_get_no_check() -> None:
    def constrained(a: Annotated[int, Field(gt=0)]) -> int:
        return a

    def optional(a: int | None) -> int:
        return a or 0

    def listed(a: list[int]) -> int:
        return len(a)

    def mutable_default(a: str, b: Any = None) -> str:
        return a

    def star(*a: int) -> int:
        return 0

    def nothing() -> int:
        return 0

    for fn in (constrained, optional, listed, mutable_default, star, nothing):
        assert admits_for(fn) is None, fn.__name__


def test_a_call_gives_the_same_result_either_way() -> None:
    def shout(text: str, times: int = 1) -> str:
        return text.upper() * times

    registry = ToolRegistry([shout])
    assert registry.get("shout").compiled().admits is not None  # type: ignore[union-attr]
    assert registry.execute("shout", {"text": "hé", "times": 2}).output == "HÉHÉ"
    assert registry.execute("shout", {"text": "a"}).output == "A"
    failed = registry.execute_all([{"name": "shout", "arguments": {"text": "a", "times": True}}])
    assert not failed[0].success
    assert "times" in (failed[0].error or "")


def test_hooks_see_what_the_validator_gives() -> None:
    """Through the executor's full pipeline, a hook is handed the arguments in parameter
    order with the defaults filled in, as when the validator ran, and may edit its own copy."""

    def greet(name: str, greeting: str = "Hello", times: int = 1) -> str:
        return f"{greeting}, {name}" * times

    seen: list[dict[str, Any]] = []

    class Recorder:
        def before_call(self, call: Any) -> None:
            seen.append(dict(call.kwargs))
            call.kwargs["times"] = 2

    registry = ToolRegistry([greet])
    arguments = {"times": 1, "name": "Ada"}
    result = ToolExecutor(registry, hooks=[Recorder()]).run_sync("greet", arguments)
    assert list(seen[0].items()) == [("name", "Ada"), ("greeting", "Hello"), ("times", 1)]
    assert result.output == "Hello, AdaHello, Ada"
    assert arguments == {"times": 1, "name": "Ada"}  # the caller's dict is not the one edited
