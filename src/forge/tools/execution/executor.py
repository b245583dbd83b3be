"""`ToolExecutor`: run tool calls safely, fast and observably.

The executor never raises for anything a model can cause. An unknown tool,
arguments that are not JSON or do not match the schema, a denied call, a
timeout, a cancelled call and a handler exception all come back as a failed
`ToolResult` with an ``error_kind`` and a message written for the model
(`forge.tools.execution.failures`). It logs the start and the outcome of each call
(at DEBUG; failures at INFO).

Handler faults. Whatever a handler raises is the handler's fault
and becomes a failed result of its call (``error_kind`` ``tool_error``,
``metadata["exception_type"]`` naming the class), the rest of a batch going
on: any ``Exception`` (one whose ``__str__`` fails too: its message is then
replaced by a note), ``SystemExit`` (a tool calling ``sys.exit`` does not stop
a server), ``GeneratorExit`` and other ``BaseException`` subclasses. Two
exceptions are not faults: ``asyncio.CancelledError`` raised by a handler
itself gives a ``cancelled`` result (a cancellation of the caller propagates),
and ``KeyboardInterrupt`` always propagates (the user asked to stop): in a
batch the other calls are cancelled first and their results are dropped.

Outputs. A result is checked before it is called a success: an
output JSON cannot carry is a failed result naming why, never a success that
breaks `format_results` or the MCP server later: a generator or other
iterator (it can be read only once; return a list), an integer of more than
4,300 digits, text with a lone surrogate (UTF-8 cannot carry it), a cycle, or
an object no JSON rule converts. NaN and infinities are sent as the strings
``"NaN"``, ``"Infinity"`` and ``"-Infinity"`` (`forge.tools.values.jsonable`).

Every entry point, sync or async, runs the same pipeline
(`forge.tools.execution._pipeline`), so the same call gets the same result everywhere.

Where handlers run:

* An async handler is awaited in the caller's task (from sync code: on a
  private event loop).
* A sync handler runs on the executor's worker threads, so its deadline
  holds, unless the tool's ``placement`` is ``inline``: then it runs on the
  caller's thread or event loop, and its deadline cannot interrupt it. From
  sync code a call with no deadline at all also runs inline.
* With a ``backend`` (`forge.tools.execution.backend.Backend`), the handlers of
  the tools it accepts run there, stopped by it at the deadline; the Ray backend
  takes all but ``inline`` and ``local`` tools.

Timeouts. Each call's limit is the per-call ``timeout``, else the tool's
``timeout``, else the context's (the executor's context when a call has none).
It bounds the caller's wall time, including time spent waiting for a
concurrency slot, on sync and async entry points alike:

* An async handler is cancelled at the deadline. One that swallows the
  cancellation and keeps awaiting does not hold the caller: the rest of it is
  moved to a task of its own on the same event loop, cancelled once more and
  logged (a warning), and the caller gets its timeout result at once (a
  private event loop of a sync caller is left to a daemon thread until such
  tasks end). A handler that never awaits again blocks its event loop; place
  it in a ``process``.
* A sync handler on a worker thread cannot be stopped: Python has no way to
  kill a thread. The caller gets the timeout result at the deadline and the
  thread is *abandoned*: it runs to the end in the background, its result is
  discarded, and it occupies one worker until then (``abandoned_threads``
  counts them; calls still queued for a worker never start).
* A call left running after its deadline (a thread or a detached task)
  keeps its concurrency slots (the executor's ``max_concurrency`` and the
  tool's) until it really ends: ``max_concurrency=1`` never runs two at once.
  Later calls wait for the slot within their own deadline, and one whose
  deadline passes while waiting gets a ``timeout`` result that names the limit.
* A tool placed ``inline`` runs on your thread by your choice: nothing can
  pre-empt code running there, so its deadline is not enforced.
* A tool placed in a ``process`` runs each call in a separate process that is
  killed at the deadline (`forge.tools.execution._isolation`): use it for handlers that
  must really stop.

Cancellation. Cancelling the task that awaits a call or a batch cancels
the running async handlers (a batch waits until every one has stopped) and
kills isolated processes; `asyncio.CancelledError` then propagates, and hooks
and metrics record the call as ``cancelled``, never as a tool error. A handler
that raises `asyncio.CancelledError` by itself gets a ``cancelled`` result. A
sync handler on a worker thread is abandoned, as on timeout.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypedDict, Unpack, overload

from forge.core.redaction import Redaction, Redactor
from forge.tools.execution._batch import Batch
from forge.tools.execution._drive import complete, run_coroutine
from forge.tools.execution._pipeline import ASYNC, BLOCKING, Engine
from forge.tools.execution._steps import _check_limit, _coerce_call
from forge.tools.values.calls import ToolCall
from forge.tools.values.context import ExecutionContext
from forge.tools.values.output_limit import OutputLimit
from forge.tools.values.results import ToolResult

if TYPE_CHECKING:
    from forge.tools.execution.backend import Backend
    from forge.tools.execution.metrics import ExecutionMetrics
    from forge.tools.execution.permissions import Approver, PermissionPolicy
    from forge.tools.model.source import ToolSource
    from forge.tools.turns import Turn, TurnStream

__all__ = ["ToolExecutor"]


class ToolExecutor(Engine):
    """Runs tool calls from a registry: the one runner behind every way of running a tool.

    Args:
        registry: Where tools are looked up (on every call, so changes apply at once).
        context: The context of calls made without one (default: a fresh `ExecutionContext`).
        hooks: Execution hooks (`forge.tools.execution.hooks`), run in order.
        permissions: A permission policy (`forge.tools.execution.permissions`), checked
            for every call; a context's ``permissions`` is checked too, for its calls (the
            stricter wins).
        approve: Answers the policies' ``ask`` (sync or async); a context's ``approve``
            answers instead, for its calls.
        metrics: ``True`` to collect `ExecutionMetrics` (read ``executor.metrics``), or an
            `ExecutionMetrics` to use.
        max_concurrency: The most calls running at once across this executor.
        max_threads: Worker threads for sync handlers (daemon threads: a handler
            abandoned after its timeout never blocks interpreter exit).
        dry_run: Run every step but the handler for every call; a context's
            ``dry_run`` turns it on for the calls made with it, never off.
        output_limit: How much of an output goes back to the model, for tools that set
            none: an `OutputLimit`, ``max_chars``, or a mapping of its fields (default:
            `DEFAULT_OUTPUT_LIMIT`). Results keep their whole output.
        redact: What to take out of the message of every failed result, and so out of
            the log: a `Redaction` (values of named environment variables, regular
            expressions), ``True``/``None`` for the default ``Redaction()`` (values of
            environment variables whose names look secret: ``*TOKEN*``, ``*KEY*``,
            ``*SECRET*``, ``*PASSWORD*``, ... of 8 characters or more, read when the
            executor is created), or ``False`` for none.
        backend: Run handlers elsewhere: a `Backend` such as
            `forge.tools.integrations.ray.RayBackend` runs the handlers of the tools it
            accepts on its workers; everything else (validation, permissions, hooks,
            metrics, limits, deadlines) stays here. ``close()`` closes it.
    """

    def __init__(
        self,
        registry: ToolSource,
        *,
        context: ExecutionContext | None = None,
        hooks: Iterable[Any] = (),
        permissions: PermissionPolicy | None = None,
        approve: Approver | None = None,
        metrics: bool | ExecutionMetrics = False,
        max_concurrency: int | None = None,
        max_threads: int = 32,
        dry_run: bool = False,
        output_limit: OutputLimit | int | Mapping[str, Any] | None = None,
        redact: Redaction | bool | None = None,
        backend: Backend | None = None,
    ) -> None:
        limit = OutputLimit.coerce(output_limit)
        _check_limit("max_concurrency", max_concurrency)
        _check_limit("max_threads", max_threads)
        self._metrics: ExecutionMetrics | None = None
        if metrics is True:
            from forge.tools.execution.metrics import ExecutionMetrics

            self._metrics = ExecutionMetrics()
        elif metrics is not False:
            self._metrics = metrics
        installed = list(hooks)
        if self._metrics is not None and self._metrics not in installed:
            installed.append(self._metrics)
        super().__init__(
            registry, context if context is not None else ExecutionContext(),
            hooks=tuple(installed), permissions=permissions, approve=approve,
            max_concurrency=max_concurrency, max_threads=max_threads, dry_run=dry_run,
            output_limit=limit, redact=_redactor(redact), backend=backend,
        )  # fmt: skip

    # -- configuration ---------------------------------------------------------------

    @property
    def registry(self) -> ToolSource:
        """The registry tools are looked up in."""
        return self._registry

    @property
    def context(self) -> ExecutionContext | None:
        """The context of calls made without one."""
        return self._context

    @property
    def metrics(self) -> ExecutionMetrics | None:
        """The metrics collector, when metrics are on (``snapshot()`` reads them)."""
        return self._metrics

    @property
    def backend(self) -> Backend | None:
        """Where the handlers of the tools it accepts run (``None``: here)."""
        return self._backend

    @property
    def hooks(self) -> tuple[Any, ...]:
        """The installed hooks, in order."""
        return self._hooks

    @property
    def abandoned_threads(self) -> int:
        """Sync handlers still running on a worker after their call timed out or was cancelled."""
        return len(self._abandoned)

    def add_hook(self, hook: Any) -> None:
        """Install a hook after the others."""
        self._set_hooks((*self._hooks, hook))

    def remove_hook(self, hook: Any) -> None:
        """Uninstall a hook (no error if it is not installed)."""
        self._set_hooks(tuple(h for h in self._hooks if h is not hook))

    def get_all_schemas(self, format: str = "openai") -> list[dict[str, Any]]:
        """Return every tool's definition in a provider's format (``registry.to_provider``)."""
        from forge.tools.model.source import provider_definitions

        return provider_definitions(self._registry, format)

    # -- entry points: each async one and its sync twin share one pipeline -------------

    @overload
    async def execute(
        self, tool_name: str, context: ExecutionContext | None = None, /, **kwargs: Any
    ) -> ToolResult: ...
    @overload
    async def execute(
        self, /, *, tool_name: str, context: ExecutionContext | None = None, **kwargs: Any
    ) -> ToolResult: ...
    async def execute(self, /, *args: Any, **kwargs: Any) -> ToolResult:
        """Run ``tool_name`` with keyword arguments; never raises for model errors.

        The original executor's signature, kept: `run` with the arguments as keywords.

        Call it as ``execute("echo", ctx, text="hi")``, ``execute("echo", context=ctx,
        text="hi")`` or ``execute(tool_name="echo", context=ctx, text="hi")``. A tool
        argument called ``tool_name`` or ``context`` is passed as a keyword after the name
        and context given positionally (``execute("echo", None, context="x")``); a keyword
        ``context`` that is not an `ExecutionContext` (or ``None``) is a tool argument too.
        """
        if len(args) == 1 and "context" not in kwargs and "tool_name" not in kwargs:
            return await self.run(args[0], kwargs)  # the common call, without the split below
        name, context, arguments = _execute_arguments("execute", args, kwargs)
        return await self.run(name, arguments, context)

    @overload
    def execute_sync(
        self, tool_name: str, context: ExecutionContext | None = None, /, **kwargs: Any
    ) -> ToolResult: ...
    @overload
    def execute_sync(
        self, /, *, tool_name: str, context: ExecutionContext | None = None, **kwargs: Any
    ) -> ToolResult: ...
    def execute_sync(self, /, *args: Any, **kwargs: Any) -> ToolResult:
        """`execute` for sync code (called the same ways)."""
        name, context, arguments = _execute_arguments("execute_sync", args, kwargs)
        return self.run_sync(name, arguments, context)

    async def execute_call(
        self,
        call: ToolCall | Mapping[str, Any],
        context: ExecutionContext | None = None,
        *,
        timeout: float | None = None,
    ) -> ToolResult:
        """Run one `ToolCall` (or mapping); the result carries its ``call_id``."""
        return await self._entry_call(ASYNC, call, context or self._context, timeout)

    def execute_call_sync(
        self,
        call: ToolCall | Mapping[str, Any],
        context: ExecutionContext | None = None,
        *,
        timeout: float | None = None,
    ) -> ToolResult:
        """`execute_call` for sync code."""
        ctx = context or self._context
        return complete(self._entry_call(BLOCKING, call, ctx, timeout))

    async def execute_all(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any]],
        context: ExecutionContext | None = None,
        *,
        parallel: bool = True,
        max_concurrency: int | None = None,
        timeout: float | None = None,
    ) -> list[ToolResult]:
        """Run calls and return their results in call order.

        One call's failure does not affect the others. With ``parallel`` the
        calls run concurrently, at most ``max_concurrency`` at a time when set.
        Cancelling the awaiting task cancels every running call and returns
        only once they have all stopped.
        """
        _check_limit("max_concurrency", max_concurrency)
        ctx = context or self._context
        items = [_coerce_call(c) for c in calls]
        if not parallel or len(items) <= 1 or max_concurrency == 1:
            return [await self._entry_call(ASYNC, item, ctx, timeout) for item in items]
        return await self._gather(items, ctx, timeout, max_concurrency)

    def execute_all_sync(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any]],
        context: ExecutionContext | None = None,
        **options: Unpack[BatchOptions],
    ) -> list[ToolResult]:
        """`execute_all` for sync code, with the same options.

        With ``parallel`` the batch runs on a private event loop; without it,
        calls run one after another on this thread's pipeline.
        """
        if options.get("parallel", True):
            return run_coroutine(self.execute_all(calls, context, **options))  # type: ignore[no-any-return]
        timeout = options.get("timeout")
        ctx = context or self._context
        return [complete(self._entry_call(BLOCKING, item, ctx, timeout)) for item in calls]

    async def _gather(
        self,
        items: list[ToolCall | ToolResult],
        ctx: ExecutionContext | None,
        timeout: float | None,
        limit: int | None,
    ) -> list[ToolResult]:
        """Run calls concurrently, at most ``limit`` at a time (`forge.tools.execution._batch`)."""
        batch = Batch(self, len(items), ctx, timeout)
        if limit is None or limit >= len(items):
            return await batch.run(items)
        return await batch.run_limited(items, limit)

    # -- turns of a tool loop (`forge.tools.turns`) -----------------------------------

    async def run_turn(
        self, response: Any, context: ExecutionContext | None = None,
        *, provider: str | None = None, timeout: float | None = None,
    ) -> Turn:  # fmt: skip
        """Run the calls of one model response; return the `Turn` to append.

        Args:
            response: The response as the SDK returns it (or a dict, JSON text, a stream
                to read to its end, sync or async, or a finished `TurnBuilder`).
            context: The calls' context (default: the executor's).
            provider: Detected from the response when ``None``.
            timeout: Seconds each call may take.

        The calls run concurrently through this executor (permissions, hooks, timeouts,
        metrics); what a model gets wrong comes back as failed results, never raised.

        Raises:
            ToolCallFormatError: The response is not in a provider's shape.
        """
        from forge.tools.turns import aread_finished

        assistant = await aread_finished(response, provider)
        return assistant.answer(await self.execute_all(assistant.calls, context, timeout=timeout))

    def run_turn_sync(
        self, response: Any, context: ExecutionContext | None = None,
        *, provider: str | None = None, timeout: float | None = None,
    ) -> Turn:  # fmt: skip
        """`run_turn` for sync code (a stream given is a sync one)."""
        from forge.tools.turns import read_finished

        assistant = read_finished(response, provider)
        results = self.execute_all_sync(assistant.calls, context, timeout=timeout)
        return assistant.answer(results)

    def stream_turn(
        self, stream: Any, context: ExecutionContext | None = None,
        *, provider: str | None = None, timeout: float | None = None,
    ) -> TurnStream:  # fmt: skip
        """Read a streamed response: iterate for its text, then read ``.turn``.

        ``stream`` is what the SDK returned with ``stream=True`` (sync or async, SDK
        events or dicts). Read with ``async for``, each call starts as soon as the stream
        completes it; with ``for``, the calls run when the stream ends.
        """
        from forge.tools.turns import TurnBuilder, TurnStream

        return TurnStream(
            stream, TurnBuilder(provider),
            run_all=lambda calls: self.execute_all_sync(calls, context, timeout=timeout),
            run_one=lambda call: self.execute_call(call, context, timeout=timeout),
        )  # fmt: skip

    # -- lifecycle --------------------------------------------------------------------

    def close(self) -> None:
        """Stop the worker threads and close the backend, if any.

        Abandoned handlers finish on their own; queued calls drop.
        """
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown()
        if self._backend is not None:
            self._backend.close()

    def __enter__(self) -> ToolExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> ToolExecutor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<ToolExecutor registry={self._registry!r} hooks={len(self._hooks)}>"


def _execute_arguments(
    method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[str, ExecutionContext | None, dict[str, Any]]:
    """Split ``execute(tool_name, context, **kwargs)``, however it was called.

    Positional name and context leave every keyword to the tool. Otherwise ``tool_name=``
    is the name, and ``context=`` the context when it is one (or ``None``).
    """
    if len(args) == 2:
        return args[0], args[1], kwargs
    if len(args) > 2:
        raise TypeError(
            f"{method}() takes the tool name and the context positionally, then the tool's "
            f"arguments as keywords; got {len(args)} positional arguments"
        )
    if args:
        name = args[0]
    elif "tool_name" in kwargs:
        name = kwargs.pop("tool_name")
    else:
        raise TypeError(f"{method}() missing the tool name: {method}('echo', context, **arguments)")
    given = kwargs.get("context", ())
    if given is None or isinstance(given, ExecutionContext):
        del kwargs["context"]
        return name, given, kwargs
    return name, None, kwargs


class BatchOptions(TypedDict, total=False):
    """The options of `ToolExecutor.execute_all` (and of its sync twin)."""

    parallel: bool
    max_concurrency: int | None
    timeout: float | None


def contextless(
    registry: ToolSource, on_failure: Callable[[str, ToolResult], ToolResult] | None = None
) -> ToolExecutor:
    """An executor whose calls have no context unless given one (the registry's runs).

    ``on_failure`` sees each failed result last and may raise instead of returning it
    (the registry's ``execute`` and ``aexecute`` raise what the caller caused).
    """
    executor = ToolExecutor(registry)
    executor._context = None
    executor._on_failure = on_failure
    return executor


def _redactor(redact: Redaction | bool | None) -> Redactor | None:
    if redact is False:
        return None
    if redact is None or redact is True:
        return Redaction().compile()
    if not isinstance(redact, Redaction):
        raise TypeError(f"redact must be a Redaction, True, False or None, got {redact!r}")
    return redact.compile()
