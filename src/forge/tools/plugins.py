"""Plugins (CX-3): tools contributed by other installed packages through entry points.

A package declares an entry point in the ``forge_tools.plugins`` group::

    # pyproject.toml of the plugin package
    [project.entry-points."forge_tools.plugins"]
    weather = "weather_tools:register"

The object it names is one of:

* a function ``register(registry)`` that registers the plugin's tools;
* a `Tool`, a `BaseTool` instance or a record mapping (registered as is);
* a list or tuple of those.

`load_plugins` loads each plugin into a scratch registry first and then adds
its tools all at once, so a plugin that fails half-way (an import error, an
exception in ``register``, an invalid tool, a name that is already taken)
contributes nothing. The failure is logged and the next plugin loads as
usual: a broken plugin is never fatal.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from forge.core.logging import get_logger

if TYPE_CHECKING:
    from forge.tools.store import ToolStore

__all__ = ["PLUGIN_GROUP", "PluginReport", "load_plugins"]

PLUGIN_GROUP = "forge_tools.plugins"
"""The entry-point group plugins declare their tools in."""

logger = get_logger("tools.plugins")


@dataclass(frozen=True, slots=True)
class PluginReport:
    """What `load_plugins` did."""

    loaded: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each plugin (by entry-point name) that loaded, with the names of the tools it added."""
    failed: dict[str, str] = field(default_factory=dict)
    """Each plugin (by entry-point name) that failed, with the reason (it added no tools)."""

    @property
    def tools(self) -> tuple[str, ...]:
        """Every tool name the plugins added."""
        return tuple(name for names in self.loaded.values() for name in names)


def load_plugins(
    registry: ToolStore,
    *,
    group: str = PLUGIN_GROUP,
    names: Iterable[str] | None = None,
    replace: bool = False,
) -> PluginReport:
    """Load every plugin of ``group`` into ``registry``; a failing one is logged and skipped.

    Args:
        registry: Where the plugins' tools go.
        group: The entry-point group.
        names: Load only the plugins with these entry-point names.
        replace: Let a plugin's tool replace a registered tool of the same name.
    """
    wanted = None if names is None else set(names)
    report = PluginReport()
    for entry in _entry_points(group):
        if wanted is not None and entry.name not in wanted:
            continue
        label = _label(entry)
        try:
            added = _load_one(registry, entry, replace)
        except Exception as exc:
            logger.warning("plugin %s failed to load and was skipped: %s", label, _why(exc))
            logger.debug("plugin %s failure", label, exc_info=True)
            report.failed[entry.name] = _why(exc)
            continue
        report.loaded[entry.name] = added
        logger.info("plugin %s added %d tool(s): %s", label, len(added), ", ".join(added))
    return report


def _entry_points(group: str) -> list[importlib.metadata.EntryPoint]:
    found = importlib.metadata.entry_points(group=group)
    unique: dict[tuple[str, str], importlib.metadata.EntryPoint] = {}
    for entry in found:  # one distribution on sys.path twice must not load twice
        unique.setdefault((entry.name, entry.value), entry)
    return list(unique.values())


def _load_one(
    registry: ToolStore, entry: importlib.metadata.EntryPoint, replace: bool
) -> tuple[str, ...]:
    target = entry.load()
    scratch = type(registry)()  # the same kind of registry, so plugins may use its methods
    _contribute(target, scratch)
    tools = scratch.list_all()
    registry.register_many(tools, replace=replace)
    adopt = getattr(registry, "_adopt_factories", None)
    if adopt is not None:
        adopt(scratch)
    return tuple(t.name for t in tools)


def _contribute(target: Any, scratch: ToolStore) -> None:
    from forge.tools.base import BaseTool
    from forge.tools.model.tool import Tool

    if isinstance(target, Tool | BaseTool | Mapping):
        scratch.register(target)
    elif isinstance(target, list | tuple):
        scratch.register_many(target)
    elif callable(target):
        target(scratch)
    else:
        raise TypeError(
            "a plugin entry point must name a register(registry) function, a tool, or a list "
            f"of tools; got {type(target).__name__}"
        )


def _label(entry: importlib.metadata.EntryPoint) -> str:
    dist = getattr(entry, "dist", None)
    dist_name = getattr(dist, "name", None) if dist is not None else None
    return f"{entry.name} ({dist_name})" if dist_name else entry.name


def _why(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"
