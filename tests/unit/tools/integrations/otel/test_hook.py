"""`OpenTelemetryHook`: spans and metrics per the GenAI conventions, nesting, and staying out."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.trace import SpanKind, StatusCode

from forge.tools import (
    ExecutionHook,
    ExecutionMetrics,
    RuleBasedPolicy,
    Tool,
    ToolCall,
    ToolExecutor,
    ToolRegistry,
    ToolResult,
    tool,
)
from forge.tools.execution.hooks import bound_methods
from forge.tools.integrations.otel import (
    DURATION_BUCKETS,
    OpenTelemetryHook,
    instrument,
    tool_type,
)

from .conftest import Telemetry


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def explode(reason: str) -> str:
    """Always fails."""
    raise ValueError(reason)


@tool(timeout=0.05)
async def dawdle() -> str:
    """Sleeps past its deadline."""
    await asyncio.sleep(5)
    return "late"


def executor(telemetry: Telemetry, *extra: object, **options: object) -> ToolExecutor:
    """An executor of the test tools with the hook installed."""
    registry = ToolRegistry([add, explode, dawdle, *extra])
    return ToolExecutor(registry, hooks=[telemetry.hook(**options)])


def test_span_per_call_follows_the_conventions(telemetry: Telemetry) -> None:
    """A call gives one INTERNAL span, `execute_tool {name}`, with the convention attributes."""
    ex = executor(telemetry)
    result = ex.execute_call_sync(ToolCall("call_1", "add", {"a": 1, "b": 2}))
    assert result.output == 3
    (span,) = telemetry.spans()
    assert span.name == "execute_tool add"
    assert span.kind is SpanKind.INTERNAL
    assert span.status.status_code is StatusCode.UNSET
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "add",
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": "Add two numbers.",
    }
    assert span.instrumentation_scope is not None
    assert span.instrumentation_scope.name == "forge.tools"


def test_arguments_and_results_are_captured_only_when_asked(telemetry: Telemetry) -> None:
    """Content is opt-in: with the flags on, arguments and the result are JSON attributes."""
    ex = executor(telemetry, capture_arguments=True, capture_results=True)
    ex.run_sync("add", {"a": 2, "b": 3})
    ex.run_sync("add", '{"a": 4, "b": 5}')
    first, second = (dict(s.attributes or {}) for s in telemetry.spans())
    assert json.loads(first["gen_ai.tool.call.arguments"]) == {"a": 2, "b": 3}
    assert first["gen_ai.tool.call.result"] == "5"
    assert json.loads(second["gen_ai.tool.call.arguments"]) == {"a": 4, "b": 5}


def test_captured_content_is_cut(telemetry: Telemetry) -> None:
    """Captured text stops at max_captured_chars."""

    def echo_text(text: str) -> str:
        return text

    echo = tool(echo_text, name="echo", description="Echoes.")
    ex = executor(telemetry, echo, capture_results=True, max_captured_chars=10)
    ex.run_sync("echo", {"text": "x" * 100})
    (span,) = telemetry.spans()
    assert (span.attributes or {})["gen_ai.tool.call.result"] == "x" * 10


@pytest.mark.parametrize(
    ("name", "arguments", "kind"),
    [
        ("explode", {"reason": "boom"}, "tool_error"),
        ("add", {"a": "not a number"}, "invalid_arguments"),
        ("add", "{not json", "invalid_json"),
        ("missing", {}, "unknown_tool"),
        ("dawdle", {}, "timeout"),
    ],
)
def test_failures_set_error_type_and_status(
    telemetry: Telemetry, name: str, arguments: object, kind: str
) -> None:
    """A failed call's span has error.type = its error kind and status ERROR."""
    ex = executor(telemetry)
    result = ex.run_sync(name, arguments)
    assert result.error_kind == kind
    (span,) = telemetry.spans()
    assert span.name == f"execute_tool {name}"
    assert (span.attributes or {})["error.type"] == kind
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description
    assert span.end_time is not None
    assert span.start_time is not None
    assert span.end_time >= span.start_time


def test_error_status_carries_the_message(telemetry: Telemetry) -> None:
    """The status description is the first line of the failure message."""
    executor(telemetry).run_sync("explode", {"reason": "the disk is full"})
    (span,) = telemetry.spans()
    assert "the disk is full" in (span.status.description or "")


def test_denied_call_is_traced(telemetry: Telemetry) -> None:
    """A call the policy denies still gets a span, with error.type denied."""
    registry = ToolRegistry([add])
    ex = ToolExecutor(registry, hooks=[telemetry.hook()], permissions=RuleBasedPolicy(deny=["add"]))
    assert ex.run_sync("add", {"a": 1, "b": 1}).error_kind == "denied"
    (span,) = telemetry.spans()
    assert (span.attributes or {})["error.type"] == "denied"


def test_cancelled_call_ends_its_span(telemetry: Telemetry) -> None:
    """Cancelling the caller ends the span with error.type cancelled and leaves no context."""
    ex = executor(telemetry)

    async def body() -> None:
        task = asyncio.ensure_future(ex.run("dawdle", {}, timeout=30))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(body())
    (span,) = telemetry.spans()
    assert (span.attributes or {})["error.type"] == "cancelled"
    assert not trace.get_current_span().get_span_context().is_valid


def test_metrics_count_and_time_calls(telemetry: Telemetry) -> None:
    """The duration histogram and the call counter carry the tool name and error type."""
    ex = executor(telemetry)
    for _ in range(3):
        ex.run_sync("add", {"a": 1, "b": 2})
    ex.run_sync("explode", {"reason": "no"})
    ex.run_sync("made_up", {})
    calls = telemetry.points("forge.tool.calls")
    op = ("gen_ai.operation.name", "execute_tool")
    assert {k: p.value for k, p in calls.items()} == {
        frozenset({op, ("gen_ai.tool.name", "add")}): 3,
        frozenset({op, ("gen_ai.tool.name", "explode"), ("error.type", "tool_error")}): 1,
        frozenset({op, ("error.type", "unknown_tool")}): 1,  # no made-up names in series
    }
    durations = telemetry.points("gen_ai.client.operation.duration")
    added = durations[frozenset({op, ("gen_ai.tool.name", "add")})]
    assert added.count == 3
    assert 0 < added.sum < 5
    assert tuple(added.explicit_bounds) == DURATION_BUCKETS


def test_caller_span_is_the_parent(telemetry: Telemetry) -> None:
    """A call made inside the caller's span is its child, sync and async."""
    ex = executor(telemetry)
    tracer = telemetry.tracer_provider.get_tracer("agent")
    with tracer.start_as_current_span("agent turn") as outer:
        ex.run_sync("add", {"a": 1, "b": 1})

        async def call() -> None:
            await ex.execute_all([ToolCall("1", "add", {"a": 1, "b": 2})] * 2)

        asyncio.run(call())
    spans = [s for s in telemetry.spans() if s.name == "execute_tool add"]
    assert len(spans) == 3
    ids = outer.get_span_context()
    for span in spans:
        assert span.parent is not None
        assert span.parent.span_id == ids.span_id
        assert span.context is not None
        assert span.context.trace_id == ids.trace_id


@pytest.mark.parametrize("flavour", ["sync", "sync_with_deadline", "async"])
def test_tool_calling_a_tool_nests(telemetry: Telemetry, flavour: str) -> None:
    """A tool that calls another tool through the executor gets the inner span as its child."""
    holder: list[ToolExecutor] = []

    def outer_sync(x: int) -> int:
        return int(holder[0].run_sync("add", {"a": x, "b": 1}).output)

    async def outer_async(x: int) -> int:
        return int((await holder[0].run("add", {"a": x, "b": 1})).output)

    handler = outer_async if flavour == "async" else outer_sync
    timeout = 10.0 if flavour == "sync_with_deadline" else None
    outer = tool(handler, name="outer", description="Calls add.", timeout=timeout)
    holder.append(executor(telemetry, outer))
    assert holder[0].run_sync("outer", {"x": 1}).output == 2
    inner_span, outer_span = telemetry.spans()
    assert inner_span.name == "execute_tool add"
    assert outer_span.name == "execute_tool outer"
    assert inner_span.parent is not None
    assert outer_span.context is not None
    assert inner_span.parent.span_id == outer_span.context.span_id
    assert outer_span.parent is None


def test_context_is_restored_after_each_call(telemetry: Telemetry) -> None:
    """No tool span stays current once the call returned, whatever the outcome."""
    ex = executor(telemetry)
    for name, arguments in [("add", {"a": 1, "b": 1}), ("explode", {"reason": "x"})]:
        ex.run_sync(name, arguments)
        assert not trace.get_current_span().get_span_context().is_valid


def test_runs_with_other_hooks_and_metrics(telemetry: Telemetry) -> None:
    """instrument() puts the hook first; a hook's replacement result is what the span sees."""

    class Deny(ExecutionHook):
        def before_call(self, call: object) -> ToolResult:
            return ToolResult.fail("blocked by the audit hook", error_kind="denied")

    ex = ToolExecutor(ToolRegistry([add]), hooks=[Deny()], metrics=True)
    hook = instrument(ex, tracer_provider=telemetry.tracer_provider)
    assert ex.hooks[0] is hook
    assert isinstance(ex.hooks[-1], ExecutionMetrics)
    assert ex.run_sync("add", {"a": 1, "b": 1}).error_kind == "denied"
    (span,) = telemetry.spans()
    assert (span.attributes or {})["error.type"] == "denied"
    assert ex.metrics is not None
    assert ex.metrics.snapshot()["add"].failures == 1


def test_tool_type_follows_the_category() -> None:
    """function by default, extension for MCP and API tools, datastore for databases."""

    def make(category: str) -> Tool:
        return tool(lambda: 1, name="t", description="A tool.", category=category)

    assert tool_type(make("utility")) == "function"
    assert tool_type(make("mcp")) == "extension"
    assert tool_type(make("api")) == "extension"
    assert tool_type(make("database")) == "datastore"
    base = make("utility")
    chosen = base.replace(
        metadata=dataclasses.replace(base.metadata, extra={"gen_ai.tool.type": "datastore"})
    )
    assert tool_type(chosen) == "datastore"


def test_without_a_provider_the_hook_stays_out() -> None:
    """With no provider configured the hook is inert and the executor leaves it out."""
    hook = OpenTelemetryHook()
    assert hook.active is False
    assert bound_methods((hook,), "before_call") == ()
    assert bound_methods((hook,), "after_call") == ()
    ex = ToolExecutor(ToolRegistry([add]), hooks=[hook])
    assert ex.run_sync("add", {"a": 1, "b": 2}).output == 3
    assert "active=False" in repr(hook)


def test_tracing_without_metrics(telemetry: Telemetry) -> None:
    """A tracer provider alone gives spans; no meter provider, no metrics work."""
    hook = OpenTelemetryHook(tracer_provider=telemetry.tracer_provider)
    assert hook.active
    ToolExecutor(ToolRegistry([add]), hooks=[hook]).run_sync("add", {"a": 1, "b": 2})
    assert len(telemetry.spans()) == 1
    assert telemetry.points("forge.tool.calls") == {}


def test_bad_capture_limit_is_rejected() -> None:
    """max_captured_chars below 1 is a clear error."""
    with pytest.raises(ValueError, match="max_captured_chars"):
        OpenTelemetryHook(max_captured_chars=0)


def test_dry_run_is_marked(telemetry: Telemetry) -> None:
    """A dry run's span says so."""
    ex = ToolExecutor(ToolRegistry([add]), hooks=[telemetry.hook()], dry_run=True)
    ex.run_sync("add", {"a": 1, "b": 2})
    (span,) = telemetry.spans()
    assert (span.attributes or {})["forge.tool.dry_run"] is True


def test_durations_cover_the_handler(telemetry: Telemetry) -> None:
    """The span and the histogram both include the time the handler took."""
    nap = tool(lambda: time.sleep(0.05) or "ok", name="nap", description="Naps.")
    executor(telemetry, nap).run_sync("nap", {})
    (span,) = telemetry.spans()
    assert span.end_time is not None
    assert span.start_time is not None
    assert span.end_time - span.start_time >= 40_000_000
    (point,) = telemetry.points("gen_ai.client.operation.duration").values()
    assert point.sum >= 0.04


IMPORT_CHECK = """
import sys
import forge.tools
from forge.tools import ToolExecutor, ToolRegistry, tool
leaked = sorted(m for m in sys.modules if m.startswith("opentelemetry"))
assert not leaked, leaked
"""

NO_OTEL = """
import sys
sys.modules["opentelemetry"] = None  # as if it were not installed
from forge.tools import ToolExecutor, ToolRegistry, tool
from forge.tools.integrations.otel import OpenTelemetryHook, attach_context, inject_context

@tool
def add(a: int, b: int) -> int:
    "Add."
    return a + b

hook = OpenTelemetryHook()
assert hook.active is False
assert inject_context() == {}
with attach_context({"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}):
    result = ToolExecutor(ToolRegistry([add]), hooks=[hook]).run_sync("add", {"a": 1, "b": 2})
assert result.output == 3
try:
    OpenTelemetryHook(tracer_provider=object())
except ImportError:
    pass
else:
    raise AssertionError("a provider without OpenTelemetry must fail")
print("ok")
"""


@pytest.mark.slow
def test_import_forge_tools_does_not_load_opentelemetry() -> None:
    """`import forge.tools` (and building an executor) loads no OpenTelemetry module."""
    subprocess.run([sys.executable, "-c", IMPORT_CHECK], check=True, timeout=60)


@pytest.mark.slow
def test_everything_works_without_opentelemetry() -> None:
    """Without OpenTelemetry the hook is inert and the propagation helpers do nothing."""
    out = subprocess.run(
        [sys.executable, "-c", NO_OTEL], check=True, timeout=60, capture_output=True, text=True
    )
    assert out.stdout.strip() == "ok"


GUIDE = Path(__file__).resolve().parents[5] / "docs" / "guides" / "opentelemetry.md"


@pytest.mark.slow
def test_readme_console_example_prints_the_span() -> None:
    """The guide's console-exporter example, run as a script, prints the tool's span."""
    found = re.search(
        r"<!-- test-in-subprocess: otel-console -->\n```python\n(.*?)\n```",
        GUIDE.read_text(encoding="utf-8"),
        re.DOTALL,
    )
    assert found is not None
    out = subprocess.run(
        [sys.executable, "-c", found.group(1)],
        check=True, timeout=60, capture_output=True, text=True,
    ).stdout  # fmt: skip
    span = json.loads(out)
    assert span["name"] == "execute_tool get_forecast"
    assert span["kind"] == "SpanKind.INTERNAL"
    assert span["attributes"]["gen_ai.operation.name"] == "execute_tool"
    assert span["attributes"]["gen_ai.tool.type"] == "function"


def test_metrics_without_tracing(telemetry: Telemetry) -> None:
    """A meter provider alone gives metrics and no spans."""
    hook = OpenTelemetryHook(meter_provider=telemetry.meter_provider)
    assert hook.active
    ToolExecutor(ToolRegistry([add]), hooks=[hook]).run_sync("add", {"a": 1, "b": 2})
    assert telemetry.spans() == []
    assert sum(p.value for p in telemetry.points("forge.tool.calls").values()) == 1


def test_arguments_that_are_not_json_are_captured_as_text(telemetry: Telemetry) -> None:
    """Captured arguments that JSON cannot hold (a cycle) are recorded as their repr."""
    looped: dict[str, object] = {"a": 1}
    looped["self"] = looped
    executor(telemetry, capture_arguments=True).run_sync("add", looped)
    (span,) = telemetry.spans()
    assert str((span.attributes or {})["gen_ai.tool.call.arguments"]).startswith("{'a': 1")


def test_spans_hooks_and_metrics_see_the_secret_redacted(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A secret from the environment in a failure is redacted in the span and for every hook."""
    secret = "sk-live-9c8b7a6d5e4f"
    monkeypatch.setenv("SERVICE_API_TOKEN", secret)
    seen: list[str] = []

    class Recorder:
        def after_call(self, call: object, result: ToolResult) -> None:
            seen.append(result.error or "")

    ex = ToolExecutor(ToolRegistry([explode]), hooks=[telemetry.hook(), Recorder()])
    result = ex.execute_call_sync(ToolCall("c1", "explode", {"reason": f"auth {secret} refused"}))
    assert secret not in (result.error or "")
    (span,) = telemetry.spans()
    assert span.status.description is not None
    assert "SERVICE_API_TOKEN" in span.status.description
    recorded = [span.status.description, *map(str, (span.attributes or {}).values()), *seen]
    recorded += [str(dict(key)) for key in telemetry.points("forge.tool.calls")]
    assert not [text for text in recorded if secret in text]
    assert len(seen) == 1
    assert "SERVICE_API_TOKEN" in seen[0]
