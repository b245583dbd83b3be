"""Importing the tools of real MCP server subprocesses into a registry."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable

import pytest
from forge_test_tools import fails
from mcp_harness import FORGE_TOOLS, SERVERS, TOOLS_SPEC, HttpServer, wait_for

from forge.core.errors import ToolNotFoundError
from forge.mcp import MCPClient, MCPConnectionError, import_tools
from forge.tools import ErrorKind, ToolRegistry

pytestmark = pytest.mark.slow  # real MCP server subprocesses

OUR_SERVER = [FORGE_TOOLS, "serve", "--tools", TOOLS_SPEC]
SDK_SERVER = [sys.executable, str(SERVERS / "sdk_dotted_server.py")]
ODD_SERVER = [sys.executable, str(SERVERS / "sdk_odd_server.py")]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_import_from_our_server_with_a_prefix(
    registry: ToolRegistry, connect: Callable[..., MCPClient], mode: str
) -> None:
    """Every tool arrives under the prefix, with its schema, and runs through the registry."""
    client = connect(OUR_SERVER, prefix="remote_", timeout=10, mode=mode)
    assert {"remote_add", "remote_stats", "remote_slow"} <= set(registry.names())
    assert client.tool_names == frozenset(registry.names())
    add = registry.get_or_raise("remote_add")
    assert add.parameters["required"] == ["a", "b"]
    assert add.annotations.read_only is True
    assert add.metadata.extra["mcp_name"] == "add"
    assert registry.execute("remote_add", {"a": 2, "b": 3}).output == 5
    stats = registry.execute("remote_stats", {"numbers": [2, 4]})
    assert stats.output == {"count": 2, "mean": 3.0}
    assert registry.get_or_raise("remote_stats").output_schema is not None


def test_async_calls_and_remote_errors_keep_their_kind(
    registry: ToolRegistry, connect: Callable[..., MCPClient]
) -> None:
    """Concurrent async calls all answer; remote timeouts come back with the timeout kind."""
    connect(OUR_SERVER, timeout=10)

    async def body() -> None:
        results = await registry.aexecute_all(
            [{"name": "add", "arguments": {"a": i, "b": 1}} for i in range(20)]
        )
        assert [r.output for r in results] == [i + 1 for i in range(20)]
        slow = await registry.aexecute("slow", {"seconds": 30})
        assert slow.success is False
        assert slow.error_kind is ErrorKind.TIMEOUT

    asyncio.run(body())


def test_invalid_arguments_are_rejected_locally(
    registry: ToolRegistry, connect: Callable[..., MCPClient]
) -> None:
    """The remote input schema validates arguments before anything is sent."""
    connect(OUR_SERVER, timeout=10)
    [result] = registry.execute_all([{"name": "add", "arguments": {"a": "x"}}])
    assert result.error_kind is ErrorKind.INVALID_ARGUMENTS
    assert "b" in (result.error or "")


def test_import_from_an_sdk_server_with_dotted_names(
    registry: ToolRegistry, connect: Callable[..., MCPClient]
) -> None:
    """Names our rule rejects map reversibly and collision-free; calls reach the right tool.

    ``math.factorial`` is listed before ``math_factorial``: the valid name keeps itself
    all the same, and the dotted one, whose mapping it would take, gets a suffix.
    """
    client = connect(SDK_SERVER, timeout=10)
    dotted = client.local_name("math.factorial")
    twin = client.local_name("math_factorial")
    long_name = client.local_name("text." + "x" * 70)
    assert twin == "math_factorial"
    assert dotted.startswith("math_factorial_")
    assert len({dotted, twin, long_name}) == 3
    assert set(registry.names()) == {dotted, twin, long_name}
    assert len(long_name) <= 64
    assert client.remote_name(dotted) == "math.factorial"
    assert client.remote_name(long_name) == "text." + "x" * 70
    assert registry.execute(dotted, {"n": 5}).output == {"result": 120}
    assert registry.execute(twin, {"n": 5}).output == {"result": -120}
    assert registry.execute(long_name, {"text": "hi"}).output == {"result": "HI"}


def test_import_over_http_with_a_token(
    registry: ToolRegistry,
    connect: Callable[..., MCPClient],
    start_http: Callable[..., HttpServer],
) -> None:
    """An HTTP server that requires a token is imported when the token is given, refused without."""
    server = start_http("--tools", TOOLS_SPEC, token="s3cret")
    with pytest.raises(MCPConnectionError):
        connect(server.url, timeout=10)
    connect(server.url, timeout=10, token="s3cret", prefix="h_")
    assert registry.execute("h_add", {"a": 20, "b": 22}).output == 42


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_import_follows_list_changed(
    registry: ToolRegistry, connect: Callable[..., MCPClient], mode: str
) -> None:
    """A tool registered on the server at runtime appears in the local registry."""
    connect(OUR_SERVER, prefix="r_", timeout=10, mode=mode)
    assert registry.execute("r_register_echo", {"name": "late"}).success
    assert wait_for(lambda: "r_late" in registry)
    assert registry.execute("r_late", {"text": "hello"}).output == "hello"


def test_a_server_killed_mid_call_gives_an_error_result(
    registry: ToolRegistry, connect: Callable[..., MCPClient]
) -> None:
    """Killing the server during a call fails that call and later ones, without hanging."""
    connect(OUR_SERVER, timeout=30)
    pid = int(registry.execute("pid", {}).output)

    async def body() -> None:
        pending = asyncio.ensure_future(registry.aexecute("hang", {}))
        await asyncio.sleep(0.3)
        os.kill(pid, 9)
        result = await asyncio.wait_for(pending, 20)
        assert result.success is False
        assert "not reachable" in (result.error or "")
        try:  # the next call fails, unless the dead server's tools are already withdrawn
            after = await asyncio.wait_for(registry.aexecute("add", {"a": 1, "b": 1}), 20)
        except ToolNotFoundError:
            return
        assert after.success is False

    asyncio.run(body())
    assert wait_for(lambda: "add" not in registry)  # a stdio server that exited: tools removed


def test_a_hung_server_gives_a_timeout_result(
    registry: ToolRegistry, connect: Callable[..., MCPClient]
) -> None:
    """A call the server never answers fails with the timeout kind after the client's timeout."""
    connect(OUR_SERVER, timeout=1)
    result = registry.execute("hang", {})
    assert result.success is False
    assert result.error_kind is ErrorKind.TIMEOUT


def test_close_deregisters_the_imported_tools(
    registry: ToolRegistry, connect: Callable[..., MCPClient]
) -> None:
    """Closing the client removes its tools and leaves other tools alone."""

    def local() -> str:
        """A local tool."""
        return "local"

    registry.register(local)
    client = connect(OUR_SERVER, timeout=10)
    assert len(registry) > 1
    client.close()
    client.close()
    assert registry.names() == ["local"]


def test_a_server_that_cannot_start_is_a_connection_error(registry: ToolRegistry) -> None:
    """A command that exits at once raises MCPConnectionError instead of hanging."""
    bad = [sys.executable, "-c", "import sys; sys.exit(3)"]
    with pytest.raises(MCPConnectionError, match="cannot connect"):
        import_tools(registry, bad, timeout=10)
    assert registry.names() == []


def test_round_trips_keep_values_kinds_and_advice(
    registry: ToolRegistry, connect: Callable[..., MCPClient]
) -> None:
    """forge -> MCP -> forge: outputs keep their JSON type, failures their kind and advice."""
    connect(OUR_SERVER, timeout=10, mode="legacy")
    assert registry.execute("add", {"a": 1, "b": 2}).output == 3
    assert registry.execute("nothing", {}).output is None
    assert registry.execute("listing", {}).output == [1, "two", None]
    assert registry.execute("mapping", {}).output == {"a": 1, "b": [True]}
    assert registry.execute("numbers", {"n": 3}).output == [1, 2, 3]
    assert registry.get_or_raise("numbers").output_schema == {
        "type": "array", "items": {"type": "integer"},
    }  # fmt: skip
    remote = registry.execute("fails", {"reason": "no such file"})
    local = ToolRegistry([fails]).execute("fails", {"reason": "no such file"})
    assert (remote.error_kind, remote.error) == (local.error_kind, local.error)
    assert remote.metadata["retryable"] is local.metadata["retryable"] is True
    broken = registry.execute("broken_output", {})
    assert broken.error_kind is ErrorKind.TOOL_ERROR
    assert broken.metadata["retryable"] is False
    assert "does not match its output schema" in (broken.error or "")


def test_a_remote_tool_that_breaks_its_output_schema_is_named(
    registry: ToolRegistry, connect: Callable[..., MCPClient]
) -> None:
    """A server's answer that breaks the tool's own output schema is reported as that."""
    connect(ODD_SERVER, timeout=10)
    result = registry.execute("liar", {})
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert "breaks its own output schema" in (result.error or "")
    assert "not reachable" not in (result.error or "")
    assert result.metadata["retryable"] is False
    assert registry.execute("echo", {"text": "still here"}).output == "still here"


def test_tools_that_require_tasks_are_skipped_with_a_warning(
    registry: ToolRegistry, connect: Callable[..., MCPClient], caplog: pytest.LogCaptureFixture
) -> None:
    """A tool with execution.taskSupport 'required' is not imported; the warning names it."""
    with caplog.at_level(logging.WARNING, logger="forge.mcp.client"):
        connect(ODD_SERVER, timeout=10, mode="legacy")
    assert "long_job" not in registry
    assert {"liar", "echo"} <= set(registry.names())
    [warning] = [r.getMessage() for r in caplog.records if "long_job" in r.getMessage()]
    assert "taskSupport 'required'" in warning
