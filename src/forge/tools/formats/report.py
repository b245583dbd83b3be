"""What a conversion changed: `SchemaChange`, `ConversionReport` and `Conversion`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["ChangeAction", "Conversion", "ConversionReport", "Errors", "SchemaChange"]

ChangeAction = Literal[
    "inlined", "rewritten", "moved_to_description", "removed", "added", "note",
    "shortened", "fallback", "excluded", "over_limit",
]  # fmt: skip
#: What a conversion does with what a provider cannot take: ``report`` converts
#: every tool it can (shortening, falling back, leaving out the rest; tools past
#: a provider's count are kept with a note) and says so in the reports; ``raise``
#: raises `SchemaConversionError` at the first such tool.
Errors = Literal["report", "raise"]

#: Actions after which the provider's definition says less than the canonical one.
LOSSY: frozenset[str] = frozenset({"moved_to_description", "removed", "shortened", "excluded"})
#: Actions a person should look at (shown by ``forge-tools validate``).
NOTABLE: frozenset[str] = LOSSY | {"fallback", "over_limit"}
#: What ``errors="raise"`` refuses: a description cut, strict mode dropped, a tool left out,
#: more tools than one request takes (``export`` warns about these on stderr).
URGENT: frozenset[str] = frozenset({"shortened", "fallback", "excluded", "over_limit"})


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

    def to_dict(self) -> dict[str, str]:
        """Return the change as a JSON-ready dict."""
        return {"path": self.path, "keyword": self.keyword, "action": self.action,
                "detail": self.detail}  # fmt: skip


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
        return not any(c.action in LOSSY for c in self.changes)

    @property
    def excluded(self) -> bool:
        """Whether the tool was left out of the export (the last change says why)."""
        return any(c.action == "excluded" for c in self.changes)

    @property
    def notable(self) -> tuple[SchemaChange, ...]:
        """The changes a person should look at: losses, fallbacks, shortening, exclusion."""
        return tuple(c for c in self.changes if c.action in NOTABLE)

    def to_dict(self) -> dict[str, Any]:
        """Return the report as a JSON-ready dict."""
        return {"tool": self.tool, "provider": self.provider, "strict": self.strict,
                "exported": not self.excluded, "lossless": self.lossless,
                "changes": [c.to_dict() for c in self.changes]}  # fmt: skip

    def __str__(self) -> str:
        head = f"{self.tool} -> {self.provider}{' (strict)' if self.strict else ''}"
        if not self.changes:
            return f"{head}: unchanged"
        return head + ":\n" + "\n".join(f"  {c}" for c in self.changes)


@dataclass(frozen=True, slots=True, kw_only=True)
class Conversion:
    """A whole export: the definitions to send and one report per tool given.

    ``definitions`` is what `forge.tools.formats.to_provider` returns; a tool
    whose report is `ConversionReport.excluded` is not in it.
    """

    provider: str
    """The target provider."""
    strict: bool
    """Whether strict mode was asked for."""
    definitions: Sequence[Any]
    """The provider's tool definitions (read-only), in the tools' order."""
    tools: tuple[str, ...]
    """The names of the tools given, in order, exported or not."""
    changes: tuple[tuple[SchemaChange, ...], ...]
    """Each tool's changes, in the order of `tools` (`reports` puts them together)."""

    @property
    def reports(self) -> tuple[ConversionReport, ...]:
        """One report per tool given, in order, exported or not."""
        return tuple(
            ConversionReport(tool=t, provider=self.provider, strict=self.strict, changes=c)
            for t, c in zip(self.tools, self.changes, strict=True)
        )

    @property
    def excluded(self) -> tuple[ConversionReport, ...]:
        """The reports of the tools left out."""
        return tuple(r for r in self.reports if r.excluded)

    def report(self, tool: str) -> ConversionReport:
        """Return the report of the tool called ``tool``.

        Raises:
            KeyError: No tool of that name was converted.
        """
        for found in self.reports:
            if found.tool == tool:
                return found
        raise KeyError(tool)

    def __str__(self) -> str:
        reports = self.reports
        shown = [str(r) for r in reports if r.changes]
        left = sum(1 for r in reports if r.excluded)
        head = (f"{len(reports) - left} of {len(reports)} tool(s) converted for "
                f"{self.provider}{' (strict)' if self.strict else ''}")  # fmt: skip
        return "\n".join([head, *shown])
