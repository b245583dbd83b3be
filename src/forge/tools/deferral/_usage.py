"""Which tools a deployment calls most: from an executor's metrics or a usage mapping."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

__all__ = ["Usage", "most_used", "usage_counts"]

#: What ``usage=`` takes: an `ExecutionMetrics` (a deployment's live counts), a
#: `MetricsSnapshot`, or a mapping of tool name to how many times it was called.
Usage: TypeAlias = "Mapping[str, int] | Any"


def usage_counts(usage: Any) -> dict[str, int]:
    """Calls per tool name from ``usage`` (see `Usage`).

    Raises:
        TypeError: ``usage`` is none of the accepted kinds, or a count is not a number.
    """
    from forge.tools.execution.metrics import ExecutionMetrics, MetricsSnapshot

    if isinstance(usage, ExecutionMetrics):
        usage = usage.snapshot()
    if isinstance(usage, MetricsSnapshot):
        return {name: metrics.calls for name, metrics in usage.tools.items()}
    if not isinstance(usage, Mapping):
        raise TypeError(
            f"usage= takes an ExecutionMetrics, a MetricsSnapshot or a mapping of tool name "
            f"to calls, got {type(usage).__name__}"
        )
    out: dict[str, int] = {}
    for name, count in usage.items():
        if not isinstance(name, str) or isinstance(count, bool) or not isinstance(count, int):
            raise TypeError(
                f"usage= maps tool names to call counts (whole numbers), got {name!r}: {count!r}"
            )
        out[name] = count
    return out


def most_used(usage: Any, n: int, known: Any) -> list[str]:
    """The (at most) ``n`` most-called tools of ``usage`` that ``known(name)`` accepts.

    Most calls first; a tie keeps ``usage``'s order. Tools never called are not chosen.
    """
    counts = usage_counts(usage)
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    return [name for name, count in ranked if count > 0 and known(name)][:n]
