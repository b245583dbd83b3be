"""The values every layer passes around: categories, metadata, parameters, context, calls, results.

Plain data with no behaviour beyond checking itself; nothing here imports a
tool, a provider format or the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge.tools.values._jsonable import to_jsonable
    from forge.tools.values._readonly import thaw

__all__ = ["thaw", "to_jsonable"]

_HOMES = {
    "thaw": "forge.tools.values._readonly",
    "to_jsonable": "forge.tools.values._jsonable",
}


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (no import cycle at load)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)
