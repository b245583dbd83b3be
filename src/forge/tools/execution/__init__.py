"""Running tool calls: the one engine, its drivers and what plugs into it.

`executor.ToolExecutor` is the public entry point; the registry's run methods and
`BaseTool.execute` drive the same engine (`_pipeline`). Hooks, permissions and
metrics plug into it; `failures` writes every message a model sees. Execution
reads tools from a `forge.tools.model.source.ToolSource` (a store or a view), never from
the registry above it.

Importing this package loads nothing: asyncio and friends come with its modules, when a
name is first read. Besides the executor and its seams it exports what the
instance lifecycle of factory tools and the Ray backend share (`from_outcome`, `Limiter`,
`Waiter`, `complete`): for forge's own packages, not for applications.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge.core.lazy import lazy_face

if TYPE_CHECKING:
    from forge.tools.execution._drive import ASYNC_WAIT, BLOCKING_WAIT, Waiter, complete
    from forge.tools.execution._limits import Limiter
    from forge.tools.execution._steps import _from_outcome as from_outcome
    from forge.tools.execution.backend import Backend
    from forge.tools.execution.executor import ToolExecutor
    from forge.tools.execution.hooks import ExecutionHook, ToolInvocation
    from forge.tools.execution.metrics import (
        ExecutionMetrics,
        LatencyStats,
        MetricsSnapshot,
        ToolMetrics,
    )
    from forge.tools.execution.permissions import (
        Action,
        Approver,
        Decision,
        Match,
        PermissionPolicy,
        PermissionRequest,
        RuleBasedPolicy,
        authorize,
        authorize_sync,
    )

__all__ = [
    "ASYNC_WAIT",
    "Action",
    "Approver",
    "BLOCKING_WAIT",
    "Backend",
    "Decision",
    "ExecutionHook",
    "ExecutionMetrics",
    "LatencyStats",
    "Limiter",
    "Match",
    "MetricsSnapshot",
    "PermissionPolicy",
    "PermissionRequest",
    "RuleBasedPolicy",
    "ToolExecutor",
    "ToolInvocation",
    "ToolMetrics",
    "Waiter",
    "authorize",
    "authorize_sync",
    "complete",
    "from_outcome",
]

__getattr__, __dir__ = lazy_face(
    __name__,
    {
        "ASYNC_WAIT": "forge.tools.execution._drive",
        "Action": "forge.tools.execution.permissions",
        "Approver": "forge.tools.execution.permissions",
        "BLOCKING_WAIT": "forge.tools.execution._drive",
        "Backend": "forge.tools.execution.backend",
        "Decision": "forge.tools.execution.permissions",
        "ExecutionHook": "forge.tools.execution.hooks",
        "ExecutionMetrics": "forge.tools.execution.metrics",
        "LatencyStats": "forge.tools.execution.metrics",
        "Limiter": "forge.tools.execution._limits",
        "Match": "forge.tools.execution.permissions",
        "MetricsSnapshot": "forge.tools.execution.metrics",
        "PermissionPolicy": "forge.tools.execution.permissions",
        "PermissionRequest": "forge.tools.execution.permissions",
        "RuleBasedPolicy": "forge.tools.execution.permissions",
        "ToolExecutor": "forge.tools.execution.executor",
        "ToolInvocation": "forge.tools.execution.hooks",
        "ToolMetrics": "forge.tools.execution.metrics",
        "Waiter": "forge.tools.execution._drive",
        "authorize": "forge.tools.execution.permissions",
        "authorize_sync": "forge.tools.execution.permissions",
        "complete": "forge.tools.execution._drive",
        "from_outcome": "forge.tools.execution._steps:_from_outcome",
    },
)
