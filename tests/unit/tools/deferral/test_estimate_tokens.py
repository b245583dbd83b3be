"""`estimate_tokens`: a mapping or SDK object is one definition, any other iterable holds them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

import pytest
from google.genai import types as genai
from hypothesis import given
from hypothesis import strategies as st

from forge.tools.deferral import estimate_tokens

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
DEFINITION = st.dictionaries(st.text(max_size=12), JSON, max_size=6)
DEFINITIONS = st.lists(DEFINITION, max_size=6)


def compact(definition: Any) -> int:
    """One token per three bytes of the compact JSON, rounded up (the documented estimate)."""
    text = json.dumps(definition, ensure_ascii=False, separators=(",", ":"))
    return -(-len(text.encode()) // 3)


def generated(definitions: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The definitions from a generator (readable once)."""
    yield from definitions


@given(DEFINITION)
def test_a_mapping_is_one_definition(definition: dict[str, Any]) -> None:
    """A dict, whatever its keys and values, is counted as one definition's compact JSON."""
    assert estimate_tokens(definition) == compact(definition)


@given(DEFINITION)
def test_a_mapping_of_any_type_is_counted_as_its_dict(definition: dict[str, Any]) -> None:
    """A read-only mapping is counted like the dict it shows, not by its repr."""
    assert estimate_tokens(MappingProxyType(definition)) == compact(definition)


@given(DEFINITIONS)
def test_every_iterable_is_counted_one_by_one(definitions: list[dict[str, Any]]) -> None:
    """A list, tuple, generator or dict's values view: the sum of its definitions."""
    expected = sum(compact(d) for d in definitions)
    by_name = {str(i): d for i, d in enumerate(definitions)}
    assert estimate_tokens(definitions) == expected
    assert estimate_tokens(tuple(definitions)) == expected
    assert estimate_tokens(generated(definitions)) == expected
    assert estimate_tokens(by_name.values()) == expected
    assert estimate_tokens(iter(definitions)) == expected


@given(DEFINITIONS, DEFINITIONS)
def test_the_estimate_adds_up(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> None:
    """Counting two collections together is counting each apart, then adding."""
    assert estimate_tokens(first + second) == estimate_tokens(first) + estimate_tokens(second)


def test_an_sdk_object_is_one_definition_not_its_fields() -> None:
    """A pydantic SDK type (iterable over its fields) is one definition, counted by its str."""
    declaration = genai.FunctionDeclaration(name="get_time", description="The time now.")
    alone = estimate_tokens(declaration)
    assert alone == compact(str(declaration))
    assert estimate_tokens([declaration, declaration]) == 2 * alone
    assert estimate_tokens(d for d in (declaration,)) == alone


@pytest.mark.parametrize("text", ['{"name": "f"}', b'{"name": "f"}', bytearray(b"{}")])
def test_json_text_is_refused_naming_what_was_passed(text: str | bytes) -> None:
    """Text is no definition: a TypeError naming its type and what to pass instead."""
    with pytest.raises(TypeError, match=rf"the argument is {type(text).__name__}: pass the def"):
        estimate_tokens(text)
    with pytest.raises(TypeError, match=rf"definition 1 is {type(text).__name__}"):
        estimate_tokens([{"name": "f"}, text])


def test_an_empty_iterable_costs_nothing() -> None:
    """No definitions, no tokens."""
    assert estimate_tokens([]) == 0
    assert estimate_tokens(generated([])) == 0
