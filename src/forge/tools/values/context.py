"""`ExecutionContext`: what a running tool may know about its call (CX-1)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

__all__ = ["ExecutionContext"]

PermissionPolicy: TypeAlias = Callable[..., Any]
"""A `forge.tools.execution.permissions.PermissionPolicy`.

Typed loosely here: a policy's request (`forge.tools.execution.permissions.PermissionRequest`)
holds a context and a tool, so the precise type lives in a layer above this one.
"""
Approver: TypeAlias = Callable[..., Any]
"""A `forge.tools.execution.permissions.Approver` (typed loosely, as `PermissionPolicy`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutionContext:
    """Context passed to tools that ask for it (a parameter annotated with this type).

    It is never part of a tool's parameters schema, so the model never sees it.

    ``timeout``, ``dry_run``, ``permissions`` and ``approve`` are not data for
    tools but per-call overrides of the engine's own settings (`ToolExecutor`'s
    ``dry_run``, ``permissions`` and ``approve``, and the timeout of its default
    ``context``) for the calls made with this context, one session's say. They
    are not a second mechanism: the engine applies them in the same steps. Each
    field says how it combines with the engine's setting.
    """

    working_dir: str = field(default_factory=os.getcwd)
    """The directory relative paths are resolved against."""
    session_id: str | None = None
    """The conversation or session the call belongs to."""
    dry_run: bool = False
    """Make these calls dry runs (the engine's ``dry_run``, per call): validate and check
    permissions, but do not run the handler. ``False`` keeps the engine's setting."""
    timeout: float = 120
    """Seconds a call may take when neither the call nor the tool sets a timeout."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Application data for tools."""
    permissions: PermissionPolicy | None = None
    """A policy for these calls, checked as well as the engine's ``permissions``
    (the stricter answer wins, so it can only restrict)."""
    approve: Approver | None = None
    """Answers the policies' ``ask`` for these calls, instead of the engine's ``approve``."""

    def __post_init__(self) -> None:
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, int | float):
            raise TypeError(f"timeout must be a number of seconds, got {self.timeout!r}")
        if not self.timeout > 0:
            raise ValueError(f"timeout must be positive, got {self.timeout!r}")

    def replace(self, **changes: Any) -> ExecutionContext:
        """Return a copy with some fields changed."""
        return dataclasses.replace(self, **changes)
