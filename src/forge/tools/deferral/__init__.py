"""Thousands of tools: deferred loading, native or through a search tool.

Two ways to keep most tool definitions out of every request:

- **Native** (Anthropic, OpenAI Responses): ``registry.to_provider(provider, defer=...)``
  marks the deferred tools ``defer_loading`` and adds the provider's own search tool;
  the provider searches and loads them. `Defer` says which tools
  (``Defer.all_but(5, query=question)``, ``Defer.tagged("admin")``, names, a predicate).
  The search's blocks in responses are not calls; ``turn.revealed`` names what they loaded.
- **Search tool** (every provider): ``session = registry.deferred(provider, pinned=[...])``
  sends the pinned tools and ``search_tools``; ``session.run_turn(response)`` runs the
  calls and reveals what each search found (`DeferredSession`). ``max_tokens=`` bounds
  what each turn sends (`estimate_tokens`), ``groups="__", siblings=5`` reveals a found
  tool's toolkit (a gateway's server) with it, ``pin_used=4`` pins the tools a deployment
  calls most (``usage=`` its executor's metrics), ``co_use=CoUse()`` (shared by a
  process's sessions) reveals with a found tool those used with it before, and one search
  call can carry ``queries=[...]``, one per step of a plan.
"""

from __future__ import annotations

from forge.tools.deferral._budget import estimate_tokens
from forge.tools.deferral._couse import CoUse, CoUseTrail
from forge.tools.deferral._export import deferred_export
from forge.tools.deferral._select import Defer, DeferSpec, coerce, resolve
from forge.tools.deferral._toolkits import GroupSpec
from forge.tools.deferral._usage import Usage, most_used
from forge.tools.deferral.options import (
    ActiveSet,
    Inactive,
    SearchTool,
    SessionKeywords,
    Together,
    Toolkits,
    UsagePins,
)
from forge.tools.deferral.session import DeferredSession

__all__ = ["ActiveSet", "CoUse", "CoUseTrail", "Defer", "DeferSpec", "DeferredSession",
           "GroupSpec", "Inactive", "SearchTool", "SessionKeywords", "Together", "Toolkits",
           "Usage", "UsagePins", "coerce", "deferred_export", "estimate_tokens", "most_used",
           "resolve"]  # fmt: skip
