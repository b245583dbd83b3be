"""Tools from configuration files.

`load_tools` reads YAML, JSON or TOML definitions and registers them. Each
definition names an implementation: ``mock`` (a fixed JSON response),
``builtin`` or ``internal`` (a handler looked up by name in a
`HandlerRegistry` the application filled; nothing is imported from a file),
or ``http`` (see `forge.tools.config.http`). The fields of a definition are
listed in `forge.tools.config.definition`.

Invalid definitions are skipped and the valid ones registered; the returned
`LoadReport` lists every problem in ``issues``, each is logged as an error, and
one `forge.core.errors.ConfigWarning` names them all. ``strict=True`` raises
`forge.core.errors.ConfigError` instead and registers nothing.
"""

from __future__ import annotations

from forge.tools.config.definition import IMPLEMENTATION_TYPES, build_tool
from forge.tools.config.handlers import HandlerRegistry, builtin_handlers
from forge.tools.config.loader import ConfigIssue, LoadReport, load_tools

__all__ = [
    "IMPLEMENTATION_TYPES",
    "ConfigIssue",
    "HandlerRegistry",
    "LoadReport",
    "build_tool",
    "builtin_handlers",
    "load_tools",
]
