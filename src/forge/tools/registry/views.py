"""What a registry and its views share (`ToolAPI`), and read-only views (`ToolView`).

`ToolAPI` is the read API (`ToolReads`) plus what is derived from the tools: provider
definitions, search, prompt text, the run shortcuts and three views, which compose and
see the registry's changes at once:

- ``registry.filtered(predicate, category=..., tags=..., names=...)`` keeps some tools;
- ``registry.prefixed("web_")`` puts a prefix before every name;
- ``registry.renamed({"old": "new"})`` gives some tools other names.

A view has the registry's read API, so `ToolExecutor(view)`, `to_provider`, the MCP
server and LangChain take it like a registry. Its tools carry its names in every
export, and a call by such a name runs the original tool; the result reports the
name that was called. A view is read-only: register tools in its registry.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

from forge.core.errors import DuplicateToolError
from forge.tools.model.source import provider_conversion, provider_definitions
from forge.tools.registry._derived import prompt_text, search_tools
from forge.tools.registry._reads import ToolReads
from forge.tools.registry._shortcuts import RunMethods
from forge.tools.schema import check_name
from forge.tools.values.categories import ToolCategory
from forge.tools.values.metadata import string_tuple

if TYPE_CHECKING:
    from forge.tools.deferral import DeferredSession, DeferSpec, SessionKeywords
    from forge.tools.formats.report import Conversion, Errors
    from forge.tools.model.prompt import PromptKeywords, PromptOptions
    from forge.tools.model.source import ToolSource
    from forge.tools.model.tool import Tool
    from forge.tools.registry.events import Events
    from forge.tools.search import Embedding

__all__ = ["ToolAPI", "ToolView"]

T = TypeVar("T")


class ToolAPI(ToolReads, RunMethods):
    """What a registry and its views share: the read API, views, derived artefacts, runs."""

    __slots__ = ()

    if TYPE_CHECKING:

        def derived(self, key: Hashable, build: Callable[[list[Tool]], T]) -> T: ...

    # -- views -------------------------------------------------------------------

    def filtered(
        self,
        predicate: Callable[[Tool], bool] | None = None,
        *,
        category: ToolCategory | str | None = None,
        tags: Iterable[str] | str = (),
        names: Iterable[str] | None = None,
    ) -> ToolView:
        """A live view of the tools that pass every given test.

        Args:
            predicate: Keep a tool when ``predicate(tool)`` is true.
            category: Keep only tools of this category (aliases accepted).
            tags: Keep only tools carrying all these tags (one string: one tag).
            names: Keep only tools with these names.
        """
        wanted = ToolCategory.parse(category) if category is not None else None
        need = frozenset(string_tuple(tags, "tags"))
        keep = None if names is None else frozenset(string_tuple(names, "names"))

        def passes(t: Tool) -> bool:
            return (
                (wanted is None or t.metadata.category is wanted)
                and need.issubset(t.metadata.tags)
                and (keep is None or t.name in keep)
                and (predicate is None or bool(predicate(t)))
            )

        return ToolView(self, lambda tools: [t for t in tools if passes(t)])

    def prefixed(self, prefix: str) -> ToolView:
        """A live view in which every tool's name starts with ``prefix``.

        Raises:
            ToolDefinitionError: ``prefix`` cannot start a tool name (or, when the view
                is read, makes a name longer than the limit).
        """
        check_name(f"{prefix}x")
        return ToolView(self, lambda tools: [(t, prefix + t.name) for t in tools])

    def renamed(self, names: Mapping[str, str]) -> ToolView:
        """A live view in which the tools named as keys carry the values as names.

        Tools not named keep their names; a key no tool has is ignored.

        Raises:
            ToolDefinitionError: A new name breaks the tool-name rule.
            DuplicateToolError: Two tools would share a name in the view.
        """
        mapping = {str(old): check_name(new) for old, new in dict(names).items()}
        taken = [n for n in self.names() if n not in mapping] + list(mapping.values())
        clash = next((n for n in taken if taken.count(n) > 1), None)
        if clash is not None:
            raise DuplicateToolError(clash, "renamed() would give two tools this name")
        return ToolView(self, lambda tools: [(t, mapping.get(t.name, t.name)) for t in tools])

    # -- derived from the tools (cached until the next change) -------------------

    def definitions(self) -> list[dict[str, Any]]:
        """Return every tool's provider-neutral definition (no handlers; schemas read-only)."""
        return [t.to_dict() for t in self]

    def to_provider(
        self,
        provider: str,
        *,
        allowed: Iterable[str] | None = None,
        strict: bool = False,
        errors: Errors = "report",
        defer: DeferSpec | None = None,
        tool_search: str | bool = True,
    ) -> list[Any]:
        """Return the tools in a provider's wire format, in registration order.

        Args:
            provider: A provider name (see `forge.tools.formats.PROVIDERS`).
            allowed: Keep only these tool names (registration order is kept).
            strict: Compile schemas to the provider's strict mode (OpenAI,
                Mistral, Anthropic, Bedrock); arguments the model sends back
                are mapped to canonical ones by `forge.tools.formats.strict_arguments`.
            errors: ``report`` (default): one tool never breaks the export; what a
                provider cannot take is shortened, sent without strict mode or left
                out, as `conversion` reports. ``raise``: raise instead.
            defer: Tools to defer to the provider's own tool search (Anthropic, OpenAI
                Responses): a `forge.tools.deferral.Defer` (``Defer.all_but(5,
                query=...)``, ``Defer.tagged(...)``, ...), ``True`` for all, tool names, or
                a predicate. They are sent with ``"defer_loading": true``.
            tool_search: With ``defer``: add the provider's search tool last (``True``:
                its default variant, Anthropic's BM25; or a variant's name: ``"regex"``);
                ``False`` adds none; ``"client"`` adds a search run by the client (answer
                it with ``deferred(provider, native=True)``).

        The definitions are cached per registry version and read-only (shared by every
        caller; ``copy.deepcopy`` gives a mutable copy); the list is new on each call.
        For providers without a tool search of their own, see `deferred`.

        Raises:
            UnsupportedProviderError: Listing the supported providers (with ``defer``, a
                `NoNativeSearchError` saying to use `deferred` instead).
            SchemaConversionError: With ``errors="raise"``, a tool that cannot be
                converted as asked.
            ToolNotFoundError: ``defer`` names a tool that does not exist.
        """
        if defer is not None:
            from forge.tools.deferral import deferred_export

            return deferred_export(self, provider, defer, tool_search=tool_search,
                                   allowed=allowed, strict=strict, errors=errors)  # fmt: skip
        return provider_definitions(self._only(allowed), provider, strict=strict, errors=errors)

    def _only(self, names: Iterable[str] | None) -> ToolAPI:
        """``self``, or the view keeping only ``names`` (one per set of names and version)."""
        if names is None:
            return self
        keep = frozenset(names)
        return self.derived(("only", keep), lambda _: self.filtered(names=keep))

    def deferred(self, provider: str, **keywords: Unpack[SessionKeywords]) -> DeferredSession:
        """Start a conversation that loads tools as the model searches for them (any provider).

        ``session.tools()`` is each request's ``tools=``: the ``pinned`` tools, those
        revealed so far (at most ``max_active``, least recently used leave first) and a
        search tool called ``search_name`` backed by `search`; ``session.run_turn(response)``
        runs the calls and reveals what each search found; ``max_tokens`` bounds what
        ``tools()`` sends, ``groups`` and ``siblings`` reveal a found tool's toolkit,
        ``pin_used`` pins the most-called tools of ``usage``, ``co_use`` (a `CoUse` shared by
        a process's sessions) reveals with a found tool those used with it before;
        ``native=True`` (Anthropic,
        OpenAI Responses) sends every other tool ``defer_loading`` with a client tool
        search that this session answers. The keywords are `SessionKeywords`; see
        `forge.tools.deferral.DeferredSession` for each.

        Raises:
            UnsupportedProviderError: ``provider`` is none of the formats' providers.
            ToolNotFoundError: A pinned name is no tool's.
        """
        from forge.tools.deferral import DeferredSession

        return DeferredSession.of(self, provider, **keywords)

    def conversion(
        self,
        provider: str,
        *,
        allowed: Iterable[str] | None = None,
        strict: bool = False,
        errors: Errors = "report",
    ) -> Conversion:
        """Return what `to_provider` returns with the same arguments, and a report per tool.

        ``conversion(...).definitions`` is the export; ``.reports`` says per tool what
        the provider could not express and what was changed (shortened, moved into a
        description, sent without strict mode, left out). Cached like `to_provider`.

        Raises:
            UnsupportedProviderError: Listing the supported providers.
            SchemaConversionError: With ``errors="raise"``, as `to_provider`.
        """
        return provider_conversion(self._only(allowed), provider, strict=strict, errors=errors)

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        category: ToolCategory | str | None = None,
        tags: Iterable[str] | str = (),
        relevant_only: bool = False,
        embedding: str | Embedding | None = None,
    ) -> list[Tool]:
        """Return the tools most relevant to ``query``, best first (BM25 ranking).

        Args:
            query: Natural-language text.
            limit: The most tools to return.
            category: Keep only tools of this category.
            tags: Keep only tools carrying all these tags (one string: one tag).
            relevant_only: Return nothing when no tool is relevant to the query. Without
                it the nearest tools come back even for an unrelated query: the search
                ranks, it does not filter.
            embedding: A stronger sentence embedding to rank with as well, for more latency:
                ``"minilm"`` (all-MiniLM-L6-v2, English only, the ``minilm`` extra; about
                18 ms per query at 10,000 tools, and a first search that embeds every tool)
                or an `Embedding`. ``None`` (or ``"static"``): the static embedding alone,
                a few milliseconds. A keyword of the call rather than a setting of the
                registry or a global, so that one registry serves both, views inherit it with
                no extra state, and each call says what it costs: each embedding keeps its
                own index, built on its first search and updated tool by tool.

        Raises:
            MissingDependencyError: The embedding's extra is not installed.
            ValueError: An unknown embedding name, or ``limit`` below 1.
        """
        return search_tools(self, query, limit, category, tags, relevant_only, embedding)

    def generate_prompt(
        self, options: PromptOptions | None = None, /, **keywords: Unpack[PromptKeywords]
    ) -> str:
        """Describe the tools as prompt text in the original design's layout; deterministic.

        Pass a `PromptOptions`, its fields as keywords, or both (keywords win):

        - ``include_examples``: show examples with their JSON input;
        - ``include_notes``: show usage notes;
        - ``include_limitations``: show known limitations;
        - ``group_by_category``: one ``FILE SYSTEM TOOLS:``-style section per category;
        - ``categories``: only tools of these categories (names and aliases accepted);
        - ``max_examples_per_tool``: at most this many examples per tool;
        - ``shortened_for``: a provider name; instead of the listing, only the text that
          ``to_provider(provider)`` cut from descriptions over its limit (``""`` if none).

        The text is cached per registry version and options.

        Raises:
            TypeError: ``options`` is not a `PromptOptions`.
            ValueError: An unknown category or a negative example limit.
            UnsupportedProviderError: ``shortened_for`` names no provider.
        """
        from forge.tools.model.prompt import PromptOptions

        return prompt_text(self, PromptOptions.coerce(options, keywords))


Selection = Callable[[list["Tool"]], Iterable["Tool | tuple[Tool, str]"]]


class ToolView(ToolAPI):
    """A read-only, live view of a registry (or of another view); see the module docstring.

    Made by ``registry.filtered(...)``, ``.prefixed(...)`` and ``.renamed(...)``. What it
    derives (its tools, provider definitions, the search index) is cached per
    version of the registry under it.
    """

    def __init__(self, source: ToolSource, select: Selection) -> None:
        self._source = source
        self._select = select
        self._lock = threading.RLock()
        self._cached: tuple[int, dict[str, Tool], dict[Any, Any]] = (-1, {}, {})
        self._copies: dict[Tool, Tool] = {}

    @property
    def source(self) -> ToolSource:
        """The registry or view this view reads."""
        return self._source

    @property
    def version(self) -> int:
        """The version of the registry under the view (it changes with every mutation)."""
        return self._source.version

    def _state(self) -> tuple[int, dict[str, Tool], dict[Any, Any]]:
        version = self._source.version  # read first: the tools are then at least this new
        cached = self._cached
        if cached[0] != version:
            tools = self._source.derived(("tools",), list)
            chosen: dict[str, Tool] = {}
            copies: dict[Tool, Tool] = {}
            for item in self._select(tools):
                t = item if not isinstance(item, tuple) else self._named(*item, copies)
                chosen.setdefault(t.name, t)
            self._copies = copies
            self._cached = cached = (version, chosen, {})
        return cached

    def _named(self, tool: Tool, name: str, copies: dict[Tool, Tool]) -> Tool:
        """``tool`` under ``name``: one copy per original, kept while it is registered."""
        if name == tool.name:
            return tool
        copy = self._copies.get(tool)
        if copy is None or copy.name != name:
            copy = tool.replace(name=name)
        copies[tool] = copy
        return copy

    def derived(self, key: Hashable, build: Callable[[list[Tool]], T]) -> T:
        """A value computed from the view's tools, cached until the registry changes."""
        _, tools, cache = self._state()
        if key not in cache:
            cache[key] = build(list(tools.values()))
        return cache[key]  # type: ignore[no-any-return]

    def _by_name(self) -> Mapping[str, Tool]:
        return self._state()[1]

    _snapshot = _by_name

    def _events(self) -> Events:
        source = self._source
        if not isinstance(source, ToolReads):
            raise TypeError(f"{source!r} publishes no events")
        return source._events()

    def __repr__(self) -> str:
        return f"<ToolView tools={len(self)} of {self._source!r}>"

    def close(self) -> None:
        """Stop the worker threads of the view's run methods (the registry's tools stay)."""
        self._close_engine()
