"""`registry.to_provider`: filtering, ordering, caching and unknown providers."""

from __future__ import annotations

import pytest

from forge.core.errors import UnsupportedProviderError
from forge.tools import ToolRegistry


def first(x: int) -> int:
    """Return x."""
    return x


def second(y: str) -> str:
    """Return y."""
    return y


def test_allowed_keeps_registration_order() -> None:
    """`allowed` filters tools but keeps the registry's order, not the filter's."""
    registry = ToolRegistry([first, second])
    names = [
        t["function"]["name"] for t in registry.to_provider("openai", allowed=["second", "first"])
    ]
    assert names == ["first", "second"]
    assert registry.to_provider("anthropic", allowed=["second"])[0]["name"] == "second"


def test_results_are_cached_per_version() -> None:
    """The same definitions (in a new list each time) are returned until the registry changes."""
    registry = ToolRegistry([first])
    cached = registry.to_provider("openai")
    again = registry.to_provider("openai")
    assert again is not cached
    assert all(a is b for a, b in zip(again, cached, strict=True))
    registry.register(second)
    assert [t["function"]["name"] for t in registry.to_provider("openai")] == ["first", "second"]


def test_unknown_provider_lists_the_supported_ones() -> None:
    """An unknown provider raises an error (also a ValueError) naming the supported ones."""
    with pytest.raises(UnsupportedProviderError, match=r"supported providers: .*openai") as info:
        ToolRegistry([first]).to_provider("gemeni")
    assert isinstance(info.value, ValueError)
    assert "openai" in info.value.supported
