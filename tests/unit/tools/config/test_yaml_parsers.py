"""The bounded YAML loader reads the same with libyaml's parser as with PyYAML's own.

`load_yaml` takes libyaml's events when PyYAML was built with it and falls back to the
pure-Python parser for a text libyaml rejects. Whatever the text, the result (or the
error) must be the one the pure-Python loader gives alone.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forge.tools.config import _yaml
from forge.tools.config._limits import MAX_DEPTH, Refused

pytestmark = pytest.mark.skipif(
    _yaml._FastLoader is None, reason="PyYAML was built without libyaml"
)

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(["yes", "~", "0x1F", "1_000", "1e3", ".inf", "2026-11-29", "*", "&a"])
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
_STYLES = st.sampled_from([None, False, True])  # block with flow leaves, block, flow


def _pure(text: str, *, tools: bool) -> tuple[str, Any]:
    try:
        loader = _yaml._BoundedLoader(text, tools=tools)  # its reader checks the characters
    except yaml.YAMLError as error:
        return type(error).__name__, str(error)
    try:
        return "ok", loader.get_single_data()
    except (yaml.YAMLError, _yaml.AliasBomb) as error:
        return type(error).__name__, str(error)
    finally:
        loader.dispose()


def _public(text: str, *, tools: bool) -> tuple[str, Any]:
    try:
        return "ok", _yaml.load_yaml(text, tools=tools)
    except (yaml.YAMLError, _yaml.AliasBomb) as error:
        return type(error).__name__, str(error)


def _same(text: str, *, tools: bool = True) -> None:
    assert repr(_public(text, tools=tools)) == repr(_pure(text, tools=tools))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_VALUES, style=_STYLES, tools=st.booleans())
def test_dumped_documents_load_the_same(value: Any, style: bool | None, tools: bool) -> None:
    _same(yaml.safe_dump({"tools": [value]}, default_flow_style=style), tools=tools)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=_VALUES,
    cut=st.integers(0, 400),
    insert=st.sampled_from(["", ":", "- ", "[", "}", "\t", "&x ", "*x", "! ", "'", '"', "\x07"]),
)
def test_damaged_documents_load_or_fail_the_same(value: Any, cut: int, insert: str) -> None:
    text = yaml.safe_dump({"tools": [value, value]})
    cut = min(cut, len(text))
    _same(text[:cut] + insert + text[cut:])


@pytest.mark.parametrize(
    "text",
    [
        "tools:\n  - &a {name: a, x: [1, 2]}\n  - *a\n",  # an alias
        "tools:\n  - &a [*a]\n",  # a recursive alias
        "tools: [" + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "]\n",  # too deep
        "tools:\n  - name: big\n    n: " + "9" * 5_000 + "\n",  # an integer past int()
        "a: &a [1,2,3,4,5,6,7,8,9,10]\n"
        + "".join(
            f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
            for p, c in zip("abcdefg", "bcdefgh", strict=True)
        ),
        "tools:\n  - {name: x}\n---\ntools: []\n",  # two documents
        "tools: [a, b\n",  # unclosed
        "",
    ],
)
def test_bounds_and_errors_are_the_same(text: str) -> None:
    _same(text)
    _same(text, tools=False)


def test_bounds_hold_on_the_fast_path() -> None:
    deep = "tools: [" + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "]\n"
    assert "nests more than" in str(_yaml.load_yaml(deep)["tools"][0])
    huge = _yaml.load_yaml("tools:\n  - n: " + "9" * 5_000 + "\n")
    assert isinstance(huge["tools"][0]["n"], Refused)
