"""Which tools to defer: `Defer`, and `resolve` to the set of deferred names."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from forge.core.errors import ToolNotFoundError
from forge.tools.deferral._usage import most_used, usage_counts
from forge.tools.values.categories import ToolCategory
from forge.tools.values.metadata import string_tuple

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool

__all__ = ["Defer", "DeferSpec", "Searchable", "coerce", "resolve"]


class Searchable(Protocol):
    """What a deferral reads of a registry or view."""

    def __iter__(self) -> Any: ...
    def names(self) -> list[str]: ...
    def search(self, query: str, *, limit: int = 10) -> list[Tool]: ...


@dataclass(frozen=True, kw_only=True, slots=True)
class Defer:
    """Which tools an export defers: those that pass every test given, minus those kept.

    Build one with the class methods (``Defer.all()``, ``Defer.named("a", "b")``,
    ``Defer.tagged("admin")``, ``Defer.in_category("web")``, ``Defer.where(pred)``,
    ``Defer.all_but(5, query="...")``, ``Defer.all_but_most_used(5, usage=metrics)``) or
    with the fields directly to combine them.
    """

    names: frozenset[str] | None = None
    """Defer only tools with these names (every name must be a tool)."""
    tags: tuple[str, ...] = ()
    """Defer only tools carrying all these tags."""
    category: ToolCategory | None = None
    """Defer only tools of this category."""
    predicate: Callable[[Tool], bool] | None = None
    """Defer only tools for which this returns true."""
    keep: int = 0
    """Keep loaded the tools ``registry.search(query, limit=keep)`` finds (at most this many;
    a search finds fewer when fewer tools are relevant)."""
    query: str = ""
    """The text `keep` ranks the tools against."""
    keep_used: int = 0
    """Keep loaded the (at most) this many tools `usage` counts most calls of."""
    usage: Any = None
    """How often each tool was called, for `keep_used`: an `ExecutionMetrics`, a
    `MetricsSnapshot` or a mapping of tool name to calls."""

    def __post_init__(self) -> None:
        if self.names is not None:  # any iterable of names (one string: one name)
            object.__setattr__(self, "names", frozenset(string_tuple(self.names, "names")))
        object.__setattr__(self, "tags", string_tuple(self.tags, "tags"))
        if self.category is not None:
            object.__setattr__(self, "category", ToolCategory.parse(self.category))
        if isinstance(self.keep, bool) or not isinstance(self.keep, int) or self.keep < 0:
            raise ValueError(f"Defer.keep must be a whole number >= 0, got {self.keep!r}")
        if (isinstance(self.keep_used, bool) or not isinstance(self.keep_used, int)
                or self.keep_used < 0):  # fmt: skip
            raise ValueError(f"Defer.keep_used must be a whole number >= 0, got {self.keep_used!r}")
        if self.keep_used:
            if self.usage is None:
                raise ValueError(
                    f"Defer(keep_used={self.keep_used}) needs the usage to rank tools by: "
                    "Defer.all_but_most_used(n, usage=executor.metrics)"
                )
            usage_counts(self.usage)  # a bad kind fails here, not at export time
        if self.keep and not (isinstance(self.query, str) and self.query.strip()):
            raise ValueError(
                f"Defer(keep={self.keep}) needs the query to rank tools against: "
                "Defer.all_but(n, query='what the user asked')"
            )

    @classmethod
    def all(cls) -> Defer:
        """Defer every tool."""
        return cls()

    @classmethod
    def named(cls, *names: str) -> Defer:
        """Defer the tools with these names."""
        return cls(names=frozenset(string_tuple(names, "names")))

    @classmethod
    def tagged(cls, *tags: str) -> Defer:
        """Defer the tools carrying all these tags."""
        return cls(tags=string_tuple(tags, "tags"))

    @classmethod
    def in_category(cls, category: ToolCategory | str) -> Defer:
        """Defer the tools of one category (aliases such as ``file-system`` accepted)."""
        return cls(category=ToolCategory.parse(category))

    @classmethod
    def where(cls, predicate: Callable[[Tool], bool]) -> Defer:
        """Defer the tools for which ``predicate(tool)`` is true."""
        if not callable(predicate):
            raise TypeError(
                f"Defer.where takes a function of a Tool, got {type(predicate).__name__}"
            )
        return cls(predicate=predicate)

    @classmethod
    def all_but(cls, keep: int, *, query: str) -> Defer:
        """Defer every tool but the (at most) ``keep`` that ``registry.search(query)`` finds."""
        return cls(keep=keep, query=query)

    @classmethod
    def all_but_most_used(cls, keep: int, *, usage: Any) -> Defer:
        """Defer every tool but the (at most) ``keep`` most called in ``usage`` (an
        `ExecutionMetrics`, a `MetricsSnapshot` or a mapping of tool name to calls)."""
        return cls(keep_used=keep, usage=usage)

    def select(self, tools: Searchable) -> frozenset[str]:
        """The names of the tools this defers among ``tools``.

        Raises:
            ToolNotFoundError: A name in `names` is no tool's.
        """
        if self.names is not None:
            known = set(tools.names())
            missing = sorted(self.names - known)
            if missing:
                import difflib

                close = difflib.get_close_matches(missing[0], list(known), n=3)
                raise ToolNotFoundError(missing[0], suggestions=close)
        need = frozenset(self.tags)
        chosen = {
            t.name for t in tools
            if (self.names is None or t.name in self.names)
            and need.issubset(t.metadata.tags)
            and (self.category is None or t.metadata.category is self.category)
            and (self.predicate is None or bool(self.predicate(t)))
        }  # fmt: skip
        if self.keep:
            chosen -= {t.name for t in tools.search(self.query, limit=self.keep)}
        if self.keep_used:
            known = set(tools.names())
            chosen -= set(most_used(self.usage, self.keep_used, known.__contains__))
        return frozenset(chosen)


#: What ``defer=`` takes: a `Defer`, ``True`` (every tool), tool names, or a predicate.
DeferSpec: TypeAlias = "Defer | bool | Iterable[str] | Callable[[Tool], bool]"


def resolve(spec: Any, tools: Searchable) -> frozenset[str]:
    """The names ``spec`` (see `DeferSpec`) defers among ``tools``.

    Raises:
        TypeError: ``spec`` is none of the accepted kinds.
        ToolNotFoundError: A name given is no tool's.
    """
    return coerce(spec).select(tools)


def coerce(spec: Any) -> Defer:
    """``spec`` as a `Defer` (see `DeferSpec`).

    Raises:
        TypeError: ``spec`` is none of the accepted kinds.
    """
    if isinstance(spec, Defer):
        return spec
    if spec is True:
        return Defer.all()
    if spec is False:
        return Defer(names=frozenset())
    if isinstance(spec, str):
        return Defer.named(spec)
    if callable(spec):
        return Defer.where(spec)
    if isinstance(spec, Iterable):
        return Defer.named(*spec)
    raise TypeError(
        f"defer= takes a Defer, True, tool names or a function of a Tool, got "
        f"{type(spec).__name__} {spec!r:.60}"
    )
