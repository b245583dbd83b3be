"""The Ray backend: local results, real stops, failures as results, resources, fallbacks.

Every test shares one local Ray instance (two CPUs and a custom ``forge_slot``
resource) started once for the module and shut down after it.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
import ray
from pydantic import AfterValidator

from forge.tools import ExecutionContext, ToolCall, ToolExecutor, ToolRegistry, tool
from forge.tools.integrations.ray import RayBackend, RemoteFallbackWarning
from tests.unit.tools.execution.test_engine_rules import CASES, REGISTRY, _outcome, _reference

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def backend() -> Iterator[RayBackend]:
    """One local Ray instance for the module; the backend joins it (and leaves it running)."""
    ray.init(
        num_cpus=2,
        resources={"forge_slot": 2},
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    remote = RayBackend()
    remote.connect()
    try:
        yield remote
    finally:
        remote.close()
        ray.shutdown()


# -- tools ---------------------------------------------------------------------------------


@tool
def where() -> int:
    """The process id the handler runs in."""
    return os.getpid()


@tool(resources={"resources": {"forge_slot": 1}, "num_cpus": 0.5})
def slotted() -> dict[str, Any]:
    """The resources Ray reserved for this call."""
    return dict(ray.get_runtime_context().get_assigned_resources())


@tool
def spin(path: str) -> int:
    """Write this process's id to ``path``, then loop forever without yielding."""
    Path(path).write_text(str(os.getpid()))
    n = 0
    while True:
        n += 1


@tool
def crash(how: str) -> int:
    """Leave the worker abruptly: ``exit`` (os._exit) or ``kill`` (SIGKILL to itself)."""
    if how == "exit":
        os._exit(3)
    os.kill(os.getpid(), signal.SIGKILL)
    return 0


def _stream(text: str) -> Any:
    return (word for word in text.split())


@tool
def count_words(text: Annotated[str, AfterValidator(_stream)]) -> int:
    """Count words; validation turns the text into a generator, which cannot be pickled."""
    return sum(1 for _ in text)


@tool
def gives_a_lock() -> Any:
    """Return a value that cannot be pickled."""
    return threading.Lock()


@tool(resources={"num_gpus": 1})
def needs_a_gpu() -> str:
    """Need a GPU no node has."""
    return "never"


@tool(resources={"resources": {"tpu_pod": 1}})
def needs_a_pod() -> str:
    """Need a custom resource no node has."""
    return "never"


@tool(resources={"num_cpus": 0.5})
def span() -> list[float]:
    """When this call started and ended (wall clock; the workers share this machine's)."""
    start = time.time()
    time.sleep(0.2)
    return [start, time.time()]


@tool(placement="local")
def stays_here() -> int:
    """Opted out: runs in the caller's process."""
    return os.getpid()


def _guarded_counter() -> Any:
    lock = threading.Lock()
    count = [0]

    def count_up() -> int:
        """Count calls under a lock (a closure that cannot be pickled)."""
        with lock:
            count[0] += 1
            return os.getpid()

    return tool(count_up)


counted = _guarded_counter()
OWN = ToolRegistry(
    [
        where,
        slotted,
        span,
        spin,
        crash,
        count_words,
        gives_a_lock,
        needs_a_gpu,
        needs_a_pod,
        stays_here,
    ]
)


def _gone(pid: int) -> bool:
    """Wait (a bounded while) for a process to disappear."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def _pid_in(path: Path) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if path.exists() and path.read_text():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"the handler never started ({path} is empty)")


# -- the engine's table of cases ---------------------------------------------------------------


def test_results_equal_local_execution_for_the_engines_table(backend: RayBackend) -> None:
    """Every case of the engine's table gives the local result through the Ray backend."""
    remote = ToolExecutor(REGISTRY, backend=backend)
    for name, case in CASES.items():
        ctx = ExecutionContext(**case.context) if case.context else None
        expected = _outcome(_reference(case, ctx))
        assert _outcome(remote.run_sync(case.name, case.arguments, ctx)) == expected, name
        got = asyncio.run(remote.run(case.name, case.arguments, ctx, call_id="c9"))
        assert (*_outcome(got), got.call_id) == (*expected, "c9"), name


def test_a_batch_comes_back_in_call_order_with_call_ids(backend: RayBackend) -> None:
    """A mixed batch (successes, failures, an unknown tool) keeps order and call ids."""
    remote = ToolExecutor(REGISTRY, backend=backend)
    calls = [
        ToolCall(f"c{i}", name, args)
        for i, (name, args) in enumerate(
            [("add", {"a": i, "b": 1}) for i in range(6)]
            + [("boom", {"x": 1}), ("nope", {}), ("aadd", {"a": 2, "b": 2})]
        )
    ]
    results = remote.execute_all_sync(calls)
    assert [r.call_id for r in results] == [c.id for c in calls]
    assert [r.output for r in results[:6]] == [1, 2, 3, 4, 5, 6]
    kinds = [r.error_kind for r in results[6:]]
    assert kinds == ["tool_error", "unknown_tool", None]
    assert results[-1].output == 4


def test_handlers_run_on_workers_and_opted_out_tools_here(backend: RayBackend) -> None:
    """A tool runs in a Ray worker; placement='local' keeps it in this process."""
    remote = ToolExecutor(OWN, backend=backend)
    assert remote.run_sync("where").output != os.getpid()
    assert remote.run_sync("stays_here").output == os.getpid()


def test_a_handler_that_cannot_be_pickled_runs_here_with_a_warning(backend: RayBackend) -> None:
    """A closure over a lock cannot ship: it runs locally, and a warning says why."""
    remote = ToolExecutor(ToolRegistry([counted]), backend=backend)
    with pytest.warns(RemoteFallbackWarning, match="count_up.*cannot be pickled"):
        result = remote.run_sync("count_up")
    assert result.output == os.getpid()
    assert remote.run_sync("count_up").success  # decided once: no second warning


def test_declared_resources_are_reserved_for_the_call(backend: RayBackend) -> None:
    """A tool's custom resources and CPUs are what Ray assigns to its task."""
    result = ToolExecutor(OWN, backend=backend).run_sync("slotted")
    assert result.output["forge_slot"] == 1
    assert result.output["CPU"] == 0.5


@pytest.mark.parametrize(
    ("name", "needs"), [("needs_a_gpu", "GPU=1"), ("needs_a_pod", "tpu_pod=1")]
)
def test_a_resource_no_node_has_fails_at_once(backend: RayBackend, name: str, needs: str) -> None:
    """Needing what no node has is a clear failure, not a task waiting forever."""
    result = ToolExecutor(OWN, backend=backend).run_sync(name, timeout=600)
    assert result.error_kind == "tool_error"
    assert result.metadata["exception_type"] == "ResourcesUnavailable"
    assert needs in (result.error or "")
    assert "no node" in (result.error or "")


# -- real stops ------------------------------------------------------------------------------


def test_a_timeout_kills_a_busy_looping_sync_tool(backend: RayBackend, tmp_path: Path) -> None:
    """At the deadline the worker running a busy loop is killed (sync and async callers)."""
    remote = ToolExecutor(OWN, backend=backend)
    runs = {
        "sync": lambda path: remote.run_sync("spin", {"path": path}, timeout=3),
        "async": lambda path: asyncio.run(remote.run("spin", {"path": path}, timeout=3)),
    }
    for caller, run in runs.items():
        marker = tmp_path / caller
        result = run(str(marker))
        assert result.error_kind == "timeout", caller
        assert _gone(_pid_in(marker)), caller


def test_cancelling_a_batch_kills_its_running_calls(backend: RayBackend, tmp_path: Path) -> None:
    """Cancelling execute_all raises CancelledError and kills every running worker."""
    remote = ToolExecutor(OWN, backend=backend)
    markers = [tmp_path / f"pid{i}" for i in range(2)]
    calls = [ToolCall(f"c{i}", "spin", {"path": str(m)}) for i, m in enumerate(markers)]

    async def main() -> list[int]:
        batch = asyncio.ensure_future(remote.execute_all(calls, timeout=120))
        pids = [await asyncio.to_thread(_pid_in, m) for m in markers]
        batch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await batch
        return pids

    pids = asyncio.run(main())
    assert all(_gone(pid) for pid in pids)


# -- failures as results -----------------------------------------------------------------------


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_a_worker_that_dies_mid_call_is_a_failed_result(backend: RayBackend, how: str) -> None:
    """os._exit or SIGKILL in the handler: the call fails with a clear message, others finish."""
    remote = ToolExecutor(OWN, backend=backend)
    calls = [ToolCall("a", "where", {}), ToolCall("b", "crash", {"how": how})]
    ok, died = remote.execute_all_sync(calls)
    assert ok.success
    assert ok.call_id == "a"
    assert (died.call_id, died.error_kind) == ("b", "tool_error")
    assert died.metadata["exception_type"] == "WorkerCrashedError"
    assert "worker running it died" in (died.error or "")


def test_an_argument_that_cannot_be_pickled_is_a_failed_result(backend: RayBackend) -> None:
    """A validated argument that cannot be pickled fails the call and names the problem."""
    assert ToolExecutor(OWN).run_sync("count_words", {"text": "a b c"}).output == 3
    result = ToolExecutor(OWN, backend=backend).run_sync("count_words", {"text": "a b c"})
    assert result.error_kind == "tool_error"
    assert result.metadata["retryable"] is False
    assert result.metadata["exception_type"] == "ArgumentsNotPicklable"
    assert "arguments cannot be pickled" in (result.error or "")


def test_a_result_that_cannot_be_pickled_is_a_failed_result(backend: RayBackend) -> None:
    """A handler returning an unpicklable value fails the call; the worker survives."""
    remote = ToolExecutor(OWN, backend=backend)
    result = remote.run_sync("gives_a_lock")
    assert result.error_kind == "tool_error"
    assert result.metadata["exception_type"] == "ResultNotPicklable"
    assert "cannot be sent back" in (result.error or "")
    assert remote.run_sync("where").success


def test_the_in_flight_window_bounds_submitted_calls(backend: RayBackend) -> None:
    """With max_in_flight=1 the calls of a batch never overlap, though two could run."""
    narrow = RayBackend(max_in_flight=1)
    narrow.connect()
    assert narrow.max_in_flight == 1
    calls = [ToolCall(f"c{i}", "span", {}) for i in range(4)]
    results = ToolExecutor(OWN, backend=narrow).execute_all_sync(calls)
    spans = sorted(r.output for r in results)
    assert all(end <= next_start for (_, end), (next_start, _) in itertools.pairwise(spans))
    narrow.close()
    assert ray.is_initialized()  # it joined Ray, so closing it leaves Ray running


def test_bad_backend_settings_are_rejected() -> None:
    """max_in_flight and max_retries are checked when the backend is made."""
    with pytest.raises(ValueError, match="max_in_flight"):
        RayBackend(max_in_flight=0)
    with pytest.raises(ValueError, match="max_retries"):
        RayBackend(max_retries=-1)


@tool
def trace_ids() -> list[str]:
    """The trace and span the worker's handler runs under (OpenTelemetry's current span)."""
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    return [format(context.trace_id, "032x"), format(context.span_id, "016x")]


def test_the_callers_trace_continues_in_the_worker(backend: RayBackend) -> None:
    """The worker's handler runs inside the caller's execute_tool span (propagated context)."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from forge.tools.integrations import otel

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    hook = otel.OpenTelemetryHook(tracer_provider=provider)
    traced = ToolExecutor(ToolRegistry([trace_ids]), hooks=[hook], backend=RayBackend())
    try:
        result = traced.run_sync("trace_ids")
    finally:
        provider.shutdown()
        traced.close()
    (span,) = [s for s in exporter.get_finished_spans() if s.name == "execute_tool trace_ids"]
    assert span.context is not None
    assert result.output == [
        format(span.context.trace_id, "032x"),
        format(span.context.span_id, "016x"),
    ]


def test_the_worker_task_answers_every_outcome_as_data(backend: RayBackend) -> None:
    """The task body (run here, as a worker runs it) never raises: each outcome is data."""
    import pickle

    from forge.tools.integrations._ray_task import Shipped, dumps, run_call

    def call(invoke: Any, kwargs: dict[str, Any], box: list[Any] | None = None) -> Any:
        key = os.urandom(8).hex()
        box = box or [ray.put(dumps(Shipped("t", invoke)))]
        return pickle.loads(run_call(key, box, dumps((kwargs, None, {}))))

    def boom(kwargs: dict[str, Any], _ctx: Any) -> Any:
        raise ValueError(f"no {kwargs['x']}")

    def gives_up(_kwargs: dict[str, Any], _ctx: Any) -> Any:
        raise asyncio.CancelledError

    async def later(kwargs: dict[str, Any], _ctx: Any) -> Any:
        return kwargs["x"] + 1

    assert call(lambda kw, _ctx: kw["x"] * 2, {"x": 2}) == ("ok", 4)
    assert call(later, {"x": 2}) == ("ok", 3)
    kind, type_name, message, trace = call(boom, {"x": 1})
    assert (kind, type_name, message) == ("error", "ValueError", "no 1")
    assert "ValueError: no 1" in trace
    assert call(gives_up, {}) == ("cancelled",)
    assert call(lambda _kw, _ctx: threading.Lock(), {})[:2] == ("unsent", "lock")
    assert call(lambda _kw, _ctx: 1, {}, [ray.put(b"not a pickle")])[0] == "unloadable"
