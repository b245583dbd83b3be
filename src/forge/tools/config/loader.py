"""Loading tool configuration files into a registry (CF-1, CF-6)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forge.core.errors import ConfigError, DuplicateToolError, ToolDefinitionError
from forge.core.logging import get_logger
from forge.tools.config._files import FileProblem, read_definitions
from forge.tools.config.definition import build_tool
from forge.tools.config.handlers import HandlerRegistry, builtin_handlers
from forge.tools.registry import ToolRegistry
from forge.tools.tool import Tool

__all__ = ["ConfigIssue", "LoadReport", "load_tools"]

logger = get_logger("tools.config")
PathLike = str | os.PathLike[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigIssue:
    """One invalid definition (or unreadable file) and why."""

    file: str
    """The file the problem is in."""
    index: int | None
    """The definition's position in its file (1-based); ``None`` for the file itself."""
    tool: str | None
    """The tool's name, when the definition has a usable one."""
    message: str
    """What is wrong and how to fix it."""

    def __str__(self) -> str:
        if self.index is None:
            return f"{self.file}: {self.message}"
        what = f"tool {self.tool!r}" if self.tool else f"definition #{self.index}"
        return f"{self.file}: {what}: {self.message}"


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadReport:
    """What `load_tools` registered and what it rejected."""

    registry: ToolRegistry
    """The registry the tools were added to."""
    tools: tuple[Tool, ...] = ()
    """The tools registered, in file order."""
    issues: tuple[ConfigIssue, ...] = field(default=())
    """The definitions rejected (each was also logged as an error)."""

    @property
    def ok(self) -> bool:
        """Whether every definition was valid."""
        return not self.issues


def load_tools(
    paths: PathLike | Iterable[PathLike],
    *,
    registry: ToolRegistry | None = None,
    strict: bool = False,
    builtins: HandlerRegistry | None = None,
    internal: HandlerRegistry | None = None,
    allow_private_network: bool | Iterable[str] = False,
) -> LoadReport:
    """Load tools from YAML, JSON or TOML files and register them.

    Invalid definitions, unreadable files and duplicate names (the first
    definition wins) are logged as errors with file, tool name and reason,
    and the valid tools are still registered. With ``strict`` any problem
    raises `ConfigError` and nothing is registered.

    Args:
        paths: One file or several, read in order.
        registry: Where to register (default: a new `ToolRegistry`).
        strict: Fail on the first batch with any invalid definition (for CI).
        builtins: Handlers ``builtin`` definitions may name (default: `builtin_handlers()`).
        internal: Handlers ``internal`` definitions may name (default: none).
        allow_private_network: Let HTTP tools reach private, loopback and
            link-local addresses: ``True`` for all, or the addresses and
            networks allowed (``["127.0.0.1", "10.0.0.0/8"]``).

    Raises:
        ConfigError: In strict mode, listing every problem.
    """
    registry = registry if registry is not None else ToolRegistry()
    files = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    handlers = {
        "builtins": builtins if builtins is not None else builtin_handlers(),
        "internal": internal if internal is not None else HandlerRegistry("internal"),
    }
    tools: list[Tool] = []
    issues: list[ConfigIssue] = []
    origin: dict[str, str] = {}
    for path in files:
        for tool in _load_file(Path(path), issues, handlers, allow_private_network):
            first = origin.get(tool.name) or (
                "the registry" if tool.name in registry else None
            )  # fmt: skip
            if first is not None:
                issues.append(ConfigIssue(
                    file=str(path), index=None, tool=tool.name,
                    message=f"tool {tool.name!r} is already defined in {first}; the first stays",
                ))  # fmt: skip
                continue
            origin[tool.name] = str(path)
            tools.append(tool)
    return _register(registry, tools, issues, strict)


def _load_file(
    path: Path,
    issues: list[ConfigIssue],
    handlers: dict[str, HandlerRegistry],
    allow_private: bool | Iterable[str],
) -> list[Tool]:
    try:
        definitions = read_definitions(path)
    except FileProblem as exc:
        issues.append(ConfigIssue(file=str(path), index=None, tool=None, message=str(exc)))
        return []
    out = []
    for index, definition in enumerate(definitions, start=1):
        try:
            out.append(
                build_tool(
                    definition, builtins=handlers["builtins"], internal=handlers["internal"],
                    allow_private_network=allow_private,
                )
            )  # fmt: skip
        except ToolDefinitionError as exc:
            issues.append(
                ConfigIssue(
                    file=str(path), index=index, tool=_name_of(definition, exc),
                    message=exc.message,
                )
            )  # fmt: skip
    return out


def _name_of(definition: Any, exc: ToolDefinitionError) -> str | None:
    name = definition.get("name") if isinstance(definition, dict) else None
    return name if isinstance(name, str) and name else None


def _register(
    registry: ToolRegistry, tools: list[Tool], issues: list[ConfigIssue], strict: bool
) -> LoadReport:
    if strict:
        if issues:
            raise ConfigError(issues)
        registry.register_many(tools)
        return LoadReport(registry=registry, tools=tuple(tools))
    registered = []
    for tool in tools:
        try:
            registry.register(tool)
        except DuplicateToolError as exc:  # registered concurrently since the check
            issues.append(ConfigIssue(file="<registry>", index=None, tool=tool.name,
                                      message=exc.message))  # fmt: skip
            continue
        registered.append(tool)
    for issue in issues:
        logger.error("invalid tool configuration: %s", issue)
    return LoadReport(registry=registry, tools=tuple(registered), issues=tuple(issues))
