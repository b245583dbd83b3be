"""`DeferredSession`: a conversation that loads tools as the model searches for them.

For any provider (with or without a tool search of its own): the model first sees the
pinned tools and a search tool (``search_tools`` by default) backed by
``registry.search``. Each search reveals its best matches: from the next turn they are
in ``session.tools()``. The loop stays the usual one::

    session = registry.deferred("openai", pinned=["get_time"])
    while True:
        response = client.chat.completions.create(model=..., messages=messages,
                                                  tools=session.tools())
        turn = session.run_turn(response)
        messages += turn.messages
        if turn.done:
            break

The active set is the pinned tools plus at most ``max_active`` revealed tools, within
``max_tokens`` (an estimate, `estimate_tokens`, of what `tools` sends); past either the
least recently used revealed tool leaves (it can be found again). With ``groups`` (a
gateway's ``<server>__`` prefix, a mapping or a function) a search also reveals up to
``siblings`` more tools of its best matches' toolkits; ``pin_used`` pins the tools a
deployment calls most (``usage``: its executor's metrics or a mapping of counts); with
``co_use`` (a `CoUse` shared by a process's sessions) the session counts which tools it runs
together and a search also reveals up to ``partners`` tools used with each best match
before (at least ``min_co_use`` times). A call to a tool
that exists but is not active (the model knew its name from an earlier turn) is run and
reveals the tool with ``inactive="run"`` (the default: the engine's permissions, when an
executor is given, still decide), or answered with a failed result telling the model to
search first with ``inactive="refuse"`` (where a name no tool has is answered naming only
the session's active tools); a call the executor's permissions deny reveals nothing. One
session is one conversation; its methods are safe to call from several threads.
`execute_all` runs calls without a provider's response (an MCP server's ``tools/call``, say).
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, Unpack

from forge.core.errors import ToolNotFoundError, ToolValidationError, UnsupportedProviderError
from forge.core.logging import get_logger
from forge.tools.deferral._budget import tool_tokens
from forge.tools.deferral._couse import partners_of
from forge.tools.deferral._search_tool import make_search_tool, queries_of, short_description
from forge.tools.deferral._toolkits import Grouping, toolkit_siblings
from forge.tools.deferral._usage import most_used
from forge.tools.deferral.options import (
    ActiveSet,
    SearchTool,
    SessionKeywords,
    Together,
    Toolkits,
    UsagePins,
    grouped,
)
from forge.tools.execution.executor import ToolExecutor, contextless
from forge.tools.model.source import ToolSource
from forge.tools.values.results import ErrorKind, ToolResult

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool
    from forge.tools.turns import AssistantTurn, Turn, TurnStream
    from forge.tools.values.calls import ToolCall
    from forge.tools.values.context import ExecutionContext

__all__ = ["DeferredSession"]

logger = get_logger("tools.deferral")

Calls = list["ToolCall"]

#: How many more tools than it reveals a search ranks, to order a toolkit's siblings.
SIBLING_POOL = 64


_ACTIVE, _SEARCH, _TOOLKITS, _PINS = ActiveSet(), SearchTool(), Toolkits(), UsagePins()
_TOGETHER = Together()
_DEFAULTS = {"active": _ACTIVE, "search": _SEARCH, "toolkits": _TOOLKITS, "pins": _PINS,
             "together": _TOGETHER}  # fmt: skip


class _Source(ToolSource, Protocol):
    """What a session reads of a registry or view: its tools and its search."""

    def search(self, query: str, *, limit: int = 10) -> list[Tool]: ...


class DeferredSession:
    """One conversation's active tools over a registry; see the module docstring.

    Made by ``registry.deferred(provider, ...)`` or `DeferredSession.of` from flat
    keywords, or directly over a registry or view with the option groups of
    `forge.tools.deferral.options` (each checks its own options when it is made).

    Args:
        source: The registry (or view) holding every tool.
        provider: One of `forge.tools.formats.PROVIDERS` (aliases accepted). The turn
            methods need one of `forge.tools.turns.TURN_PROVIDERS`; with ``mcp`` (a server
            exposing a search tool per client session) use `tools` and `execute_all`.
        active: The pinned tools, ``max_active``, ``max_tokens`` and ``inactive`` (an
            `ActiveSet`): every pinned name must be a tool's; ``max_tokens`` bounds what
            `tools` sends by `estimate_tokens` (which errs high), least recently used
            revealed tools leaving to stay within it.
        search: The search tool's ``search_name`` (no tool's in ``source``) and
            ``search_limit``, the most tools one search reveals (a `SearchTool`).
        toolkits: ``groups``, ``siblings`` and ``toolkits`` (a `Toolkits`): with groups,
            each search also reveals up to ``siblings`` other tools of the toolkits of its
            ``toolkits`` best matches (best ranked for the query first, then in the
            toolkit's order).
        pins: ``pin_used`` and ``usage`` (a `UsagePins`): pin the (at most) ``pin_used``
            tools ``usage`` counts most calls of (by default the executor's metrics; tools
            no longer in ``source``, or past ``max_tokens``, are passed over).
        together: ``co_use``, ``partners`` and ``min_co_use`` (a `Together`): the session
            records the calls it runs in ``co_use`` and each search also reveals up to
            ``partners`` tools used with each of its best matches at least ``min_co_use``
            times (every match's best partner first).
        executor: The `ToolExecutor` over ``source`` that runs the calls (its permissions,
            hooks, timeouts and metrics); by default one that runs them as the registry's
            own run methods do (no context unless given; from sync code, one after another).
        context: The calls' context.
        strict: Export the tools in the provider's strict mode.
        on_change: Called with `active` after each change of the active set (a tool
            revealed or evicted; not a mere reordering), on the thread that changed it,
            e.g. to send MCP's ``notifications/tools/list_changed``. Its errors are logged.
        native: Keep the provider's native deferred loading (Anthropic, OpenAI
            Responses), with the search run here: `tools` sends the pinned tools, every
            other tool marked ``defer_loading`` and the client search tool (Anthropic:
            ``search_tools``; Responses: ``{"type": "tool_search", "execution":
            "client"}``); the turn methods answer each search with what `search` finds,
            as ``tool_reference`` blocks (Anthropic) or a ``tool_search_output`` item
            holding the definitions (Responses), and `Turn.revealed` names them.

    Raises:
        UnsupportedProviderError: ``provider`` is none of the formats' providers.
        ToolNotFoundError: A pinned name is no tool's.
        ToolDefinitionError: ``search_name`` is not a valid tool name.
        ValueError: ``search_name`` is taken, ``search_limit`` is over ``max_active``,
            the pinned tools (those of ``pinned``: usage pins that do not fit are passed
            over) and the search tool alone are over ``max_tokens``, ``pin_used`` has no
            ``usage`` to read, or ``native`` is given with ``max_tokens``.
        NoNativeSearchError: ``native`` for a provider without native deferred loading.
        TypeError: ``groups``, ``usage`` or ``co_use`` is none of the accepted kinds, or an option
            group is not its value object.
    """

    def __init__(
        self,
        source: _Source,
        provider: str,
        *,
        active: ActiveSet = _ACTIVE,
        search: SearchTool = _SEARCH,
        toolkits: Toolkits = _TOOLKITS,
        pins: UsagePins = _PINS,
        together: Together = _TOGETHER,
        executor: ToolExecutor | None = None,
        context: ExecutionContext | None = None,
        strict: bool = False,
        on_change: Callable[[list[str]], None] | None = None,
        native: bool = False,
    ) -> None:
        groups = {"active": active, "search": search, "toolkits": toolkits, "pins": pins,
                  "together": together}  # fmt: skip
        for label, value in groups.items():
            kind = type(_DEFAULTS[label])
            if not isinstance(value, kind):
                raise TypeError(
                    f"{label}= takes a {kind.__name__}(...), got {type(value).__name__}; for "
                    "flat keywords use registry.deferred(...) or DeferredSession.of(...)"
                )
        self.provider = _format_provider(provider)
        self.native = _native_of(native, self.provider, active.max_tokens)
        """Whether `tools` sends every tool deferred to the provider's own tool search,
        answered here (``tool_search="client"``)."""
        self._on_change = on_change
        if search.search_limit > active.max_active:
            raise ValueError(
                f"search_limit={search.search_limit} is more than max_active="
                f"{active.max_active}: a search would reveal tools that leave at once; "
                "raise max_active or lower search_limit"
            )
        max_tokens, search_name, pin_used = active.max_tokens, search.search_name, pins.pin_used
        self._source = source
        _checked_names(source, active.pinned, "pinned")
        if pin_used:
            counts = pins.usage if pins.usage is not None else _metrics_of(executor)
            if counts is None:
                raise ValueError(
                    f"pin_used={pin_used} needs to know which tools are called: pass usage= "
                    "(an ExecutionMetrics or a mapping of tool name to calls) or an executor "
                    "that keeps metrics"
                )
            used = most_used(counts, pin_used, lambda name: source.get(name) is not None)
        else:
            used = []
        self._pinned = tuple(active.pinned)
        self._max_active = active.max_active
        self._max_tokens = max_tokens
        self._grouping = Grouping(toolkits.groups) if toolkits.groups is not None else None
        self._siblings = toolkits.siblings
        self._toolkits = toolkits.toolkits
        self._together, self._trail = together, together.trail()
        self._members: tuple[int, dict[str, list[str]]] | None = None
        self._sizes: tuple[int, dict[str, int]] = (-1, {})  # (version, tokens by name)
        self._limit = search.search_limit
        self._inactive = active.inactive
        self._strict = strict
        # without an executor, calls run as the registry's own `execute_all` runs them: no
        # context unless given, and from sync code one after another
        self._executor = executor if executor is not None else contextless(source)
        self._in_order = executor is None
        self._context = context
        self._lock = threading.Lock()
        self._revealed: OrderedDict[str, None] = OrderedDict()
        self._cache: tuple[Any, list[Any]] | None = None
        self._native: tuple[Any, list[Any], dict[str, Any]] | None = None
        if source.get(search_name) is not None:
            raise ValueError(
                f"search_name={search_name!r} is already a tool's name in the registry; "
                "choose another name for the search tool"
            )
        hidden = max(len(source.names()) - len(self._pinned), 0)
        self.search_tool: Tool = make_search_tool(search_name, hidden, self._search)
        """The search tool (its handler searches and reveals)."""
        if max_tokens is not None:
            used = self._within_budget(max_tokens, used)
        if used:  # fewer tools hidden: the description's count has no more digits
            self._pinned = tuple(dict.fromkeys([*self._pinned, *used]))
            hidden = max(len(source.names()) - len(self._pinned), 0)
            self.search_tool = make_search_tool(search_name, hidden, self._search)

    @classmethod
    def of(
        cls, source: _Source, provider: str, **keywords: Unpack[SessionKeywords]
    ) -> DeferredSession:
        """A session from the flat keywords of ``registry.deferred`` (`SessionKeywords`).

        Raises:
            TypeError: A keyword is none of `SessionKeywords`.
            ValueError: As the option groups and `DeferredSession` raise.
        """
        return cls(source, provider, **grouped(dict(keywords)))

    def _within_budget(self, max_tokens: int, used: list[str]) -> list[str]:
        """The usage pins that fit ``max_tokens`` with the pinned tools and the search tool
        (counts change after a budget was chosen, so those that do not are passed over).

        Raises:
            ValueError: The pinned tools and the search tool alone are over ``max_tokens``.
        """
        floor = self._size(self.search_tool) + sum(map(self._size_of, self._pinned))
        if floor > max_tokens:
            raise ValueError(
                f"max_tokens={max_tokens} is less than the pinned tools and the search "
                f"tool alone (about {floor} tokens): raise max_tokens or pin fewer tools"
            )
        fitting = []
        for name in dict.fromkeys(n for n in used if n not in self._pinned):
            if floor + self._size_of(name) <= max_tokens:
                floor += self._size_of(name)
                fitting.append(name)
        return fitting

    # -- the active set -------------------------------------------------------------

    @property
    def pinned(self) -> tuple[str, ...]:
        """The tools always active."""
        return self._pinned

    def active(self) -> list[str]:
        """The tools the model can see now: pinned, then revealed (least recent first)."""
        with self._lock:
            revealed = [n for n in self._revealed if n not in self._pinned]
        return [*self._pinned, *revealed]

    def reveal(self, names: Iterable[str]) -> list[str]:
        """Make these tools active from the next `tools` on; return them (less any tool
        larger than the whole ``max_tokens`` budget: it is never revealed).

        Raises:
            ToolNotFoundError: A name is no tool's.
        """
        found = _checked_names(self._source, names, "reveal")
        return self._use(found)

    def discard(self, names: Iterable[str]) -> list[str]:
        """Take revealed tools out of the active set (they can be found again); return those.

        For tools withdrawn from the registry (an MCP gateway's server went away): names
        that are not revealed, and pinned tools, are left alone.
        """
        with self._lock:
            gone = [n for n in dict.fromkeys(names) if self._revealed.pop(n, _ABSENT) is None]
        if gone and self._on_change is not None:
            try:
                self._on_change(self.active())
            except Exception:
                logger.exception("on_change of a deferred session failed (ignored)")
        return gone

    def _use(self, names: Iterable[str]) -> list[str]:
        """Mark ``names`` most recently used; evict past the limits; tell `on_change`.

        Returns ``names`` less those larger than the whole budget (they would evict every
        revealed tool, then themselves): those are left out.
        """
        names = list(names)
        if self._max_tokens is not None:
            room = self._max_tokens - self._floor()  # estimated outside the lock
            names = [n for n in names if n in self._pinned or self._size_of(n) <= room]
        kept = names
        names = [n for n in names if n not in self._pinned]
        with self._lock:
            before = set(self._revealed)
            for name in names:
                self._revealed[name] = None
                self._revealed.move_to_end(name)
            while len(self._revealed) > self._max_active:
                self._revealed.popitem(last=False)
            if self._max_tokens is not None:
                spent = self._floor() + sum(self._size_of(n) for n in self._revealed)
                while self._revealed and spent > self._max_tokens:
                    spent -= self._size_of(self._revealed.popitem(last=False)[0])
            changed = before != set(self._revealed)
        if changed and self._on_change is not None:
            try:
                self._on_change(self.active())
            except Exception:
                logger.exception("on_change of a deferred session failed (ignored)")
        return kept

    def estimated_tokens(self) -> int:
        """What `tools` sends now, in tokens by `estimate_tokens` (what ``max_tokens`` bounds)."""
        return self._floor() + sum(self._size_of(n) for n in self.active()
                                   if n not in self._pinned)  # fmt: skip

    def _floor(self) -> int:
        """The estimated tokens of the search tool and the pinned tools."""
        return self._size(self.search_tool) + sum(map(self._size_of, self._pinned))

    def _size_of(self, name: str) -> int:
        """The estimated tokens of tool ``name``'s definition (0 once it is gone)."""
        version = self._source.version
        at, sizes = self._sizes
        if at != version:  # every size may have changed: start again (churn leaves nothing)
            sizes = {}
            self._sizes = (version, sizes)
        known = sizes.get(name)
        if known is not None:
            return known
        tool = self._source.get(name)
        size = self._size(tool) if tool is not None else 0
        sizes[name] = size
        return size

    def _size(self, tool: Tool) -> int:
        return tool_tokens(tool, self.provider, strict=self._strict)

    def tools(self) -> list[Any]:
        """The active tools and the search tool, in the provider's format (for ``tools=``).

        Tools removed from the registry meanwhile are left out.
        """
        from forge.tools.formats import convert_all

        if self.native:
            return list(self._native_definitions()[0])
        names = self.active()
        key = (self._source.version, tuple(names))
        cached = self._cache
        if cached is not None and cached[0] == key:
            return list(cached[1])
        found = [t for t in map(self._source.get, names) if t is not None]
        definitions = convert_all([*found, self.search_tool], self.provider,
                                  strict=self._strict).definitions  # fmt: skip
        self._cache = (key, list(definitions))
        return list(definitions)

    def _native_definitions(self) -> tuple[list[Any], dict[str, Any]]:
        """With ``native``: every tool (those not pinned deferred) and the client search
        tool; and the deferred definitions by name (what a search loads)."""
        from forge.tools.deferral._client import client_search_definition
        from forge.tools.formats import convert_all
        from forge.tools.formats.deferral import defer_definitions

        key = (self._source.version, None)
        cached = self._native
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        found = [t for t in map(self._source.get, self._source.names()) if t is not None]
        exported = convert_all(found, self.provider, strict=self._strict).definitions
        deferred = [t.name for t in found if t.name not in self._pinned]
        definitions = defer_definitions(exported, deferred, self.provider, add_search=False)
        later = set(deferred)
        by_name = {d["name"]: d for d in definitions if d.get("name") in later}
        definitions.append(client_search_definition(self.search_tool, self.provider,
                                                    strict=self._strict))  # fmt: skip
        self._native = (key, definitions, by_name)
        return definitions, by_name

    # -- searching --------------------------------------------------------------------

    def search(self, query: str | Iterable[str]) -> list[Tool]:
        """The tools a search for ``query`` (or for each of several queries) reveals.

        Each query reveals its (at most) ``search_limit`` best matches and, with
        ``groups`` and ``siblings``, their toolkits' siblings, and with ``co_use`` the tools
        used with them before. Returned best first (every
        query's best, then every query's second, ...), each once, only those still active
        after the limits (the last ones leave first when a search reveals too many).
        """
        queries = [query] if isinstance(query, str) else list(query)
        for text in queries:
            if not isinstance(text, str):
                raise TypeError(f"a search query must be a str, got {type(text).__name__}")
        rankings = [self._ranked(text) for text in queries]
        order = list(dict.fromkeys(  # each query's best, then each one's second, ...
            name for row in itertools.zip_longest(*rankings) for name in row if name
        ))  # fmt: skip
        self._use(reversed(order))  # the best ends most recent, the last to leave
        with self._lock:
            kept = [n for n in order if n in self._revealed]
        return [t for t in map(self._source.get, kept) if t is not None]

    def _ranked(self, query: str) -> list[str]:
        """The names one query reveals, best first: its hits, their siblings, their partners."""
        grouped = self._grouping is not None and self._siblings > 0
        wanted = self._limit + len(self._pinned)
        ranked = self._source.search(query, limit=wanted + (SIBLING_POOL if grouped else 0))
        hits = [t for t in ranked if t.name not in self._pinned][: self._limit]
        names = [t.name for t in hits]
        if grouped and self._grouping is not None:
            names += toolkit_siblings(hits, ranked, self._grouping, self._toolkit_members(),
                                      toolkits=self._toolkits, siblings=self._siblings,
                                      skip={*names, *self._pinned})  # fmt: skip
        store, together = self._together.co_use, self._together
        if store is not None and together.partners:
            names += partners_of([t.name for t in hits], store, partners=together.partners,
                                 least=together.min_co_use, skip={*names, *self._pinned},
                                 known=lambda name: self._source.get(name) is not None)  # fmt: skip
        return names

    def _toolkit_members(self) -> dict[str, list[str]]:
        """Each toolkit's tool names (recomputed when the registry changes)."""
        assert self._grouping is not None
        version = self._source.version
        cached = self._members
        if cached is None or cached[0] != version:
            tools = [t for t in map(self._source.get, self._source.names()) if t is not None]
            cached = self._members = (version, self._grouping.members(tools))
        return cached[1]

    def _search(self, queries: list[str]) -> dict[str, Any]:
        found = self.search(queries)
        if not found and self._max_tokens is not None and any(map(self._ranked, queries)):
            return {"tools": [], "note": "The tools that match are too large to load in this "
                    "conversation; try other words for the task, or do without them."}  # fmt: skip
        if not found:
            return {"tools": [], "note": "No tool matches; try other words for the task."}
        return {
            "tools": [{"name": t.name, "description": short_description(t.description)}
                      for t in found],
            "note": "These tools are loaded now: call them by name.",
        }  # fmt: skip

    # -- running calls and turns ------------------------------------------------------

    def execute_all(self, calls: Iterable[ToolCall]) -> list[ToolResult]:
        """Run calls in order: searches here, the rest through the executor.

        One result per call, tagged with its id; a tool that runs (and is not denied) is
        active from then on.
        """
        routed, rest = self._route(list(calls))
        done = (
            self._executor.execute_all_sync(
                [c for _, c in rest], self._context, parallel=not self._in_order
            )
            if rest
            else []
        )
        return self._merge(routed, rest, done)

    async def aexecute_all(self, calls: Iterable[ToolCall]) -> list[ToolResult]:
        """`execute_all` for async code: the calls run concurrently."""
        routed, rest = self._route(list(calls))
        done = await self._executor.execute_all([c for _, c in rest], self._context) if rest else []
        return self._merge(routed, rest, done)

    def run_turn(self, response: Any) -> Turn:
        """Run one response's calls (`execute_all`); return the `Turn` to append.

        Takes what ``registry.run_turn`` takes.

        Raises:
            UnsupportedProviderError: The session's provider has no turns (MCP, LangChain).
            ToolCallFormatError: The response is not in the provider's shape.
        """
        from forge.tools.turns import read_finished

        assistant = self._searches(read_finished(response, self._turns()))
        return self._replied(assistant.answer(self.execute_all(assistant.calls)))

    async def arun_turn(self, response: Any) -> Turn:
        """`run_turn` for async code (also takes an async stream); calls run concurrently."""
        from forge.tools.turns import aread_finished

        assistant = self._searches(await aread_finished(response, self._turns()))
        return self._replied(assistant.answer(await self.aexecute_all(assistant.calls)))

    def stream_turn(self, stream: Any) -> TurnStream:
        """Read a streamed response: iterate for its text, then read ``.turn``."""
        from forge.tools.turns import TurnBuilder, TurnStream

        if self.native:
            from forge.tools.deferral._client import NativeTurnStream

            return NativeTurnStream(stream, self._turns(), self.search_tool.name,
                                    run_all=self.execute_all, run_one=self._run_one,
                                    definitions=lambda: self._native_definitions()[1])  # fmt: skip
        return TurnStream(stream, TurnBuilder(self._turns()), run_all=self.execute_all,
                          run_one=self._run_one)  # fmt: skip

    def _searches(self, assistant: AssistantTurn) -> AssistantTurn:
        """With ``native``: the turn with its client tool searches as calls of the search tool."""
        if not self.native:
            return assistant
        from forge.tools.deferral._client import with_client_searches

        return with_client_searches(assistant, self.search_tool.name)

    def _replied(self, turn: Turn) -> Turn:
        """With ``native``: the turn with its searches answered in the provider's form."""
        if not self.native:
            return turn
        from forge.tools.deferral._client import with_search_replies

        return with_search_replies(turn, self.search_tool.name, self._native_definitions()[1])

    def _turns(self) -> str:
        from forge.tools.turns import turn_provider

        return turn_provider(self.provider)

    async def _run_one(self, call: ToolCall) -> ToolResult:
        routed, rest = self._route([call])
        if routed[0] is not None:
            return routed[0]
        ran = await self._executor.execute_call(call, self._context)
        return self._merge(routed, rest, [ran])[0]

    def _route(self, calls: Calls) -> tuple[list[ToolResult | None], list[tuple[int, ToolCall]]]:
        """Answer the searches and refusals here; return the rest to run, with their places."""
        answered: list[ToolResult | None] = [None] * len(calls)
        rest: list[tuple[int, ToolCall]] = []
        for index, call in enumerate(calls):
            if call.name == self.search_tool.name:
                answered[index] = self._answer_search(call)
                continue
            refused = self._admit(call)
            if refused is not None:
                answered[index] = refused
            else:
                rest.append((index, call))
        return answered, rest

    def _admit(self, call: ToolCall) -> ToolResult | None:
        """``None`` to run the call, or the refusal of a tool not active.

        With ``native`` the provider loaded the tool (it keeps what its searches found past
        this session's ``max_active``), so nothing is refused here.
        """
        if self._inactive == "run" or self.native or call.name in self._pinned:
            return None
        if self._source.get(call.name) is None:
            return None  # unknown tools get the engine's answer (narrowed by _merge)
        with self._lock:
            if call.name in self._revealed:
                return None
        return ToolResult.fail(
            f"Tool {call.name!r} is not loaded yet: call {self.search_tool.name} with what "
            "you need to do first, then call one of the tools it returns",
            error_kind=ErrorKind.UNKNOWN_TOOL,
        ).for_call(call.id, call.name)

    def _merge(
        self,
        answered: list[ToolResult | None],
        rest: list[tuple[int, ToolCall]],
        done: list[ToolResult],
    ) -> list[ToolResult]:
        """The results in call order; the tools that ran (and were not denied) made recent."""
        out = list(answered)
        used: list[str] = []
        for (index, call), ran in zip(rest, done, strict=True):
            result = self._unknown(call) if self._hides(ran) else ran
            out[index] = result
            if result.error_kind not in _NOT_RUN:
                used.append(call.name)
        if used:
            self._use(used)
            if self._trail is not None:
                self._trail.ran(used)
        return [r for r in out if r is not None]

    def _hides(self, result: ToolResult) -> bool:
        """Whether ``result`` is the engine's unknown-tool answer, which names tools this
        session has not shown (with ``refuse``, without ``native``)."""
        return (
            result.error_kind is ErrorKind.UNKNOWN_TOOL
            and self._inactive == "refuse"
            and not self.native
        )

    def _unknown(self, call: ToolCall) -> ToolResult:
        """An unknown tool's result naming only what this session shows (with ``refuse``,
        the engine's answer would name tools the model was never shown)."""
        from forge.tools.execution import failures

        shown = [*self.active(), self.search_tool.name]
        return failures.unknown_tool(call.name, shown).for_call(call.id, call.name)

    def _answer_search(self, call: ToolCall) -> ToolResult:
        name = self.search_tool.name
        if call.argument_error is not None:
            return ToolResult.fail(
                f"Invalid JSON arguments for tool {name!r}: {call.argument_error}",
                error_kind=ErrorKind.INVALID_JSON,
            ).for_call(call.id, name)
        try:
            queries = queries_of(self.search_tool.validate(dict(call.arguments)))
        except ToolValidationError as exc:
            return ToolResult.fail(exc.message, error_kind=ErrorKind.INVALID_ARGUMENTS
                                   ).for_call(call.id, name)  # fmt: skip
        except ValueError as exc:
            return ToolResult.fail(str(exc), error_kind=ErrorKind.INVALID_ARGUMENTS
                                   ).for_call(call.id, name)  # fmt: skip
        return ToolResult.ok(self._search(queries)).for_call(call.id, name)


#: What `DeferredSession.discard` pops for a name that was not revealed.
_ABSENT = object()

#: Results of calls that did not run the tool: they reveal nothing.
_NOT_RUN = frozenset({ErrorKind.UNKNOWN_TOOL, ErrorKind.DENIED})


def _metrics_of(executor: Any) -> Any:
    """The executor's `ExecutionMetrics`, or ``None`` (no executor, or it keeps none)."""
    return getattr(executor, "metrics", None) if executor is not None else None


def _native_of(native: object, provider: str, max_tokens: int | None) -> bool:
    """``native`` checked against the provider and the other options.

    Raises:
        NoNativeSearchError: The provider has no native deferred loading.
        ValueError: ``max_tokens`` is given too, or ``native`` is not a bool.
    """
    if not isinstance(native, bool):
        raise TypeError(f"native must be True or False, got {native!r}")
    if not native:
        return False
    from forge.tools.formats.deferral import NATIVE_SEARCH, NoNativeSearchError

    if provider not in NATIVE_SEARCH:
        raise NoNativeSearchError(provider)
    if max_tokens is not None:
        raise ValueError(
            "max_tokens bounds what a search-tool session sends; with native=True every "
            "tool is sent deferred (the provider loads only what a search finds): pass "
            "one or the other"
        )
    return True


def _checked_names(source: _Source, names: Iterable[str] | str, what: str) -> list[str]:
    """``names`` as a list, each a tool's in ``source``.

    Raises:
        ToolNotFoundError: One is not.
    """
    listed = [names] if isinstance(names, str) else list(names)
    for name in listed:
        if not isinstance(name, str):
            raise TypeError(f"{what} must hold tool names (strings), got {type(name).__name__}")
        if source.get(name) is None:
            import difflib

            close = difflib.get_close_matches(name, source.names(), n=3)
            raise ToolNotFoundError(name, suggestions=close)
    return listed


def _format_provider(provider: str) -> str:
    """The canonical name of a provider the formats export to (aliases accepted).

    Raises:
        UnsupportedProviderError: Listing the supported providers.
    """
    from forge.tools.formats import PROVIDERS
    from forge.tools.parsing import PARSERS, resolve_provider

    if isinstance(provider, str) and provider in PROVIDERS:
        return provider
    try:
        name = resolve_provider(provider)
    except UnsupportedProviderError:
        raise UnsupportedProviderError(provider, list(PROVIDERS)) from None
    if name not in PARSERS or name not in PROVIDERS:
        raise UnsupportedProviderError(provider, list(PROVIDERS))
    return name
