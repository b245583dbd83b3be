"""Permissions (EX-9): may this call run? Allow, deny with a reason, or ask.

A policy is any callable ``policy(request) -> Decision`` (or ``bool``; it may
be ``async``). It sees the tool with its category and annotations, the
validated arguments and the context. The executor checks its own policy and
the context's (``ExecutionContext.permissions``); the stricter answer wins
(deny over ask over allow). ``ask`` goes to an approver,
``approve(request, decision) -> bool | Decision`` (sync or async): the
context's approver if it has one, else the executor's. With no approver,
``ask`` is a denial. A denied call returns a ``denied`` failure and never
reaches the handler. A policy or approver that raises denies (fail closed).

`RuleBasedPolicy` covers the common cases with allow, deny and ask lists over
tool names (glob patterns), categories and annotations.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from forge.core.logging import get_logger
from forge.tools.values.categories import ToolCategory

if TYPE_CHECKING:
    from forge.tools.execution._drive import Waiter
    from forge.tools.model.tool import Tool
    from forge.tools.values.context import ExecutionContext

__all__ = [
    "Action",
    "Approver",
    "Decision",
    "Match",
    "PermissionPolicy",
    "PermissionRequest",
    "RuleBasedPolicy",
    "authorize",
    "authorize_sync",
]

logger = get_logger("tools.permissions")

Action = Literal["allow", "deny", "ask"]
_STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}


@dataclass(frozen=True, slots=True)
class Decision:
    """A policy's answer: ``allow``, ``deny`` or ``ask``, with an optional reason."""

    action: Action
    """What to do with the call."""
    reason: str | None = None
    """Why; shown to the model when the call is denied."""

    def __post_init__(self) -> None:
        if self.action not in _STRICTNESS:
            raise ValueError(f"a decision is 'allow', 'deny' or 'ask', got {self.action!r}")

    @classmethod
    def allow(cls, reason: str | None = None) -> Decision:
        """Let the call run."""
        return cls("allow", reason)

    @classmethod
    def deny(cls, reason: str | None = None) -> Decision:
        """Refuse the call; ``reason`` is shown to the model."""
        return cls("deny", reason)

    @classmethod
    def ask(cls, reason: str | None = None) -> Decision:
        """Ask the approver (a person, usually); ``reason`` says what needs approving."""
        return cls("ask", reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionRequest:
    """What a policy and an approver see of one call."""

    tool: Tool
    """The tool (its ``category`` and ``annotations`` are what rules usually look at)."""
    arguments: Mapping[str, Any]
    """The validated arguments."""
    context: ExecutionContext
    """The call's execution context."""
    call_id: str | None = None
    """The id of the tool call, if any."""

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.tool.name


PolicyAnswer: TypeAlias = "Decision | bool"
PermissionPolicy: TypeAlias = Callable[
    [PermissionRequest], "PolicyAnswer | Awaitable[PolicyAnswer]"
]
"""``policy(request) -> Decision | bool`` (``True`` allows, ``False`` denies); may be async."""
Approver: TypeAlias = Callable[
    [PermissionRequest, Decision], "PolicyAnswer | Awaitable[PolicyAnswer]"
]
"""``approve(request, ask_decision) -> bool | Decision``; may be async."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Match:
    """Which tools a rule applies to; every criterion given must hold.

    Args:
        names: Glob patterns (``"fs_*"``); any may match.
        categories: Categories (or their names); any may match.
        annotations: Annotation values that must all hold (``{"destructive": True}``).
        reason: Shown to the model when this rule denies a call.
    """

    names: tuple[str, ...] = ()
    categories: tuple[ToolCategory, ...] = ()
    annotations: Mapping[str, bool] = field(default_factory=dict)
    reason: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", _tuple(self.names))
        cats = tuple(ToolCategory.parse(c) for c in _tuple(self.categories))
        object.__setattr__(self, "categories", cats)
        for key in self.annotations:
            if key not in ("read_only", "destructive", "idempotent", "open_world"):
                raise ValueError(f"unknown annotation {key!r} in a permission rule")

    def matches(self, tool: Tool) -> bool:
        """Whether the rule applies to ``tool``."""
        if self.names and not any(fnmatch.fnmatchcase(tool.name, p) for p in self.names):
            return False
        if self.categories and tool.category not in self.categories:
            return False
        notes = tool.annotations
        return all(getattr(notes, k) == v for k, v in self.annotations.items())

    def describe(self) -> str:
        """A short text naming the criteria (used in denial reasons)."""
        parts = []
        if self.names:
            parts.append("names " + ", ".join(self.names))
        if self.categories:
            parts.append("categories " + ", ".join(str(c) for c in self.categories))
        if self.annotations:
            parts.append(", ".join(f"{k}={v}" for k, v in self.annotations.items()))
        return "; ".join(parts) or "every tool"


def _tuple(value: Any) -> tuple[Any, ...]:
    return (value,) if isinstance(value, str | ToolCategory) else tuple(value)


RuleSpec: TypeAlias = "str | ToolCategory | Mapping[str, bool] | Match"


def _as_match(spec: RuleSpec) -> Match:
    if isinstance(spec, Match):
        return spec
    if isinstance(spec, ToolCategory):
        return Match(categories=(spec,))
    if isinstance(spec, str):
        return Match(names=(spec,))
    if isinstance(spec, Mapping):
        return Match(annotations=dict(spec))
    raise TypeError(
        "a permission rule is a name pattern, a ToolCategory, an annotations mapping or a "
        f"Match, got {type(spec).__name__}"
    )


class RuleBasedPolicy:
    """Allow, deny and ask lists over names, categories and annotations.

    The strictest matching list wins (deny, then ask, then allow); a tool no
    rule matches gets ``default``. Each list holds name glob patterns
    (strings), `ToolCategory` values, annotation mappings such as
    ``{"destructive": True}``, or `Match` objects combining criteria::

        RuleBasedPolicy(
            deny=["shell_*"],
            ask=[{"destructive": True}, ToolCategory.EXECUTION],
            default="allow",
        )
    """

    def __init__(
        self,
        *,
        allow: Iterable[RuleSpec] = (),
        deny: Iterable[RuleSpec] = (),
        ask: Iterable[RuleSpec] = (),
        default: Action = "allow",
    ) -> None:
        if default not in _STRICTNESS:
            raise ValueError(f"default must be 'allow', 'deny' or 'ask', got {default!r}")
        self.deny = tuple(_as_match(s) for s in _tuple(deny))
        self.ask = tuple(_as_match(s) for s in _tuple(ask))
        self.allow = tuple(_as_match(s) for s in _tuple(allow))
        self.default: Action = default

    def __call__(self, request: PermissionRequest) -> Decision:
        """Decide for one call."""
        tool = request.tool
        for action, rules in (("deny", self.deny), ("ask", self.ask), ("allow", self.allow)):
            for rule in rules:
                if rule.matches(tool):
                    reason = rule.reason or f"the {action} rule for {rule.describe()} matches"
                    return Decision(action, reason)  # type: ignore[arg-type]
        return Decision(self.default, f"no rule matches; the default is {self.default}")

    def __repr__(self) -> str:
        return (
            f"RuleBasedPolicy(deny={len(self.deny)}, ask={len(self.ask)}, "
            f"allow={len(self.allow)}, default={self.default!r})"
        )


# -- evaluation -------------------------------------------------------------------------


def _coerce(answer: Any, who: str) -> Decision:
    if isinstance(answer, Decision):
        return answer
    if answer is True:
        return Decision.allow()
    if answer is False:
        return Decision.deny()
    raise TypeError(f"{who} must return a Decision or a bool, got {type(answer).__name__}")


def _stricter(a: Decision | None, b: Decision) -> Decision:
    return b if a is None or _STRICTNESS[b.action] > _STRICTNESS[a.action] else a


_NO_APPROVER = Decision.deny("this call needs approval and no approver is configured")
_FAILED = "the permission check failed"


def _steps(
    request: PermissionRequest, policies: Iterable[PermissionPolicy], approver: Approver | None
) -> Generator[Any, Any, Decision]:
    """The decision procedure; it yields each awaitable answer for the driver to resolve."""
    import inspect

    decision: Decision | None = None
    for policy in policies:
        answer = policy(request)
        if inspect.isawaitable(answer):
            answer = yield answer
        decision = _stricter(decision, _coerce(answer, "a permission policy"))
        if decision.action == "deny":
            return decision
    if decision is None or decision.action == "allow":
        return decision or Decision.allow()
    if approver is None:
        return _NO_APPROVER
    answer = approver(request, decision)
    if inspect.isawaitable(answer):
        answer = yield answer
    return _approved(_coerce(answer, "an approver"), decision)


async def authorize(
    request: PermissionRequest, policies: Iterable[PermissionPolicy], approver: Approver | None
) -> Decision:
    """Combine the policies' answers (the strictest wins) and resolve ``ask``."""
    from forge.tools.execution._drive import ASYNC_WAIT

    return await decide(ASYNC_WAIT, request, policies, approver)


def authorize_sync(
    request: PermissionRequest, policies: Iterable[PermissionPolicy], approver: Approver | None
) -> Decision:
    """`authorize` for sync code: an async policy or approver runs on a private event loop."""
    from forge.tools.execution._drive import BLOCKING_WAIT, complete

    return complete(decide(BLOCKING_WAIT, request, policies, approver))


async def decide(
    io: Waiter,
    request: PermissionRequest,
    policies: Iterable[PermissionPolicy],
    approver: Approver | None,
) -> Decision:
    """Drive the decision steps, waiting for awaitable answers through ``io`` (internal)."""
    steps = _steps(request, policies, approver)
    try:
        pending = next(steps)
        while True:
            pending = steps.send(await io.resolve(pending))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    except Exception:
        logger.exception("permission check for tool %r failed; denying", request.name)
        return Decision.deny(_FAILED)


def _approved(answer: Decision, asked: Decision) -> Decision:
    if answer.action == "allow":
        return answer
    reason = answer.reason or (f"approval was refused ({asked.reason})" if asked.reason else None)
    return Decision.deny(reason or "approval was refused")
