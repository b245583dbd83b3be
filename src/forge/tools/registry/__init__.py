"""The registry: tools by name, their views, events, factories and plugins.

`ToolRegistry` is a `ToolStore` (storage, O(1) lock-free lookup, snapshots for
listings, `RegistryEvent`s) plus `ToolAPI`, which it shares with its read-only views
(`ToolView`: ``filtered``, ``prefixed``, ``renamed``): the read API, provider
definitions, search, prompt text and the run shortcuts, thin delegates to an executor.
`ToolFactory` builds tools whose instances are created on first use; `load_plugins`
adds the tools of installed packages. `default_registry()` is the process-wide one.

Factories and plugins load on first use, to keep ``import forge.tools`` light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge.tools.model.source import ToolSource
from forge.tools.registry._convert import to_tool
from forge.tools.registry._registry import ToolRegistry, default_registry
from forge.tools.registry.events import EVENTS, EventType, Listener, RegistryEvent
from forge.tools.registry.store import ToolStore
from forge.tools.registry.views import ToolAPI, ToolView

if TYPE_CHECKING:
    from forge.tools.registry.factories import ToolFactory
    from forge.tools.registry.plugins import PLUGIN_GROUP, PluginReport, load_plugins

__all__ = [
    "EVENTS",
    "PLUGIN_GROUP",
    "EventType",
    "Listener",
    "PluginReport",
    "RegistryEvent",
    "ToolAPI",
    "ToolFactory",
    "ToolRegistry",
    "ToolSource",
    "ToolStore",
    "ToolView",
    "default_registry",
    "load_plugins",
    "to_tool",
]

_LAZY = {
    "ToolFactory": "forge.tools.registry.factories",
    "PLUGIN_GROUP": "forge.tools.registry.plugins",
    "PluginReport": "forge.tools.registry.plugins",
    "load_plugins": "forge.tools.registry.plugins",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
