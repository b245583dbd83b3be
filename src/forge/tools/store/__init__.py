"""The registry proper: tools with lock-free lookup, snapshots for listings, events (`ToolStore`).

What is derived from a store's tools (provider definitions, the search index,
prompt text) is computed by functions over it (`forge.tools.store._derived`) and
cached until the next change. `forge.tools.registry.ToolRegistry` is a store plus
thin methods over these, the engine, factories and plugins.
"""

from forge.tools.store._derived import (
    prompt_text,
    provider_conversion,
    provider_definitions,
    search_tools,
)
from forge.tools.store._store import (
    EVENTS,
    EventType,
    Listener,
    RegistryEvent,
    ToolSource,
    ToolStore,
    to_tool,
)

__all__ = [
    "EVENTS",
    "EventType",
    "Listener",
    "RegistryEvent",
    "ToolSource",
    "ToolStore",
    "prompt_text",
    "provider_conversion",
    "provider_definitions",
    "search_tools",
    "to_tool",
]
