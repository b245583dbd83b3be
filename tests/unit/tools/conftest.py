"""Fixtures shared by the tests of `forge.tools`."""

from __future__ import annotations

import pytest

from forge.tools import Tool
from forge.tools.registry import store as _store


@pytest.fixture
def copied(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every snapshot of the tools that registries build from now on."""
    sizes: list[int] = []

    class Counted(_store._State):
        __slots__ = ()

        def __init__(self, tools: dict[str, Tool], version: int) -> None:
            sizes.append(len(tools))
            super().__init__(tools, version)

    monkeypatch.setattr(_store, "_State", Counted)
    return sizes
