"""Trace context across process boundaries: W3C ``traceparent``/``tracestate`` in a dict.

The sender calls `inject_context` and ships the dict with the call (an MCP request's
``_meta``, a Ray task's arguments); the receiver runs the call inside
``attach_context(carrier)``, so spans it starts are children of the sender's span. Both
use the globally configured propagator (``OTEL_PROPAGATORS``, W3C trace context and
baggage by default) and cost next to nothing without OpenTelemetry.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

__all__ = ["attach_context", "inject_context"]


def inject_context() -> dict[str, str]:
    """The current trace context as propagation headers (``{"traceparent": ...}``).

    Empty when OpenTelemetry is not installed or nothing in this process is tracing:
    no span can be current before ``opentelemetry.context`` is imported, so the
    check is one dictionary lookup.
    """
    if "opentelemetry.context" not in sys.modules:
        return {}
    from opentelemetry import propagate

    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier


@contextmanager
def attach_context(carrier: Mapping[str, object] | None) -> Iterator[None]:
    """Run the block inside the trace context that ``carrier`` holds (from `inject_context`).

    A carrier that is empty, malformed or carries no trace leaves the current context
    as it is, and so does a process without OpenTelemetry. Values that are not strings
    are ignored (an MCP ``_meta`` also holds a progress token and protocol keys).
    """
    headers = {k: v for k, v in (carrier or {}).items() if isinstance(v, str)}
    if not headers:
        yield
        return
    try:
        from opentelemetry import context, propagate
    except ImportError:  # the sender traced; this process cannot
        yield
        return
    try:
        extracted = propagate.extract(headers, context=context.get_current())
    except (ValueError, TypeError):  # a propagator that rejects what it reads
        yield
        return
    token = context.attach(extracted)
    try:
        yield
    finally:
        context.detach(token)
