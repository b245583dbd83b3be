"""A deferred session's options, in five groups checked when they are made.

`DeferredSession` takes these value objects; ``registry.deferred(provider, **keywords)``
(and `DeferredSession.of`) build them from the flat keywords of `SessionKeywords`,
so each group's rules live in its constructor and the keyword list in one place.
Errors name the keyword, as it is spelt in ``registry.deferred``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypedDict

if TYPE_CHECKING:
    from forge.tools.deferral._couse import CoUse, CoUseTrail
    from forge.tools.deferral._toolkits import GroupSpec
    from forge.tools.deferral._usage import Usage
    from forge.tools.execution.executor import ToolExecutor
    from forge.tools.values.context import ExecutionContext

__all__ = ["ActiveSet", "Inactive", "SearchTool", "SessionKeywords", "Together", "Toolkits",
           "UsagePins"]  # fmt: skip

#: What a call to an existing tool that is not active does: run it (and reveal it), or
#: answer that the model must search first.
Inactive = Literal["run", "refuse"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ActiveSet:
    """Which tools the model sees: the pinned ones and the most recently revealed."""

    pinned: Iterable[str] = ()
    """Tools always active (each must be a tool's; one string is one name); kept as a tuple."""
    max_active: int = 16
    """The most revealed tools kept active at once (least recently used go)."""
    max_tokens: int | None = None
    """The most tokens `DeferredSession.tools` may send, by `estimate_tokens`; ``None``: any."""
    inactive: Inactive = "run"
    """``run`` or ``refuse`` a call to an existing tool that is not active."""

    def __post_init__(self) -> None:
        pinned: Any = self.pinned
        listed = (pinned,) if isinstance(pinned, str) else tuple(pinned)
        for name in listed:
            if not isinstance(name, str):
                raise TypeError(f"pinned must hold tool names (strings), got {type(name).__name__}")
        object.__setattr__(self, "pinned", tuple(dict.fromkeys(listed)))
        _at_least(1, max_active=self.max_active)
        if self.max_tokens is not None:
            _at_least(1, max_tokens=self.max_tokens)
        if self.inactive not in ("run", "refuse"):
            raise ValueError(f"inactive must be 'run' or 'refuse', got {self.inactive!r}")


@dataclass(frozen=True, kw_only=True, slots=True)
class SearchTool:
    """The search tool the model calls to reveal tools."""

    search_name: str = "search_tools"
    """Its name (it must be no tool's in the session's source)."""
    search_limit: int = 5
    """The most tools one search reveals."""

    def __post_init__(self) -> None:
        _at_least(1, search_limit=self.search_limit)


@dataclass(frozen=True, kw_only=True, slots=True)
class Toolkits:
    """Which tools belong together, so that a search reveals a found tool's siblings."""

    groups: GroupSpec | None = None
    """A separator such as ``"__"`` (a gateway's server prefix), a mapping of tool name to
    group, or a function of a `Tool` returning its group or ``None``."""
    siblings: int = 0
    """How many other tools of its best matches' toolkits a search also reveals."""
    toolkits: int = 1
    """How many toolkits (those of the best matches, best first) one search opens."""

    def __post_init__(self) -> None:
        _at_least(1, toolkits=self.toolkits)
        _at_least(0, siblings=self.siblings)
        if self.siblings and self.groups is None:
            raise ValueError(
                f"siblings={self.siblings} needs groups= to know each tool's toolkit: a "
                "separator such as '__' (a gateway's server prefix), a mapping or a function"
            )


@dataclass(frozen=True, kw_only=True, slots=True)
class UsagePins:
    """The most-called tools, pinned from the start."""

    pin_used: int = 0
    """Pin (at most) this many of the tools ``usage`` counts most calls of."""
    usage: Usage | None = field(default=None, compare=False)
    """An `ExecutionMetrics`, a `MetricsSnapshot` or a mapping of name to calls; by
    default the session's executor's metrics, if it keeps any."""

    def __post_init__(self) -> None:
        _at_least(0, pin_used=self.pin_used)


@dataclass(frozen=True, kw_only=True, slots=True)
class Together:
    """Tools used together before (a `CoUse`): a search also reveals a found tool's partners.

    Off without a store: there is nothing to learn from, and a store made behind the
    caller's back would mix unrelated registries. With one, a partner must have been used
    with the tool ``min_co_use`` times (once may be chance: two unrelated calls a few calls
    apart), so a new store reveals nothing until a pair repeats.
    """

    co_use: CoUse | None = field(default=None, compare=False)
    """The pair counts this session feeds with the calls it runs and reads when it searches
    (share one between the sessions of a process)."""
    partners: int = 2
    """How many partners of each of a search's best matches it also reveals."""
    min_co_use: int = 2
    """How many times a partner must have been used with the tool."""

    def __post_init__(self) -> None:
        from forge.tools.deferral._couse import CoUse

        if self.co_use is not None and not isinstance(self.co_use, CoUse):
            raise TypeError(
                f"co_use= takes a CoUse (shared by the sessions that learn from each other) "
                f"or None, got {type(self.co_use).__name__}"
            )
        _at_least(0, partners=self.partners)
        _at_least(1, min_co_use=self.min_co_use)

    def trail(self) -> CoUseTrail | None:
        """A new session's record of its recent calls into ``co_use`` (``None``: no store)."""
        return self.co_use.trail() if self.co_use is not None else None


class SessionKeywords(TypedDict, total=False):
    """The keywords of ``registry.deferred(provider, ...)`` and `DeferredSession.of`."""

    pinned: Iterable[str]
    max_active: int
    max_tokens: int | None
    inactive: Inactive
    search_name: str
    search_limit: int
    groups: GroupSpec | None
    siblings: int
    toolkits: int
    usage: Usage | None
    pin_used: int
    co_use: CoUse | None
    partners: int
    min_co_use: int
    executor: ToolExecutor | None
    context: ExecutionContext | None
    strict: bool
    on_change: Callable[[list[str]], None] | None
    native: bool


#: Which keywords make which group (the rest are `DeferredSession`'s own).
GROUPS: dict[str, tuple[type[Any], tuple[str, ...]]] = {
    "active": (ActiveSet, ("pinned", "max_active", "max_tokens", "inactive")),
    "search": (SearchTool, ("search_name", "search_limit")),
    "toolkits": (Toolkits, ("groups", "siblings", "toolkits")),
    "pins": (UsagePins, ("usage", "pin_used")),
    "together": (Together, ("co_use", "partners", "min_co_use")),
}


def grouped(keywords: dict[str, Any]) -> dict[str, Any]:
    """The flat keywords as `DeferredSession`'s parameters: each group as its value object.

    Raises:
        TypeError: A keyword is none of `SessionKeywords`.
    """
    out = dict(keywords)
    for parameter, (kind, names) in GROUPS.items():
        given = {name: out.pop(name) for name in names if name in out}
        if given:
            out[parameter] = kind(**given)
    return out


def _at_least(least: int, **option: Any) -> None:
    ((label, value),) = option.items()
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{label} must be a whole number >= {least}, got {value!r}")
