"""What a conversion changed: `SchemaChange` and `ConversionReport` (PV-3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["ChangeAction", "ConversionReport", "SchemaChange"]

ChangeAction = Literal["inlined", "rewritten", "moved_to_description", "removed", "added", "note"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SchemaChange:
    """One change a provider's schema compiler made."""

    path: str
    """Where in the canonical schema (a JSON pointer; ``""`` is the root)."""
    keyword: str
    """The keyword that was changed (``$ref``, ``default``, ``anyOf``, ...)."""
    action: ChangeAction
    """What was done to it."""
    detail: str
    """A sentence saying what and why."""

    def __str__(self) -> str:
        return f"{self.path or '/'}: {self.keyword} {self.action}: {self.detail}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ConversionReport:
    """Every change made converting one tool to one provider's format."""

    tool: str
    """The tool's name."""
    provider: str
    """The target provider."""
    strict: bool
    """Whether strict mode was asked for."""
    changes: tuple[SchemaChange, ...] = ()
    """The changes, in the order they were made."""

    @property
    def lossless(self) -> bool:
        """Whether the provider's schema says exactly what the canonical one says."""
        return not any(c.action in ("moved_to_description", "removed") for c in self.changes)

    def __str__(self) -> str:
        head = f"{self.tool} -> {self.provider}{' (strict)' if self.strict else ''}"
        if not self.changes:
            return f"{head}: unchanged"
        return head + ":\n" + "\n".join(f"  {c}" for c in self.changes)
