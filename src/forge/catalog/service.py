"""`Catalog`: what the web catalog serves, as plain methods over a registry and an executor.

No HTTP here: `forge.catalog.app` maps requests onto these methods, and tests and
other front ends can call them directly.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from forge.catalog.calls import run_outcome, validation_outcome
from forge.catalog.detail import tool_detail
from forge.catalog.errors import (
    BadRequestError,
    ConfirmationRequiredError,
    needs_confirmation,
)
from forge.catalog.events import ChangeFeed
from forge.catalog.listing import Listing
from forge.catalog.stats import metrics_table, tool_stats
from forge.tools import ToolCategory, ToolExecutor

if TYPE_CHECKING:
    from forge.tools import ExecutionMetrics, Tool, ToolRegistry, ToolView

__all__ = ["SEARCH_LIMIT", "Catalog"]

SEARCH_LIMIT = 500
"""The most tools a search lists (ranking all of 10,000 tools costs ~5x as much)."""
_DETAILS_KEPT = 256
_NO_CALLS = {"calls": 0, "failures": 0, "p50_ms": 0.0, "p95_ms": 0.0}


class Catalog:
    """The catalog of a registry: list, details, validation, runs, metrics and live changes.

    Args:
        registry: The tools shown (a registry or a view).
        executor: Runs the catalog's calls, so its permission policy, timeouts, hooks and
            metrics apply (default: a new `ToolExecutor` over ``registry``, closed by `close`);
            beside an MCP server, the server's executor.
        metrics: Where the per-tool metrics come from (default: ``executor.metrics``).
    """

    def __init__(
        self,
        registry: ToolRegistry | ToolView,
        *,
        executor: ToolExecutor | None = None,
        metrics: ExecutionMetrics | None = None,
    ) -> None:
        self.registry = registry
        self._owned: ToolExecutor | None = None
        if executor is None:
            executor = self._owned = ToolExecutor(registry)
        self.executor = executor
        """The executor running the catalog's calls."""
        self._metrics = metrics if metrics is not None else executor.metrics
        self.feed = ChangeFeed(registry)
        self._details: OrderedDict[str, tuple[Tool, dict[str, Any]]] = OrderedDict()
        self._details_lock = threading.Lock()

    def close(self) -> None:
        """End the live streams and release the executor this catalog created."""
        self.feed.close()
        if self._owned is not None:
            self._owned.close()

    # -- reading -------------------------------------------------------------------

    def tools(
        self, *, q: str | None = None, category: str | None = None, tags: Sequence[str] = ()
    ) -> dict[str, Any]:
        """The tool list: ``{"version", "tools", "categories", "tags"}``.

        With ``q`` the tools come in the registry's search order (the best `SEARCH_LIMIT`),
        else in registration order; ``category`` and every one of ``tags`` filter them. The
        counts cover the whole registry.

        Raises:
            BadRequestError: An unknown category.
        """
        version = self.registry.version
        listing = self.registry.derived(("forge.catalog", "listing"), Listing.build)
        wanted = _category(category)
        names = None
        if q is not None and q.strip():
            limit = max(1, min(SEARCH_LIMIT, len(listing.summaries)))
            found = self.registry.search(q, limit=limit, category=wanted, tags=tags)
            names = [t.name for t in found]
        return {
            "version": version,
            "tools": listing.select(names=names, category=wanted, tags=tags),
            "categories": list(listing.categories),
            "tags": list(listing.tags),
        }

    def tool(self, name: str) -> dict[str, Any]:
        """One tool's page (see `forge.catalog.detail.tool_detail`) with its metrics.

        Raises:
            ToolNotFoundError: No such tool; the message suggests close names.
        """
        found = self.registry.get_or_raise(name)
        with self._details_lock:
            cached = self._details.get(name)
        if cached is None or cached[0] is not found:
            cached = (found, tool_detail(found))
            with self._details_lock:
                self._details[name] = cached
                if len(self._details) > _DETAILS_KEPT:
                    self._details.popitem(last=False)
        return {**cached[1], "metrics": self._tool_metrics(name)}

    def metrics(self) -> dict[str, Any]:
        """``{"enabled", "tools": {name: {"calls", "failures", "p50_ms", "p95_ms"}}}``."""
        return metrics_table(self._metrics)

    def _tool_metrics(self, name: str) -> dict[str, Any] | None:
        if self._metrics is None:
            return None
        found = self._metrics.snapshot().tools.get(name)
        return tool_stats(found) if found is not None else dict(_NO_CALLS)

    # -- trying --------------------------------------------------------------------

    def validate(self, name: str, body: Any) -> dict[str, Any]:
        """Validate ``body["arguments"]`` only (nothing runs).

        Raises:
            ToolNotFoundError: No such tool.
            BadRequestError: A body that is not ``{"arguments": {...}}``.
        """
        found = self.registry.get_or_raise(name)
        arguments, _ = _call_body(body, allowed=("arguments",))
        return validation_outcome(found, arguments)

    async def run(self, name: str, body: Any) -> dict[str, Any]:
        """Run ``body["arguments"]`` through the executor; any failure is a result.

        Raises:
            ToolNotFoundError: No such tool.
            BadRequestError: A body that is not ``{"arguments": {...}, "confirm": bool}``.
            ConfirmationRequiredError: A tool that may be destructive (marked so, or not
                marked read-only or non-destructive) without ``"confirm": true``.
        """
        found = self.registry.get_or_raise(name)
        arguments, confirm = _call_body(body, allowed=("arguments", "confirm"))
        hints = found.annotations
        if needs_confirmation(hints) and not confirm:
            raise ConfirmationRequiredError(name, marked=hints.destructive is True)
        return await run_outcome(self.executor.run, found, arguments)


def _category(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    try:
        return ToolCategory.parse(value).value
    except ValueError as exc:
        raise BadRequestError(f"query parameter 'category': {exc}") from None


def _call_body(body: Any, *, allowed: tuple[str, ...]) -> tuple[Mapping[str, Any], bool]:
    """The ``arguments`` object and ``confirm`` flag of a request body, checked."""
    shape = "{" + ", ".join(f'"{k}": ...' for k in allowed) + "}"
    if not isinstance(body, Mapping):
        raise BadRequestError(
            f"the request body must be a JSON object such as {shape}, not {_json_type(body)}"
        )
    unknown = [k for k in body if k not in allowed]
    if unknown:
        raise BadRequestError(
            f"unknown field(s) in the request body: {', '.join(map(repr, unknown))}; send {shape}"
        )
    arguments = body.get("arguments", {})
    if not isinstance(arguments, Mapping):
        raise BadRequestError(
            '"arguments" must be a JSON object of the tool\'s arguments, '
            f"not {_json_type(arguments)}"
        )
    confirm = body.get("confirm", False)
    if not isinstance(confirm, bool):
        raise BadRequestError(f'"confirm" must be true or false, not {_json_type(confirm)}')
    return arguments, confirm


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
