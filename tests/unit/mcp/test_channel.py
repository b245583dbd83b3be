"""Tools that talk to their client while they run: `forge-tools serve` and the official client.

Progress, log messages, elicitation, sampling and cancellation, over stdio and streamable
HTTP, on both protocol eras the official client speaks (``legacy``: the 2025-11-25
handshake; ``auto``: 2026-07-28).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_harness import FORGE_TOOLS, HttpServer, server_env

pytestmark = pytest.mark.slow  # forge-tools serve subprocesses

SPEC = "channel_tools:registry"
BOTH = pytest.mark.parametrize("target", ["stdio", "http"], indirect=True)
MODES = pytest.mark.parametrize("mode", ["legacy", "auto"])


@pytest.fixture(scope="module")
def channel_server() -> Iterator[HttpServer]:
    """One HTTP server with the channel tools for the module's tests."""
    server = HttpServer("--tools", SPEC)
    yield server
    server.stop()


@pytest.fixture
def target(request: pytest.FixtureRequest, channel_server: HttpServer) -> Any:
    """What `mcp.Client` connects to for the ``transport`` parameter of the test."""
    if request.param == "http":
        return channel_server.url
    return StdioServerParameters(
        command=FORGE_TOOLS, args=["serve", "--tools", SPEC],
        env={"PYTHONPATH": server_env()["PYTHONPATH"]},
    )  # fmt: skip


def run(body: Any) -> Any:
    return asyncio.run(asyncio.wait_for(body(), 60))


def text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


# -- progress ---------------------------------------------------------------------------------


@BOTH
@MODES
def test_a_two_second_tool_reporting_ten_steps_delivers_ten_notifications(
    target: Any, mode: str
) -> None:
    """Each of the ten ``report_progress`` calls reaches the client, in order, with its message."""
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async def body() -> types.CallToolResult:
        async with Client(target, mode=mode) as client:
            arguments = {"count": 10, "seconds": 2}
            return await client.call_tool("steps", arguments, progress_callback=on_progress)

    result = run(body)
    assert text(result) == "10 steps"
    assert seen == [(n, 10, f"step {n} of 10") for n in range(1, 11)]


@BOTH
def test_a_sync_tool_reports_progress_and_logs_from_its_worker_thread(target: Any) -> None:
    """``report_progress_sync`` and ``log_sync`` reach the client from a worker thread, in order."""
    progress: list[float] = []
    logs: list[types.LoggingMessageNotificationParams] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async def body() -> types.CallToolResult:
        async with Client(target, mode="legacy", logging_callback=on_log) as client:
            return await client.call_tool("sync_steps", {"count": 5}, progress_callback=on_progress)

    assert text(run(body)) == "5 steps"
    assert progress == [1, 2, 3, 4, 5]
    assert [(m.level, m.data, m.logger) for m in logs] == [
        ("info", "sync steps done", "sync_steps")
    ]


def test_no_progress_token_means_no_notifications(channel_server: HttpServer) -> None:
    """A call made without a progress callback (no token) still runs, and nothing is sent."""

    async def body() -> types.CallToolResult:
        async with Client(channel_server.url) as client:
            return await client.call_tool("steps", {"count": 3, "seconds": 0.03})

    assert text(run(body)) == "3 steps"


# -- logging ----------------------------------------------------------------------------------


@BOTH
def test_log_messages_reach_the_client_and_set_level_filters_them(target: Any) -> None:
    """Every level arrives until ``logging/setLevel``; then only that level and above."""
    logs: list[tuple[str, Any, str | None]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append((params.level, params.data, params.logger))

    async def body() -> list[tuple[str, Any, str | None]]:
        async with Client(target, mode="legacy", logging_callback=on_log) as client:
            assert client.server_capabilities.logging is not None
            await client.call_tool("chatty", {})
            before = list(logs)
            logs.clear()
            with pytest.warns(MCPDeprecationWarning):
                await client.set_logging_level("warning")
            await client.call_tool("chatty", {})
            return before

    before = run(body)
    assert before == [(level, f"a {level} message", "chatty")
                      for level in ("debug", "info", "warning", "error")]  # fmt: skip
    assert [level for level, _, _ in logs] == ["warning", "error"]


@pytest.mark.parametrize(("level", "expected"), [(None, []), ("warning", ["warning", "error"])])
def test_on_2026_07_28_log_messages_follow_the_requests_opt_in(
    channel_server: HttpServer, level: Any, expected: list[str]
) -> None:
    """A 2026-07-28 client gets log messages only when it opts in, at or above its level."""
    logs: list[str] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.level)

    async def body() -> None:
        async with Client(channel_server.url, logging_callback=on_log, log_level=level) as client:
            assert client.protocol_version == "2026-07-28"
            await client.call_tool("chatty", {})

    run(body)
    assert logs == expected


# -- elicitation and sampling -----------------------------------------------------------------


@BOTH
def test_a_tool_asks_the_user_and_gets_a_validated_answer(target: Any) -> None:
    """``elicit`` sends the model's schema and returns the answer as the model."""
    asked: list[types.ElicitRequestParams] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async def body() -> types.CallToolResult:
        async with Client(target, mode="legacy", elicitation_callback=answer) as client:
            return await client.call_tool("ask_user", {"question": "Who are you?"})

    assert text(run(body)) == "Ada is 36"
    assert isinstance(asked[0], types.ElicitRequestFormParams)
    assert asked[0].message == "Who are you?"
    assert set(asked[0].requested_schema["properties"]) == {"name", "age"}


def test_a_declined_question_is_an_answer_too(channel_server: HttpServer) -> None:
    """The user's ``decline`` reaches the tool as the action, with no data."""

    async def decline(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async def body() -> types.CallToolResult:
        async with Client(channel_server.url, mode="legacy", elicitation_callback=decline) as c:
            return await c.call_tool("ask_user", {"question": "Who are you?"})

    assert text(run(body)) == "the user chose decline"


@pytest.mark.parametrize(
    ("mode", "callback", "reason"),
    [
        ("legacy", False, "did not declare the elicitation capability"),
        ("auto", True, "protocol 2026-07-28) cannot carry a request from the server"),
    ],
)
def test_a_client_that_cannot_answer_gives_the_tool_an_error_it_handles(
    channel_server: HttpServer, mode: str, callback: bool, reason: str
) -> None:
    """Without the capability, or on 2026-07-28, the tool catches a ClientCapabilityError."""

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        raise AssertionError("never asked")

    options: dict[str, Any] = {"elicitation_callback": answer} if callback else {}

    async def body() -> types.CallToolResult:
        async with Client(channel_server.url, mode=mode, **options) as client:
            return await client.call_tool("ask_user", {"question": "Who are you?"})

    result = run(body)
    assert result.is_error is False
    assert text(result).startswith("could not ask: cannot ask the caller for elicitation: ")
    assert reason in text(result)


@BOTH
def test_a_sync_tool_samples_the_clients_model(target: Any) -> None:
    """``sample_sync`` sends the prompt, system prompt, token cap and hints; returns the text."""
    asked: list[types.CreateMessageRequestParams] = []

    async def complete(context: Any, params: types.CreateMessageRequestParams) -> Any:
        asked.append(params)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="hi"),
            model="test-model", stop_reason="endTurn",
        )  # fmt: skip

    async def body() -> types.CallToolResult:
        async with Client(target, mode="legacy", sampling_callback=complete) as client:
            return await client.call_tool("ask_model", {"prompt": "Say hi"})

    assert text(run(body)) == "test-model said 'hi'"
    params = asked[0]
    assert params.system_prompt == "Be brief."
    assert params.max_tokens == 20
    assert params.model_preferences is not None
    assert [h.name for h in params.model_preferences.hints or []] == ["tiny"]
    content = params.messages[0].content
    assert isinstance(content, types.TextContent)
    assert (params.messages[0].role, content.text) == ("user", "Say hi")


def test_sampling_without_the_capability_is_an_error_the_tool_handles(
    channel_server: HttpServer,
) -> None:
    """A client without a sampling callback declares no sampling: the tool is told why."""

    async def body() -> types.CallToolResult:
        async with Client(channel_server.url, mode="legacy") as client:
            return await client.call_tool("ask_model", {"prompt": "Say hi"})

    assert "did not declare the sampling capability" in text(run(body))


# -- cancellation -----------------------------------------------------------------------------


async def _wait_for(check: Any, what: str) -> Any:
    """Poll ``check()`` until it returns something truthy (10 s at most, a generous bound)."""
    for _ in range(1000):
        found = check()
        if found:
            return found
        await asyncio.sleep(0.01)
    raise AssertionError(f"{what} did not happen")


@BOTH
@MODES
def test_the_clients_cancel_cancels_the_running_tool(
    target: Any, mode: str, tmp_path: Path
) -> None:
    """Cancelling the client's call cancels the async handler on the server."""
    marker = tmp_path / "marker"

    async def body() -> float:
        started = asyncio.Event()

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            started.set()

        async with Client(target, mode=mode) as client:
            call = asyncio.create_task(
                client.call_tool("wait_for_cancel", {"marker": str(marker)},
                                 progress_callback=on_progress)
            )  # fmt: skip
            await started.wait()
            cancelled_at = time.time()
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            await _wait_for(marker.exists, "the handler's cancellation")
            return marker.stat().st_mtime - cancelled_at

    latency = run(body)
    assert marker.read_text() == "cancelled"
    print(f"cancel to handler cancelled ({mode}): {latency * 1000:.1f} ms")


@BOTH
def test_the_clients_cancel_kills_an_isolated_process(target: Any, tmp_path: Path) -> None:
    """A tool placed in a process is killed when the client cancels its call."""
    marker = tmp_path / "pid"

    def gone(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    async def body() -> None:
        async with Client(target, mode="legacy") as client:
            call = asyncio.create_task(client.call_tool("isolated_wait", {"marker": str(marker)}))
            pid = int(await _wait_for(lambda: marker.exists() and marker.read_text(), "the start"))
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            await _wait_for(lambda: gone(pid), "the child's death")

    run(body)


@asynccontextmanager
async def served(executor: Any) -> AsyncIterator[str]:
    """Serve the channel tools over HTTP in this process (so coverage sees the server side)."""
    from channel_tools import registry

    from forge.mcp import MCPToolServer
    from forge.mcp.serve import serve_http

    listening: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    serving = asyncio.create_task(serve_http(
        MCPToolServer(registry, executor=executor), port=0,
        on_started=lambda host, port: listening.set_result(port),
    ))  # fmt: skip
    try:
        yield f"http://127.0.0.1:{await listening}/mcp"
    finally:
        serving.cancel()
        with pytest.raises(asyncio.CancelledError):
            await serving


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_cancelled_call_is_recorded_as_cancelled(mode: str, tmp_path: Path) -> None:
    """The executor's metrics count the client's cancel as ``cancelled``, not as a failure."""
    from channel_tools import registry

    from forge.tools import ToolExecutor

    marker = tmp_path / "marker"
    executor = ToolExecutor(registry, metrics=True)

    async def body() -> Any:
        started = asyncio.Event()

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            started.set()

        async with served(executor) as url, Client(url, mode=mode) as client:
            call = asyncio.create_task(
                client.call_tool("wait_for_cancel", {"marker": str(marker)},
                                 progress_callback=on_progress)
            )  # fmt: skip
            await started.wait()
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            await _wait_for(lambda: executor.metrics.snapshot().tools, "the record")
        return executor.metrics.snapshot()

    recorded = run(body)["wait_for_cancel"]
    assert (recorded.calls, recorded.cancelled, recorded.failures) == (1, 1, 0)
    assert marker.read_text() == "cancelled"
    executor.close()


def test_the_whole_channel_in_one_process() -> None:
    """Logs (filtered by setLevel), a question and a completion, with the server in-process."""
    from channel_tools import registry

    from forge.tools import ToolExecutor

    logs: list[str] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.level)

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async def complete(context: Any, params: types.CreateMessageRequestParams) -> Any:
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="hi"), model="m"
        )

    executor = ToolExecutor(registry)

    async def body() -> list[str]:
        async with served(executor) as url, Client(
            url, mode="legacy", logging_callback=on_log, elicitation_callback=answer,
            sampling_callback=complete,
        ) as client:  # fmt: skip
            with pytest.warns(MCPDeprecationWarning):
                await client.set_logging_level("info")
            answers = [text(await client.call_tool("chatty", {}))]
            answers.append(text(await client.call_tool("ask_user", {"question": "Who?"})))
            answers.append(text(await client.call_tool("ask_model", {"prompt": "Hi"})))
            return answers

    assert run(body) == ["logged", "Ada is 36", "m said 'hi'"]
    assert logs == ["info", "warning", "error"]
    executor.close()
