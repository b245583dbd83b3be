"""Python types and records to JSON Schema, and the validators that enforce it.

How a function, a pydantic model or a record becomes a parameters schema, a
validator and an ``invoke`` (`forge.tools.schema._sources`). Never imports `Tool`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge.tools.schema._names import is_valid_name
    from forge.tools.schema._validation import no_remote_refs

__all__ = ["is_valid_name", "no_remote_refs"]

_HOMES = {
    "is_valid_name": "forge.tools.schema._names",
    "no_remote_refs": "forge.tools.schema._validation",
}


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (no import cycle at load)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)
