"""The MCP server and its parts in-process (the SDK's in-memory client), and the import guard."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import mcp_types as types
import pytest
from mcp import Client

from forge.mcp import MCPToolServer, SearchOnlyServer, call_context, serve
from forge.mcp._convert import call_result, from_call_result
from forge.mcp._http import BearerAuth
from forge.mcp._listing import listable_tools
from forge.mcp.serve import serve_http
from forge.tools import (
    ErrorKind,
    ExecutionContext,
    ToolExecutor,
    ToolRegistry,
    ToolResult,
    from_record,
    tool,
)
from forge.tools.values.content import Text

T = TypeVar("T")


def run(fn: Callable[[], Awaitable[T]]) -> T:
    """Run one async test body with an overall bound."""

    async def bounded() -> T:
        return await asyncio.wait_for(fn(), 60)

    return asyncio.run(bounded())


@tool(annotations={"read_only": True})
def double(x: int) -> int:
    """Double a number.

    Args:
        x: The number.
    """
    return 2 * x


@tool
def stuck(seconds: float) -> str:
    """Sleep in a thread.

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    return "late"


def make_registry() -> ToolRegistry:
    """A small registry with a typed tool and a sync sleeper."""
    return ToolRegistry([double, stuck])


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_in_process_list_and_call(mode: str) -> None:
    """The server answers list and call through the SDK's in-process transports."""
    server = MCPToolServer(make_registry())

    async def body() -> None:
        async with Client(server.lowlevel, mode=mode) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == ["double", "stuck"]
            result = await client.call_tool("double", {"x": 21})
            assert result.content[0].text == "42"

    run(body)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_registration_from_another_thread_is_announced(mode: str) -> None:
    """A tool registered on another thread while serving reaches the client as list_changed."""
    registry = make_registry()
    server = MCPToolServer(registry)
    extra = from_record(
        {"name": "later", "description": "Added later.", "handler": lambda _args: "ok"}
    )

    async def body() -> list[str]:
        changed = asyncio.Event()

        async def on_message(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                changed.set()

        async with (
            server.announcing_changes(),
            Client(server.lowlevel, mode=mode, message_handler=on_message) as client,
        ):
            await client.list_tools()  # the handshake is complete once a request is answered
            if mode == "legacy":
                threading.Thread(target=registry.register, args=(extra,)).start()
                await asyncio.wait_for(changed.wait(), 20)
            else:
                async with client.listen(tools_list_changed=True) as events:
                    threading.Thread(target=registry.register, args=(extra,)).start()
                    async for _event in events:
                        break
            return [t.name for t in (await client.list_tools()).tools]

    assert "later" in run(body)


def test_the_servers_executor_never_raises() -> None:
    """Unknown tools, bad arguments and timeouts all come back as failed results."""
    server = MCPToolServer(make_registry())
    runner = server.executor.run

    async def body() -> list[ToolResult]:
        return [
            await runner("nope", {}),
            await runner("double", {"x": "many"}),
            await runner("double", {"x": 2}),
        ]

    unknown, invalid, ok = run(body)
    server.close()
    assert unknown.error_kind is ErrorKind.UNKNOWN_TOOL
    assert invalid.error_kind is ErrorKind.INVALID_ARGUMENTS
    assert ok.output == 4


def test_a_sync_tool_past_its_timeout_fails_without_blocking() -> None:
    """A sync tool past its timeout returns a timeout failure while its thread is abandoned."""
    registry = ToolRegistry([stuck.replace(timeout=0.2)])
    executor = MCPToolServer(registry).executor
    result = run(lambda: executor.run("stuck", {"seconds": 1}))
    assert result.error_kind is ErrorKind.TIMEOUT
    assert "did not finish within 0.2 s" in (result.error or "")


def test_results_convert_both_ways() -> None:
    """ToolResults become CallToolResults and back, keeping outputs and error kinds."""
    ok = call_result(ToolResult.ok({"a": 1}), output_schema={"type": "object"})
    assert ok.structured_content == {"a": 1}
    assert from_call_result("t", ok).output == {"a": 1}
    failed = call_result(ToolResult.fail("nope", error_kind=ErrorKind.DENIED))
    back = from_call_result("t", failed)
    assert back.error_kind is ErrorKind.DENIED
    assert back.error == "nope"
    odd = types.CallToolResult(content=[types.TextContent(text="x")], is_error=True,
                               _meta={"forge-tools/errorKind": "weird"})  # fmt: skip
    assert from_call_result("t", odd).error_kind is ErrorKind.TOOL_ERROR
    two = types.CallToolResult(content=[types.TextContent(text="a"), types.TextContent(text="b")])
    assert from_call_result("t", two).output == [Text("a"), Text("b")]
    assert call_result(ToolResult.ok("text")).structured_content is None


def test_bearer_auth_passes_lifespan_and_good_tokens() -> None:
    """The middleware lets lifespan events and correct tokens through, and nothing else."""
    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {}

    guard = BearerAuth(app, "tok")

    async def body() -> None:
        await guard({"type": "lifespan"}, receive, send)
        await guard({"type": "http", "headers": [(b"authorization", b"Bearer tok")]}, receive, send)
        await guard({"type": "http", "headers": []}, receive, send)

    run(body)
    assert seen == ["lifespan", "http"]
    assert sent[0]["status"] == 401


def test_serve_http_in_process_until_cancelled() -> None:
    """serve_http reports its port, serves calls, and stops cleanly when cancelled."""
    server = MCPToolServer(make_registry())

    async def body() -> str:
        started: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(
            serve_http(server, port=0, on_started=lambda _h, port: started.set_result(port))
        )
        port = await asyncio.wait_for(started, 20)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            text = (await client.call_tool("double", {"x": 5})).content[0].text
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return str(text)

    assert run(body) == "10"


def test_serve_http_cancelled_while_starting_stops_quietly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Regression: a stop before the server listened raised AttributeError and logged a trace."""
    server = MCPToolServer(make_registry())
    started: list[int] = []

    async def body() -> None:
        task = asyncio.ensure_future(
            serve_http(server, port=0, on_started=lambda _h, port: started.append(port))
        )
        await asyncio.sleep(0)  # serve_http runs to its first wait: the app's lifespan startup
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(body)
    assert started == []
    assert "Traceback" not in capsys.readouterr().err  # uvicorn logs to stderr


def test_serve_rejects_an_unknown_transport() -> None:
    """serve() names the transports it knows."""
    with pytest.raises(ValueError, match="unknown transport"):
        serve(make_registry(), transport="smoke")  # type: ignore[arg-type]


def test_without_the_mcp_extra_the_import_names_it() -> None:
    """Importing the integration without `mcp` raises MissingDependencyError naming the extra."""
    code = (
        "import sys; sys.modules['mcp'] = None\n"
        "import forge.tools\n"
        "try:\n"
        "    import forge.mcp\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.startswith("MissingDependencyError")
    assert "forge-tools[mcp]" in done.stdout


def test_forge_tools_does_not_load_the_sdk() -> None:
    """`import forge.tools` leaves the mcp SDK unloaded."""
    code = "import sys, forge.tools; print(any(m.split('.')[0] == 'mcp' for m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "False"


def test_calls_go_through_the_executor_permissions_and_metrics() -> None:
    """A denied call is an isError result with the denied kind, and metrics count every call."""
    from forge.tools import RuleBasedPolicy, ToolExecutor

    registry = make_registry()
    executor = ToolExecutor(registry, permissions=RuleBasedPolicy(deny=["stuck"]), metrics=True)
    server = MCPToolServer(registry, executor=executor)

    async def body() -> tuple[types.CallToolResult, types.CallToolResult]:
        async with Client(server.lowlevel) as client:
            return (
                await client.call_tool("stuck", {"seconds": 0}),
                await client.call_tool("double", {"x": 1}),
            )

    denied, ok = run(body)
    assert denied.is_error is True
    assert denied.meta is not None
    assert denied.meta["forge-tools/errorKind"] == "denied"
    assert ok.is_error is False
    assert executor.metrics is not None
    assert executor.metrics.snapshot().tools["double"].calls == 1
    server.close()
    executor.close()


def _schema_tool(name: str, output: Any, schema: dict[str, Any]) -> Any:
    """A no-argument record tool returning ``output`` and declaring ``schema``."""
    return from_record(
        {"name": name, "description": "Fixed output.", "output_schema": schema,
         "handler": lambda _args: output}
    )  # fmt: skip


def test_output_schemas_are_enforced_in_process() -> None:
    """Matching output is structured, breaking output and broken schemas become isError."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    registry = ToolRegistry(
        [
            _schema_tool("good", {"n": 1}, schema),
            _schema_tool("bad", {"n": "one"}, schema),
            _schema_tool("weird", {"n": 1}, schema).replace(
                output_schema={"type": "object", "properties": {"n": {"type": 7}}}
            ),
        ]
    )
    server = MCPToolServer(registry)

    async def body() -> list[types.CallToolResult]:
        async with Client(server.lowlevel, mode="legacy") as client:
            return [await client.call_tool(n, {}) for n in ("good", "bad", "weird")]

    good, bad, weird = run(body)
    server.close()
    assert good.structured_content == {"n": 1}
    assert bad.is_error is True
    assert "n: " in bad.content[0].text
    assert weird.is_error is True
    assert "output schema is invalid" in weird.content[0].text


def test_unknown_tool_in_process_is_invalid_params() -> None:
    """An unknown tool raises the JSON-RPC error -32602 on the client."""
    from mcp.shared.exceptions import MCPError

    server = MCPToolServer(make_registry())

    async def body() -> int:
        async with Client(server.lowlevel) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("nope", {})
            return caught.value.error.code

    assert run(body) == types.INVALID_PARAMS
    server.close()


def test_a_view_is_served_under_its_names() -> None:
    """A renamed, prefixed view lists its names and runs the original tool when called by one."""
    from mcp.shared.exceptions import MCPError

    server = MCPToolServer(make_registry().filtered(names=["double"]).prefixed("m_"))

    async def body() -> None:
        async with Client(server.lowlevel) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == ["m_double"]
            result = await client.call_tool("m_double", {"x": 4})
            assert result.content[0].text == "8"
            with pytest.raises(MCPError, match="Unknown tool: double"):
                await client.call_tool("double", {"x": 4})

    run(body)
    server.close()


def test_a_tool_no_client_could_read_is_left_out_of_the_listing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One definition that breaks the wire rules is dropped with a warning; the rest are listed."""
    good = {"name": "good", "inputSchema": {"type": "object"}}
    bad = {"name": "bad", "inputSchema": {"type": "array"}}
    with caplog.at_level("WARNING", logger="forge.mcp.server"):
        tools = listable_tools([good, bad])
    assert [t.name for t in tools] == ["good"]
    [warning] = [r.getMessage() for r in caplog.records]
    assert "'bad'" in warning
    assert "inputSchema.type" in warning


def test_outputs_of_every_json_type_travel_as_structured_content() -> None:
    """Non-string outputs are structured (wrapped unless objects); strings stay text only."""
    cases: list[tuple[Any, Any]] = [
        (3, {"result": 3}), (None, {"result": None}), ([1], {"result": [1]}),
        ({"a": 1}, {"a": 1}), ("text", None),
    ]  # fmt: skip
    for output, structured in cases:
        wire = call_result(ToolResult.ok(output))
        assert wire.structured_content == structured
        assert from_call_result("t", wire).output == output
    failed = call_result(ToolResult.fail("no", error_kind=ErrorKind.TIMEOUT, retryable=True))
    back = from_call_result("t", failed)
    assert (back.error_kind, back.metadata) == (ErrorKind.TIMEOUT, {"retryable": True})


@tool
async def tick(ctx: ExecutionContext) -> str:
    """Report one step; answer the context's session."""
    await ctx.report_progress(1, 1, "tick")
    return ctx.session_id or "?"


def test_a_given_executor_gives_tools_its_context_wired_to_the_client() -> None:
    """The server runs calls with `call_context` of its executor's context; outside a call
    `call_context` is the base."""
    registry = ToolRegistry([tick])
    base = ExecutionContext(session_id="mine")
    executor = ToolExecutor(registry, context=base)
    assert call_context(base) is base
    assert call_context() is None

    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async def body() -> types.CallToolResult:
        async with Client(MCPToolServer(registry, executor=executor).lowlevel) as client:
            return await client.call_tool("tick", {}, progress_callback=on_progress)

    result = run(body)
    assert [c.text for c in result.content if isinstance(c, types.TextContent)] == ["mine"]
    assert seen == [(1, 1, "tick")]
    executor.close()


def test_a_search_only_session_gives_its_tools_the_clients_channel() -> None:
    """A tool a search-only session runs gets the executor's context wired to its client."""
    registry = ToolRegistry([tick])
    executor = ToolExecutor(registry, context=ExecutionContext(session_id="mine"))
    server = SearchOnlyServer(registry, executor=executor, pinned=["tick"])
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async def body() -> types.CallToolResult:
        async with Client(server.lowlevel, mode="legacy") as client:
            return await client.call_tool("tick", {}, progress_callback=on_progress)

    result = run(body)
    assert [c.text for c in result.content if isinstance(c, types.TextContent)] == ["mine"]
    assert seen == [(1, 1, "tick")]
    executor.close()
