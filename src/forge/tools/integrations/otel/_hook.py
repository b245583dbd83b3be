"""`OpenTelemetryHook`: a span, a duration and a count per tool call (GenAI conventions).

Each call gets an ``INTERNAL`` span named ``execute_tool {gen_ai.tool.name}`` that is
current while the handler runs, so what the handler does (HTTP requests, nested tool
calls, a remote MCP tool) nests under it. Attributes:

* ``gen_ai.operation.name`` = ``execute_tool``, ``gen_ai.tool.name``;
* ``gen_ai.tool.call.id`` (when the call came from a `ToolCall`),
  ``gen_ai.tool.description`` and ``gen_ai.tool.type`` (`tool_type`);
* on failure, ``error.type`` = the result's `ErrorKind` (``invalid_json``,
  ``unknown_tool``, ``invalid_arguments``, ``denied``, ``timeout``, ``cancelled``,
  ``tool_error``) and the span status ``ERROR`` with the first line of the message;
* opt-in, as the conventions ask for content that may be sensitive:
  ``gen_ai.tool.call.arguments`` (``capture_arguments``) and ``gen_ai.tool.call.result``
  (``capture_results``), as JSON text cut to ``max_captured_chars``.

Metrics: the conventions' ``gen_ai.client.operation.duration`` histogram (seconds, their
bucket boundaries) and a ``forge.tool.calls`` counter, both with
``gen_ai.operation.name``, ``gen_ai.tool.name`` (left out for unknown tools, so made-up
names cannot grow the series) and ``error.type`` on failures.

With no provider configured (the OpenTelemetry API alone gives no-op proxies) or without
OpenTelemetry installed, the hook is inert: ``active`` is ``False`` and the executor
leaves it out, keeping its fast paths. The providers are looked up when the hook is
created: configure OpenTelemetry first.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

import forge
from forge.tools.execution.hooks import ExecutionHook
from forge.tools.values.categories import ToolCategory

if TYPE_CHECKING:
    from opentelemetry.metrics import Meter, MeterProvider
    from opentelemetry.trace import Tracer, TracerProvider

    from forge.tools.execution.executor import ToolExecutor
    from forge.tools.execution.hooks import ToolInvocation
    from forge.tools.model.tool import Tool
    from forge.tools.values.results import ToolResult

__all__ = ["DURATION_BUCKETS", "OpenTelemetryHook", "instrument", "tool_type"]

OPERATION = "execute_tool"
DURATION_METRIC = "gen_ai.client.operation.duration"
CALLS_METRIC = "forge.tool.calls"
DURATION_BUCKETS = (
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
)  # fmt: skip
"""The histogram's bucket boundaries in seconds, as the GenAI metric conventions give them."""
TOOL_TYPE_KEY = "gen_ai.tool.type"
"""A tool's ``metadata.extra`` key that overrides `tool_type`."""
_TOOL_TYPES = frozenset({"function", "extension", "datastore"})
_STATE = "otel"


def tool_type(tool: Tool) -> str:
    """The ``gen_ai.tool.type`` of a tool.

    ``datastore`` for the ``database`` category, ``extension`` for tools that call out to
    another system (``mcp`` and ``api``), ``function`` for the rest; a tool's
    ``metadata.extra["gen_ai.tool.type"]`` overrides it.
    """
    chosen = tool.metadata.extra.get(TOOL_TYPE_KEY)
    if chosen in _TOOL_TYPES:
        return str(chosen)
    category = tool.metadata.category
    if category is ToolCategory.DATABASE:
        return "datastore"
    if category is ToolCategory.MCP or category is ToolCategory.API:
        return "extension"
    return "function"


class OpenTelemetryHook(ExecutionHook):
    """Traces and measures every call of the executor it is installed in.

    Args:
        tracer_provider: Where spans go (default: the global provider, if one is set).
        meter_provider: Where metrics go (default: the global provider, if one is set).
        capture_arguments: Record the arguments as ``gen_ai.tool.call.arguments``.
        capture_results: Record a successful output as ``gen_ai.tool.call.result``.
        max_captured_chars: Where captured arguments, results and descriptions are cut.
    """

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        capture_arguments: bool = False,
        capture_results: bool = False,
        max_captured_chars: int = 4096,
    ) -> None:
        if max_captured_chars < 1:
            raise ValueError(f"max_captured_chars must be at least 1, got {max_captured_chars}")
        self.capture_arguments = capture_arguments
        self.capture_results = capture_results
        self.max_captured_chars = max_captured_chars
        self._tracer = _tracer(tracer_provider)
        self._duration: Any = None
        self._calls: Any = None
        meter = _meter(meter_provider)
        if meter is not None:
            self._duration = meter.create_histogram(
                DURATION_METRIC, unit="s", description="GenAI operation duration.",
                explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
            )  # fmt: skip
            self._calls = meter.create_counter(
                CALLS_METRIC, unit="{call}", description="Tool calls, by tool and error type."
            )
        if self._tracer is not None:
            from opentelemetry import context, trace

            self._context, self._trace = context, trace
        self.active = self._tracer is not None or meter is not None
        """Whether the hook records anything (an inert hook is left out by the executor)."""

    def before_call(self, call: ToolInvocation) -> None:
        """Start the call's span and make it current (the hook method)."""
        tracer = self._tracer
        if tracer is None:
            return
        span = tracer.start_span(
            f"{OPERATION} {call.name}",
            kind=self._trace.SpanKind.INTERNAL,
            attributes=self._attributes(call),
        )
        token = self._context.attach(self._trace.set_span_in_context(span))
        call.state[_STATE] = (span, token)

    def after_call(self, call: ToolInvocation, result: ToolResult) -> None:
        """Record the outcome, end the span and count the call (the hook method)."""
        error = None if result.success else str(result.error_kind or "tool_error")
        if self._duration is not None:
            labels = {"gen_ai.operation.name": OPERATION}
            if call.tool is not None:
                labels["gen_ai.tool.name"] = call.name
            if error is not None:
                labels["error.type"] = error
            self._duration.record(time.perf_counter() - call.started, labels)
            self._calls.add(1, labels)
        if self._tracer is not None:
            self._end_span(self._tracer, call, result, error)

    def _end_span(
        self, tracer: Tracer, call: ToolInvocation, result: ToolResult, error: str | None
    ) -> None:
        held = call.state.pop(_STATE, None)
        if held is None:  # the call stopped before the hooks ran (unknown tool, bad arguments)
            span, token = self._late_span(tracer, call), None
        else:
            span, token = held
        if error is not None:
            span.set_attribute("error.type", error)
            message = (result.error or error).strip().splitlines() or [error]
            status = self._trace.Status(self._trace.StatusCode.ERROR, message[0][:200])
            span.set_status(status)
        elif self.capture_results:
            span.set_attribute("gen_ai.tool.call.result", self._dump(result.output))
        if result.success and result.metadata.get("dry_run") is True:
            span.set_attribute("forge.tool.dry_run", True)
        if token is not None:
            self._context.detach(token)
        span.end()

    def _late_span(self, tracer: Tracer, call: ToolInvocation) -> Any:
        elapsed_ns = int((time.perf_counter() - call.started) * 1e9)
        return tracer.start_span(
            f"{OPERATION} {call.name}",
            kind=self._trace.SpanKind.INTERNAL,
            attributes=self._attributes(call),
            start_time=time.time_ns() - elapsed_ns,
        )

    def _attributes(self, call: ToolInvocation) -> dict[str, Any]:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": OPERATION,
            "gen_ai.tool.name": call.name,
        }
        if call.call_id is not None:
            attributes["gen_ai.tool.call.id"] = call.call_id
        tool = call.tool
        if tool is not None:
            attributes["gen_ai.tool.type"] = tool_type(tool)
            if tool.description:
                attributes["gen_ai.tool.description"] = tool.description[: self.max_captured_chars]
        if self.capture_arguments:
            attributes["gen_ai.tool.call.arguments"] = self._dump(call.arguments)
        return attributes

    def _dump(self, value: Any) -> str:
        if isinstance(value, str):
            text = value
        else:
            try:
                text = json.dumps(value, ensure_ascii=False, default=str)
            except ValueError:  # a circular structure
                text = repr(value)
        return text[: self.max_captured_chars]

    def __repr__(self) -> str:
        return f"<OpenTelemetryHook active={self.active}>"


def instrument(executor: ToolExecutor, **options: Any) -> OpenTelemetryHook:
    """Install an `OpenTelemetryHook` (built with ``options``) first in ``executor``'s hooks.

    First, so that its span covers the other hooks' work too. Returns the hook
    (``executor.remove_hook(hook)`` uninstalls it).
    """
    hook = OpenTelemetryHook(**options)
    others = executor.hooks
    for other in others:
        executor.remove_hook(other)
    for each in (hook, *others):
        executor.add_hook(each)
    return hook


def _tracer(provider: TracerProvider | None) -> Tracer | None:
    """A tracer from ``provider`` or the global one; ``None`` when neither records."""
    try:
        from opentelemetry import trace
    except ImportError:
        if provider is not None:
            raise
        return None
    if provider is None:
        provider = trace.get_tracer_provider()
    if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
        return None
    return provider.get_tracer("forge.tools", forge.__version__)


def _meter(provider: MeterProvider | None) -> Meter | None:
    """A meter from ``provider`` or the global one; ``None`` when neither records."""
    try:
        from opentelemetry import metrics
        from opentelemetry.metrics._internal import _ProxyMeterProvider
    except ImportError:
        if provider is not None:
            raise
        return None
    if provider is None:
        provider = metrics.get_meter_provider()
    if isinstance(provider, _ProxyMeterProvider | metrics.NoOpMeterProvider):
        return None
    return provider.get_meter("forge.tools", forge.__version__)
