"""`inject_context` and `attach_context`: the trace context as a dict, across a boundary."""

from __future__ import annotations

import re
import threading
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from opentelemetry import propagate, trace
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from forge.tools.integrations.otel import attach_context, inject_context

from .conftest import Telemetry

TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$")
REMOTE = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


def test_nothing_to_inject_outside_a_span() -> None:
    """With no current span there is no trace context to send."""
    assert inject_context() == {}


def test_inject_gives_the_current_span_as_traceparent(telemetry: Telemetry) -> None:
    """Inside a span the carrier holds a W3C traceparent naming that span."""
    tracer = telemetry.tracer_provider.get_tracer("test")
    with tracer.start_as_current_span("caller") as span:
        carrier = inject_context()
    found = TRACEPARENT.match(carrier["traceparent"])
    assert found is not None
    ids = span.get_span_context()
    assert found.group(1) == f"{ids.trace_id:032x}"
    assert found.group(2) == f"{ids.span_id:016x}"


def test_attach_makes_the_remote_span_the_parent(telemetry: Telemetry) -> None:
    """Spans started inside attach_context(carrier) continue the sender's trace."""
    tracer = telemetry.tracer_provider.get_tracer("test")
    with attach_context({"traceparent": REMOTE}):
        with tracer.start_as_current_span("worker"):
            pass
        assert inject_context()["traceparent"] == REMOTE  # passed on unchanged
    (span,) = telemetry.spans()
    assert span.parent is not None
    assert span.parent.is_remote
    assert f"{span.parent.trace_id:032x}" == "0af7651916cd43dd8448eb211c80319c"
    assert f"{span.parent.span_id:016x}" == "b7ad6b7169203331"
    assert not trace.get_current_span().get_span_context().is_valid  # detached again


def test_round_trip_to_another_thread(telemetry: Telemetry) -> None:
    """A carrier taken in one thread parents the spans of another (a worker's view)."""
    tracer = telemetry.tracer_provider.get_tracer("test")

    def worker(carrier: dict[str, str]) -> None:
        with attach_context(carrier), tracer.start_as_current_span("remote work"):
            pass

    with tracer.start_as_current_span("caller") as caller:
        thread = threading.Thread(target=worker, args=(inject_context(),))
        thread.start()
        thread.join()
    remote = next(s for s in telemetry.spans() if s.name == "remote work")
    assert remote.parent is not None
    assert remote.parent.span_id == caller.get_span_context().span_id
    assert remote.context is not None
    assert remote.context.trace_id == caller.get_span_context().trace_id


def test_a_carrier_without_a_trace_keeps_the_current_context(telemetry: Telemetry) -> None:
    """Empty, malformed or foreign carriers change nothing (the current span stays the parent)."""
    tracer = telemetry.tracer_provider.get_tracer("test")
    with tracer.start_as_current_span("caller") as caller:
        for carrier in [None, {}, {"traceparent": "garbage"}, {"progressToken": 7}]:
            with attach_context(carrier):
                assert trace.get_current_span() is caller


def test_non_string_values_are_ignored(telemetry: Telemetry) -> None:
    """An MCP `_meta` mixes trace headers with other keys; only the strings are read."""
    tracer = telemetry.tracer_provider.get_tracer("test")
    meta: dict[str, object] = {"progressToken": 3, "io.example/flag": True, "traceparent": REMOTE}
    with attach_context(meta), tracer.start_as_current_span("served"):
        pass
    (span,) = telemetry.spans()
    assert span.parent is not None
    assert f"{span.parent.span_id:016x}" == "b7ad6b7169203331"


@given(st.dictionaries(st.text(max_size=20), st.one_of(st.text(max_size=80), st.integers())))
def test_any_carrier_is_safe(carrier: dict[str, object]) -> None:
    """Whatever arrives as a carrier, attaching it never raises and always detaches."""
    before = trace.get_current_span()
    with attach_context(carrier):
        pass
    assert trace.get_current_span() is before


def test_a_propagator_that_rejects_the_carrier_changes_nothing(telemetry: Telemetry) -> None:
    """A configured propagator raising on what it reads leaves the current context alone."""

    class Strict(TraceContextTextMapPropagator):
        def extract(self, carrier: Any, context: Any = None, getter: Any = None) -> Any:
            raise ValueError("not a header this propagator accepts")

    tracer = telemetry.tracer_provider.get_tracer("test")
    previous = propagate.get_global_textmap()
    propagate.set_global_textmap(Strict())
    try:
        with (
            tracer.start_as_current_span("caller") as caller,
            attach_context({"traceparent": REMOTE}),
        ):
            assert trace.get_current_span() is caller
    finally:
        propagate.set_global_textmap(previous)
