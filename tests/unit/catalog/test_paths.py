"""Field paths of validation errors: dotted text resolved against the arguments, and field names."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forge.catalog.paths import Segment, format_field, parse_field, split_path

_keys = st.text(min_size=0, max_size=6)
_segments = st.lists(st.one_of(_keys, st.integers(min_value=0, max_value=50)), max_size=6)


@given(_segments)
def test_a_field_name_reads_back_as_its_segments(path: list[Segment]) -> None:
    """`parse_field` inverts `format_field` for any keys and indexes."""
    assert parse_field(format_field(path)) == path


def _nest(path: list[Segment]) -> Any:
    """Arguments holding something at ``path`` (indexes into lists long enough)."""
    value: Any = "leaf"
    for segment in reversed(path):
        value = [None] * segment + [value] if isinstance(segment, int) else {segment: value}
    return value


@given(st.lists(st.one_of(st.text(max_size=5), st.integers(0, 4)), min_size=1, max_size=5))
def test_a_dotted_path_resolves_against_the_arguments(path: list[Segment]) -> None:
    """Keys holding dots or digits come back whole; indexes into arrays as numbers."""
    arguments = {"root": _nest(path)}
    dotted = ".".join(str(s) for s in ["root", *path])
    assert split_path(dotted, arguments) == ["root", *path]


def test_the_longest_key_wins_and_missing_fields_split_on_dots() -> None:
    """``a.b`` as a key beats ``a``; past the arguments, dots separate keys."""
    assert split_path("a.b.c", {"a": {"b": {}}, "a.b": {"c": 1}}) == ["a.b", "c"]
    assert split_path("items.3.id", {"items": [1]}) == ["items", "3", "id"]
    assert split_path("", {}) == []


@pytest.mark.parametrize(
    ("field", "where"), [("a[", "1"), ("a..b", "2"), ("[x]", "0"), ("a b", "1"), ('["a"', "0")]
)
def test_a_bad_field_name_is_an_error_naming_the_position(field: str, where: str) -> None:
    """The message says where reading stopped."""
    with pytest.raises(ValueError, match=f"at {where}"):
        parse_field(field)
