"""Package faces that import their names on first use (PEP 562).

A package's ``__init__`` lists the public name of each thing it exports and the
module that holds it; nothing is imported until a name is first read, so a face
costs nothing at import time however much it exports. The face keeps the same
imports under ``TYPE_CHECKING`` for type checkers and the import graph.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_face"]


def lazy_face(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package exporting ``homes`` lazily.

    ``homes`` maps each exported name to ``"module"`` (the same name there) or to
    ``"module:name"`` when the package exports it under another name.
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = home.partition(":")
        value = getattr(importlib.import_module(module), attribute or name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *homes})

    return __getattr__, __dir__
