"""Run tool handlers on a Ray cluster: `RayBackend`, a `Backend` for `ToolExecutor`.

``ToolExecutor(registry, backend=RayBackend("auto"))`` keeps the same API,
results and error contract as local execution; only the handlers move. Lookup,
validation, permissions, hooks, metrics, limits and deadlines stay in the
caller's process; each call's handler runs as a Ray task, with the resources its
tool declares (``resources={"num_cpus": 2, "num_gpus": 1, ...}``).

* **What ships.** A tool's handler is pickled (cloudpickle) and put in the
  object store once per tool object, then cached on each worker; a call sends
  only its validated arguments. Module-level functions travel by reference (their
  module must be importable on every node: install it there, or pass
  ``runtime_env={"py_modules": [...]}``), closures and lambdas by value. Tools
  placed ``inline`` or ``local`` never ship. A handler that cannot be pickled
  (say a closure over a lock or a client) runs here instead, with a
  `RemoteFallbackWarning`; set ``placement="local"`` on it to say so.
* **Backpressure.** At most ``max_in_flight`` calls are submitted at once, so a
  batch of 100,000 calls never floods the object store or the scheduler.
* **Stopping.** At a call's deadline, or when its caller is cancelled, the task
  is cancelled with ``force=True``: Ray kills the worker process, so even a
  busy-looping sync handler stops.
* **Failures are results.** A worker that crashes or is killed, a lost node,
  arguments or a result that cannot be pickled, a handler that cannot be loaded
  on the worker, a cluster that cannot be reached and resources no node has
  each come back as a failed `ToolResult` saying what happened; no call is lost.

Needs the ``ray`` extra. ``import forge.tools`` never imports Ray.
"""

from __future__ import annotations

import importlib
import pickle
import threading
import time
import uuid
import warnings
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from forge.core.errors import MissingDependencyError
from forge.tools.execution import Limiter, failures
from forge.tools.execution import from_outcome as _from_outcome
from forge.tools.integrations._ray_task import Shipped, dumps, run_call
from forge.tools.values.results import ErrorKind, ToolResult

if TYPE_CHECKING:
    from forge.tools.execution.hooks import ToolInvocation
    from forge.tools.model.tool import Tool
    from forge.tools.schema import Compiled
    from forge.tools.values.context import ExecutionContext

__all__ = ["RayBackend", "RemoteFallbackWarning"]

_LOCAL = ("inline", "local")
_CACHED_TOOLS = 1024
_RECHECK = 10.0
"""Seconds before a tool no node could run is checked against the cluster again."""


class RemoteFallbackWarning(RuntimeWarning):
    """A tool's handler cannot be shipped to the workers, so its calls run in this process."""


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise MissingDependencyError("ray", "ray") from exc
    return ray


@dataclass(slots=True)
class _Entry:
    """One tool as shipped: its task, its handler's reference, or why it cannot run there."""

    tool: Tool
    key: str
    task: Any = None
    box: list[Any] | None = None
    needs_context: bool = False
    failure: ToolResult | None = None
    checked: float = 0.0
    """When the failure was decided (a failed tool is shipped again `_RECHECK` s later)."""


class RayBackend:
    """Runs handlers as Ray tasks (see the module docstring for what ships and what not).

    Args:
        address: The cluster: ``"auto"`` (the one this machine belongs to),
            ``"ray://host:10001"`` (Ray Client) or ``"host:6379"``; ``None`` starts a
            local Ray instance unless Ray is already initialised in this process.
            Connecting happens on first use, or at `connect`.
        max_in_flight: The most calls submitted at once (default: twice the
            cluster's CPUs, at least 4). Further calls wait their turn here, within
            their deadline.
        max_retries: How many times Ray re-runs a call whose worker died (default 0:
            a tool call is not assumed to be idempotent; the failure is the result).
        runtime_env: Ray's ``runtime_env`` for the tasks (``py_modules``,
            ``pip``, ``env_vars``, ...), e.g. to make your tools' module importable on
            every node.
        check_resources: Check each tool's resources against the cluster's nodes
            before submitting, so a tool that needs what no node has fails at once
            instead of waiting forever (turn off with an autoscaler that adds nodes
            on demand; the call's deadline still bounds the wait).
        **init_options: More arguments for ``ray.init`` (``num_cpus``,
            ``include_dashboard``, ``namespace``, ...), used when this backend connects.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        max_in_flight: int | None = None,
        max_retries: int = 0,
        runtime_env: Mapping[str, Any] | None = None,
        check_resources: bool = True,
        **init_options: Any,
    ) -> None:
        if max_in_flight is not None and (
            isinstance(max_in_flight, bool) or not isinstance(max_in_flight, int)
            or max_in_flight < 1
        ):  # fmt: skip
            raise ValueError(f"max_in_flight must be a positive integer, got {max_in_flight!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be zero or a positive integer, got {max_retries!r}")
        self.address = address
        self._max_in_flight = max_in_flight
        self._max_retries = max_retries
        self._runtime_env = dict(runtime_env) if runtime_env is not None else None
        self._check = check_resources
        self._init_options = init_options
        self._lock = threading.RLock()
        self._ray: Any = None
        self._started = False
        self._window: Limiter | None = None
        self._task: Any = None
        self._nodes: tuple[float, list[dict[str, float]]] = (0.0, [])
        self._entries: OrderedDict[int, _Entry] = OrderedDict()
        self._otel: Any = _optional_otel()
        _ray()  # fail now, not at the first call, when the extra is missing

    # -- connection -----------------------------------------------------------------------

    def connect(self) -> None:
        """Connect to the cluster (or start a local one) now rather than on the first call.

        Raises:
            ConnectionError: The cluster cannot be reached (calls made later get a
                failed result saying so instead).
            MissingDependencyError: Ray is not installed.
        """
        with self._lock:
            if self._ray is not None:
                return
            ray = _ray()
            if not ray.is_initialized():
                options = dict(self._init_options)
                if self._runtime_env is not None:
                    options.setdefault("runtime_env", self._runtime_env)
                try:
                    ray.init(address=self.address, **options)
                except Exception as exc:
                    where = self.address or "a new local one"
                    raise ConnectionError(
                        f"cannot connect to the Ray cluster at {where!r} "
                        f"({type(exc).__name__}: {exc}); check the address (`ray status` on "
                        "a node shows it) and that this Ray and Python match the cluster's"
                    ) from exc
                self._started = True
            window = self._max_in_flight or max(4, 2 * int(ray.cluster_resources().get("CPU", 0)))
            self._window = Limiter(window)
            options = {"max_retries": self._max_retries}
            if self._runtime_env is not None:
                options["runtime_env"] = self._runtime_env
            self._task = ray.remote(**options)(run_call)
            self._ray = ray

    @property
    def max_in_flight(self) -> int | None:
        """The most calls submitted at once (known once connected)."""
        return self._window.limit if self._window is not None else self._max_in_flight

    def close(self) -> None:
        """Forget the shipped handlers; shut Ray down if this backend started it."""
        with self._lock:
            ray, self._ray = self._ray, None
            self._entries.clear()
            self._task = self._window = None
            if ray is not None and self._started and ray.is_initialized():
                ray.shutdown()
            self._started = False

    # -- the Backend protocol -------------------------------------------------------------

    def accepts(self, tool: Tool) -> bool:
        """Whether ``tool``'s calls run on Ray (connecting and shipping it on first use)."""
        if tool.placement in _LOCAL:
            return False
        entry = self._entry(tool)
        return entry.task is not None or entry.failure is not None

    async def run(self, call: ToolInvocation, compiled: Compiled) -> ToolResult:
        """Run the call's handler as a Ray task; failures of any kind come back as results."""
        entry = self._entry(call.tool)  # type: ignore[arg-type]
        if entry.failure is not None:
            return entry.failure
        payload = self._payload(entry, call)
        if isinstance(payload, ToolResult):
            return payload
        window: Limiter = self._window  # type: ignore[assignment]
        await window.acquire()
        try:
            return await self._submit(entry, payload)
        finally:
            window.release()

    async def _submit(self, entry: _Entry, payload: bytes) -> ToolResult:
        ray = self._ray
        try:
            ref = entry.task.remote(entry.key, entry.box, payload)
        except Exception as exc:  # Ray shut down under us, or refused the task
            return _lost(entry.tool, exc, ray)
        try:
            blob = await ref
        except BaseException as exc:
            if not isinstance(exc, ray.exceptions.RayError):
                ray.cancel(ref, force=True)  # the deadline passed or the caller cancelled
                raise
            return _lost(entry.tool, exc, ray)
        return _result(entry.tool, pickle.loads(blob))

    # -- shipping -------------------------------------------------------------------------

    def _entry(self, tool: Tool) -> _Entry:
        """The tool as shipped; one that could not run is looked at again now and then."""
        entry = self._entries.get(id(tool))
        if (
            entry is None or entry.tool is not tool
            or (entry.failure is not None and time.monotonic() - entry.checked > _RECHECK)
        ):  # fmt: skip
            entry = self._ship(tool)
        return entry

    def _ship(self, tool: Tool) -> _Entry:
        """Connect, check the tool's resources and put its handler in the object store."""
        with self._lock:
            entry = _Entry(tool, uuid.uuid4().hex, checked=time.monotonic())
            try:
                self.connect()
            except ConnectionError as exc:
                entry.failure = _unreachable(tool, exc)
                return self._remember(entry)
            entry.failure = self._infeasible(tool)
            if entry.failure is not None:
                return self._remember(entry)
            compiled = tool._compiled or tool.compiled()
            try:
                blob = dumps(Shipped(tool.name, compiled.invoke))
            except Exception as exc:
                _warn_local(tool, exc)
                return self._remember(entry)  # neither task nor failure: runs here
            entry.box = [self._ray.put(blob)]
            entry.needs_context = compiled.fn is None
            resources = tool.resources.to_options() if tool.resources is not None else {}
            entry.task = self._task.options(**resources) if resources else self._task
            return self._remember(entry)

    def _remember(self, entry: _Entry) -> _Entry:
        self._entries[id(entry.tool)] = entry
        if len(self._entries) > _CACHED_TOOLS:
            self._entries.popitem(last=False)
        return entry

    def _payload(self, entry: _Entry, call: ToolInvocation) -> bytes | ToolResult:
        """The call's arguments pickled here, so that one that cannot be says so clearly."""
        context = _portable(call.context) if entry.needs_context else None
        carrier = self._otel.inject_context() if self._otel is not None else {}
        try:
            return dumps((call.kwargs, context, carrier))
        except Exception as exc:
            return _unsendable(entry.tool, "its arguments", exc)

    # -- resources ------------------------------------------------------------------------

    def _infeasible(self, tool: Tool) -> ToolResult | None:
        """A failure when no live node has the resources one call of ``tool`` needs."""
        if not self._check:
            return None
        needed = tool.resources.requirements() if tool.resources is not None else {}
        if not needed:
            needed = {"CPU": 1.0}  # Ray's default for a task
        nodes = self._node_resources()
        if any(all(node.get(k, 0.0) >= v for k, v in needed.items()) for node in nodes):
            return None
        return _no_node(tool, needed, nodes)

    def _node_resources(self) -> list[dict[str, float]]:
        at, nodes = self._nodes
        if time.monotonic() - at > _RECHECK or not nodes:
            nodes = [dict(n["Resources"]) for n in self._ray.nodes() if n.get("Alive")]
            self._nodes = (time.monotonic(), nodes)
        return nodes

    def __repr__(self) -> str:
        state = "connected" if self._ray is not None else "not connected"
        return f"<RayBackend address={self.address!r} {state}>"


# -- outcomes to results ---------------------------------------------------------------------


def _result(tool: Tool, outcome: tuple[Any, ...]) -> ToolResult:
    kind = outcome[0]
    if kind == "cancelled":
        return failures.cancelled(tool.name)
    if kind == "unloadable":
        return _failed(
            tool,
            f"Tool {tool.name!r} could not be loaded on the Ray worker ({outcome[1]}). Its "
            "module must be importable on every node: install it there or pass "
            "runtime_env={'py_modules': [...]} to RayBackend. Do not retry it.",
            "HandlerUnloadable",
        )
    if kind == "unsent":
        return _failed(
            tool,
            f"Tool {tool.name!r} returned a {outcome[1]} that cannot be sent back from the Ray "
            f"worker ({outcome[2]}). This is a bug in the tool; do not retry it.",
            "ResultNotPicklable",
        )
    return _from_outcome(tool, outcome)


def _lost(tool: Tool, exc: BaseException, ray: Any) -> ToolResult:
    """A call Ray could not finish: a dead worker or node, a cancelled or lost task."""
    errors = ray.exceptions
    if isinstance(exc, errors.TaskCancelledError):
        return failures.cancelled(tool.name)
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, errors.WorkerCrashedError):
        why = "the Ray worker running it died (it crashed, exited or was killed)"
    elif isinstance(exc, errors.NodeDiedError):
        why = "the Ray node running it left the cluster"
    elif isinstance(exc, errors.OutOfMemoryError):
        why = "Ray killed its worker because the node ran out of memory"
    else:
        why = f"Ray could not finish it ({type(exc).__name__})"
    out_of_memory = isinstance(exc, errors.OutOfMemoryError)
    return failures.crashed(
        tool.name, failures.limit(f"{why} ({detail})" if detail else why, 400),
        type_name=type(exc).__name__, smaller=out_of_memory,
    )  # fmt: skip


def _failed(tool: Tool, message: str, type_name: str) -> ToolResult:
    return ToolResult.fail(
        failures.limit(message), error_kind=ErrorKind.TOOL_ERROR, retryable=False,
        exception_type=type_name,
    ).for_call(None, tool.name)  # fmt: skip


def _unsendable(tool: Tool, what: str, exc: Exception) -> ToolResult:
    return _failed(
        tool,
        f"Tool {tool.name!r} could not be sent to a Ray worker: {what} cannot be pickled "
        f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}). Give it "
        "picklable values, or set placement='local' on the tool. Do not retry it.",
        "ArgumentsNotPicklable",
    )


def _unreachable(tool: Tool, exc: ConnectionError) -> ToolResult:
    return _failed(tool, f"Tool {tool.name!r} could not run: {exc}.", "ClusterUnreachable")


def _no_node(tool: Tool, needed: dict[str, float], nodes: list[dict[str, float]]) -> ToolResult:
    wants = ", ".join(f"{k}={v:g}" for k, v in sorted(needed.items()))
    has = "; ".join(
        ", ".join(f"{k}={node.get(k, 0.0):g}" for k in sorted(needed)) for node in nodes[:5]
    )
    return _failed(
        tool,
        f"Tool {tool.name!r} cannot run: it needs {wants} on one node, and no node of the Ray "
        f"cluster has that (nodes: {has or 'none alive'}). Lower the tool's resources or add "
        "a node that has them. Do not retry it.",
        "ResourcesUnavailable",
    )


def _warn_local(tool: Tool, exc: Exception) -> None:
    warnings.warn(
        f"tool {tool.name!r} cannot be shipped to Ray workers: its handler cannot be pickled "
        f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); its calls "
        "run in this process. Set placement='local' on it to say so, or make it picklable",
        RemoteFallbackWarning,
        stacklevel=2,
    )


def _portable(context: ExecutionContext) -> ExecutionContext | None:
    """The context a worker's handler gets: no callbacks, metadata only if it pickles."""
    stripped = context.replace(
        permissions=None, approve=None, on_progress=None, on_log=None, on_elicit=None,
        on_sample=None,
    )  # fmt: skip
    try:
        dumps(stripped.metadata)
    except Exception:
        return stripped.replace(metadata={})
    return stripped


def _optional_otel() -> Any:
    """The OpenTelemetry integration, when this installation has it."""
    try:
        otel = importlib.import_module("forge.tools.integrations.otel")
    except ImportError:
        return None
    return otel if hasattr(otel, "inject_context") else None
