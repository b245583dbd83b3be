"""Loading tool configuration files into a registry."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from forge.core.errors import ConfigError, ConfigWarning, DuplicateToolError, ToolDefinitionError
from forge.core.logging import get_logger
from forge.tools.config._files import FileMissing, FileProblem, read_definitions
from forge.tools.config._limits import definition_problem
from forge.tools.config.definition import build_tool
from forge.tools.config.handlers import HandlerRegistry, builtin_handlers
from forge.tools.model.tool import Tool
from forge.tools.registry import ToolRegistry

__all__ = ["ConfigIssue", "IssueKind", "LoadReport", "load_tools"]

logger = get_logger("tools.config")
PathLike = str | os.PathLike[str]


IssueKind = Literal["missing", "unreadable", "invalid", "duplicate"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigIssue:
    """One problem `load_tools` found: an unusable file or a skipped definition, and why."""

    file: str
    """The file the problem is in."""
    index: int | None
    """The definition's position in its file (1-based); ``None`` for the file itself."""
    tool: str | None
    """The tool's name, when the definition has a usable one."""
    message: str
    """What is wrong and how to fix it (every problem of the definition, joined by ``"; "``)."""
    kind: IssueKind = "invalid"
    """``missing``: the file does not exist. ``unreadable``: it cannot be read or parsed,
    or holds no list of definitions (none of its tools loaded). ``invalid``: one definition
    is invalid. ``duplicate``: a valid definition whose name is already taken (the first
    one stays)."""

    @property
    def where(self) -> str:
        """The file, and the tool (or the definition's position) the problem is about."""
        if self.tool:
            at = f" (definition #{self.index})" if self.index is not None else ""
            return f"{self.file}: tool {self.tool!r}{at}"
        if self.index is not None:
            return f"{self.file}: definition #{self.index}"
        return self.file

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadReport:
    """What `load_tools` registered and what it skipped."""

    registry: ToolRegistry
    """The registry the tools were added to."""
    tools: tuple[Tool, ...] = ()
    """The tools registered, in file order."""
    issues: tuple[ConfigIssue, ...] = field(default=())
    """Every problem found, in file order; each skipped definition or file is one issue
    (also logged as an error, and listed in the `ConfigWarning` emitted)."""

    @property
    def ok(self) -> bool:
        """Whether every file was read and every definition registered."""
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

    Every valid definition is registered. Invalid definitions, unreadable files
    and duplicate names (the first definition stays) are skipped; each is logged
    as an error with its file, tool name and reason, listed in the report's
    ``issues``, and all of them are named in one `ConfigWarning`, so a skipped
    tool shows even where logging is not configured. Handle the report and
    filter the warning, or pass ``strict=True`` to make any problem fatal.

    Args:
        paths: One file or several, read in order.
        registry: Where to register (default: a new `ToolRegistry`).
        strict: Raise `ConfigError` listing every problem, and register nothing,
            if any definition or file is invalid (for CI).
        builtins: Handlers ``builtin`` definitions may name (default: `builtin_handlers()`).
        internal: Handlers ``internal`` definitions may name (default: none).
        allow_private_network: Let HTTP tools reach private, loopback and
            link-local addresses: ``True`` for all, or the addresses and
            networks allowed (``["127.0.0.1", "10.0.0.0/8"]``).

    Raises:
        ConfigError: In strict mode, listing every problem.

    Warns:
        ConfigWarning: Without ``strict``, when anything was skipped.
    """
    registry = registry if registry is not None else ToolRegistry()
    files = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    handlers = {
        "builtins": builtins if builtins is not None else builtin_handlers(),
        "internal": internal if internal is not None else HandlerRegistry("internal"),
    }
    found, issues = _collect(files, registry, handlers, allow_private_network)
    if strict:
        if issues:
            raise ConfigError(issues)
        registry.register_many([item.tool for item in found])
        return LoadReport(registry=registry, tools=tuple(item.tool for item in found))
    report = _register(registry, found, issues)
    if report.issues:
        warnings.warn(ConfigWarning(report.issues), stacklevel=2)
    return report


@dataclass(frozen=True, slots=True)
class _Found:
    file: str
    index: int
    tool: Tool

    def duplicate(self, message: str) -> ConfigIssue:
        return ConfigIssue(
            file=self.file, index=self.index, tool=self.tool.name, message=message,
            kind="duplicate",
        )  # fmt: skip


def _collect(
    files: list[PathLike],
    registry: ToolRegistry,
    handlers: dict[str, HandlerRegistry],
    allow_private: bool | Iterable[str],
) -> tuple[list[_Found], list[ConfigIssue]]:
    """The valid definitions with unique names, and every problem in file order."""
    found: list[_Found] = []
    issues: list[ConfigIssue] = []
    origin: dict[str, str] = {}
    for path in files:
        start = len(issues)
        for item in _load_file(Path(path), issues, handlers, allow_private):
            name = item.tool.name
            first = origin.get(name) or ("the registry" if name in registry else None)
            if first is not None:
                issues.append(
                    item.duplicate(f"a tool with this name is already defined in {first}")
                )
                continue
            origin[name] = f"{item.file} (definition #{item.index})"
            found.append(item)
        issues[start:] = sorted(issues[start:], key=lambda issue: issue.index or 0)
    return found, issues


def _load_file(
    path: Path,
    issues: list[ConfigIssue],
    handlers: dict[str, HandlerRegistry],
    allow_private: bool | Iterable[str],
) -> list[_Found]:
    try:
        definitions = read_definitions(path)
    except FileProblem as exc:
        kind: IssueKind = "missing" if isinstance(exc, FileMissing) else "unreadable"
        issues.append(
            ConfigIssue(file=str(path), index=None, tool=None, message=str(exc), kind=kind)
        )
        return []
    out = []
    for index, definition in enumerate(definitions, start=1):
        problem = definition_problem(definition)
        if problem is not None:
            issues.append(
                ConfigIssue(file=str(path), index=index, tool=_name_of(definition), message=problem)
            )
            continue
        try:
            tool = build_tool(
                definition, builtins=handlers["builtins"], internal=handlers["internal"],
                allow_private_network=allow_private,
            )  # fmt: skip
        except ToolDefinitionError as exc:
            issues.append(
                ConfigIssue(
                    file=str(path), index=index, tool=_name_of(definition),
                    message=exc.message,
                )
            )  # fmt: skip
            continue
        out.append(_Found(str(path), index, tool))
    return out


def _name_of(definition: Any) -> str | None:
    name = definition.get("name") if isinstance(definition, dict) else None
    return name if isinstance(name, str) and name else None


def _register(registry: ToolRegistry, found: list[_Found], issues: list[ConfigIssue]) -> LoadReport:
    registered = []
    for item in found:
        try:
            registry.register(item.tool)
        except DuplicateToolError:  # registered concurrently since the check
            issues.append(
                item.duplicate("a tool with this name is already defined in the registry")
            )
            continue
        registered.append(item.tool)
    for issue in issues:
        logger.error("invalid tool configuration, skipped: %s", issue)
    return LoadReport(registry=registry, tools=tuple(registered), issues=tuple(issues))
