"""Per-tool metrics for the catalog: calls, failures and p50/p95 latency from the executor."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge.tools.execution.metrics import ExecutionMetrics, ToolMetrics

__all__ = ["metrics_table", "tool_stats"]


def tool_stats(metrics: ToolMetrics) -> dict[str, Any]:
    """``{"calls", "failures", "p50_ms", "p95_ms"}`` of one tool."""
    return {
        "calls": metrics.calls,
        "failures": metrics.failures,
        "p50_ms": metrics.latency.p50_ms,
        "p95_ms": metrics.latency.p95_ms,
    }


def metrics_table(metrics: ExecutionMetrics | None) -> dict[str, Any]:
    """``{"enabled", "tools": {name: tool_stats}}``; empty and disabled without metrics."""
    if metrics is None:
        return {"enabled": False, "tools": {}}
    snapshot = metrics.snapshot()
    return {"enabled": True, "tools": {n: tool_stats(m) for n, m in snapshot.tools.items()}}
