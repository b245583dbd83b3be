"""`NameMap`: reversible, collision-free names across providers."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from forge.tools.formats.names import NAME_RULES, NameMap
from forge.tools.schema import is_valid_name


def test_dotted_names_map_readably_and_back() -> None:
    """A dotted MCP/BFCL name becomes underscores, and the original is kept."""
    names = NameMap()
    assert names.add("math.factorial") == "math_factorial"
    assert names.original("math_factorial") == "math.factorial"
    assert names.add("math.factorial") == "math_factorial"  # stable
    assert names.changed() == {"math.factorial": "math_factorial"}


def test_valid_names_keep_themselves() -> None:
    """A name every provider accepts is not changed, and maps back to itself."""
    names = NameMap()
    assert names.add("search") == "search"
    assert names.original("search") == "search"
    assert names.original("never-added") == "never-added"
    assert names.mapped("unknown") is None


def test_collisions_get_a_hash_suffix() -> None:
    """Two names that sanitise alike never share a mapped name."""
    names = NameMap()
    first = names.add("a.b")
    second = names.add("a_b")  # valid, but taken by the mapping of "a.b"
    third = names.add("a-b")
    assert first == "a_b"
    assert second != first
    assert third == "a-b"
    assert {names.original(m) for m in (first, second, third)} == {"a.b", "a_b", "a-b"}


def test_long_and_odd_names_fit_the_rule() -> None:
    """Over-long names are shortened with a hash; a leading digit gets an underscore."""
    names = NameMap()
    long = "x." * 80
    mapped = names.add(long)
    assert len(mapped) <= 64
    assert is_valid_name(mapped)
    assert names.add("1tool") == "_1tool"
    assert names.add("") == "_"
    assert len(names) == 3
    assert "1tool" in names


def test_provider_rules_allow_what_the_provider_allows() -> None:
    """Gemini and MCP accept dots, so a Gemini-rule map keeps them."""
    assert NameMap("gemini").add("math.factorial") == "math.factorial"
    assert NameMap("openai").add("math.factorial") == "math_factorial"
    assert set(NAME_RULES) >= {"openai", "anthropic", "gemini", "bedrock", "mcp", "mistral"}


@given(st.lists(st.text(max_size=80), max_size=30))
def test_mapping_is_injective_and_reversible(originals: list[str]) -> None:
    """Any set of names maps to distinct valid names that map back to the originals."""
    names = NameMap()
    mapped = [names.add(o) for o in originals]
    assert all(re.match(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$", m) for m in mapped)
    assert len(set(mapped)) == len(set(originals))
    assert all(names.original(m) == o for m, o in zip(mapped, originals, strict=True))


def test_a_call_for_the_mapped_name_reaches_the_right_tool() -> None:
    """Imported dotted names register under mapped names; calls map back to the original."""
    from forge.tools import ToolCall, ToolRegistry, from_record
    from forge.tools.importers import normalize_definition

    names = NameMap()
    registry = ToolRegistry()
    for original in ("math.add", "math_add", "math-add"):
        definition = normalize_definition(
            {"name": original, "description": f"{original}.", "parameters": {
                "type": "dict", "properties": {"x": {"type": "integer"}}}},
            names=names,
        )  # fmt: skip
        registry.register(from_record(definition.to_record(lambda x, who=original: f"{who}:{x}")))
    results = registry.execute_all([ToolCall(f"c{i}", n, {"x": i}) for i, n in
                                    enumerate(registry.names())])  # fmt: skip
    assert [names.original(r.tool_name) for r in results] == ["math.add", "math_add", "math-add"]
    assert [r.output for r in results] == ["math.add:0", "math_add:1", "math-add:2"]


NAMES = st.lists(
    st.text(alphabet="ab._-1", min_size=1, max_size=6), min_size=1, max_size=8, unique=True
)


@given(NAMES, st.randoms(use_true_random=False))
def test_add_all_does_not_depend_on_the_order(names: list[str], random: Any) -> None:
    """The same set of names in any order maps the same; valid names always keep themselves."""
    shuffled = list(names)
    random.shuffle(shuffled)
    first, second = NameMap().add_all(names), NameMap().add_all(shuffled)
    assert first == second
    assert len(set(first.values())) == len(names)
    for name, mapped in first.items():
        assert is_valid_name(mapped)
        if is_valid_name(name):
            assert mapped == name


def test_a_valid_name_takes_its_name_back_from_an_earlier_mapping() -> None:
    """``math.factorial`` added alone maps to ``math_factorial``; once the valid name comes, it
    gets its own name back and the dotted one is mapped again, with a suffix."""
    names = NameMap()
    assert names.add("math.factorial") == "math_factorial"
    mapped = names.add_all(["math.factorial", "math_factorial"])
    assert mapped["math_factorial"] == "math_factorial"
    assert mapped["math.factorial"].startswith("math_factorial_")
    assert names.original("math_factorial") == "math_factorial"
    assert names.original(mapped["math.factorial"]) == "math.factorial"
