"""An SDK tracer and meter provider with in-memory exporters, one per test."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from forge.tools.integrations.otel import OpenTelemetryHook


@dataclass
class Telemetry:
    """What a test's calls recorded."""

    tracer_provider: TracerProvider
    meter_provider: MeterProvider
    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader

    def hook(self, **options: Any) -> OpenTelemetryHook:
        """A hook sending to these providers."""
        return OpenTelemetryHook(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider, **options
        )

    def spans(self) -> list[ReadableSpan]:
        """The finished spans, in the order they ended."""
        return list(self.exporter.get_finished_spans())

    def points(self, metric: str) -> dict[frozenset[tuple[str, Any]], Any]:
        """The data points of one metric, by their attributes."""
        data = self.reader.get_metrics_data()
        out: dict[frozenset[tuple[str, Any]], Any] = {}
        if data is None:
            return out
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for found in scope.metrics:
                    if found.name == metric:
                        for point in found.data.data_points:
                            out[frozenset((point.attributes or {}).items())] = point
        return out


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    """Fresh providers whose spans and metrics the test can read."""
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    yield Telemetry(tracer_provider, meter_provider, exporter, reader)
    tracer_provider.shutdown()
    meter_provider.shutdown()
