"""The advice ending each failed result fits why the call failed.

"Retrying with different arguments may help" is for failures the arguments may
cause; a crashed worker, an unreachable service or a misconfigured tool says what
can help instead (and ``metadata["retryable"]`` agrees).
"""

from __future__ import annotations

import os
import socket
from types import SimpleNamespace

import pytest

from forge.tools import ErrorKind, ToolExecutor, ToolRegistry, ToolResult, tool
from forge.tools.config import HandlerRegistry, build_tool

ARGUMENTS_ADVICE = "Retrying with different arguments may help."


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@tool(placement="process")
def dies() -> None:
    """Exit without a result, as a crashed worker does."""
    os._exit(9)


@tool
def rejects(value: int) -> int:
    """Refuse the value, as a handler does with a bad argument."""
    raise ValueError(f"{value} is not allowed")


@tool
def unreachable() -> None:
    """Connect to a port nothing listens on."""
    socket.create_connection(("127.0.0.1", closed_port()), timeout=30).close()


@tool
def exhausted() -> None:
    """Run out of memory."""
    raise MemoryError


def run(name: str, arguments: dict[str, object] | None = None) -> ToolResult:
    registry = ToolRegistry([dies, rejects, unreachable, exhausted])
    with ToolExecutor(registry) as executor:
        return executor.run_sync(name, arguments or {})


def test_an_argument_fault_suggests_other_arguments() -> None:
    """A handler's ValueError keeps the advice to retry with different arguments."""
    result = run("rejects", {"value": 3})
    assert ARGUMENTS_ADVICE in (result.error or "")
    assert result.metadata["retryable"] is True


def test_an_unreachable_service_suggests_retrying_later() -> None:
    """A refused connection says to retry later, not to change the arguments."""
    result = run("unreachable")
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert "ConnectionRefusedError" in (result.error or "")
    assert ARGUMENTS_ADVICE not in (result.error or "")
    assert "retrying the same call later may help" in (result.error or "")
    assert result.metadata["retryable"] is True


def test_running_out_of_memory_suggests_a_smaller_request() -> None:
    """A MemoryError asks for a smaller request."""
    result = run("exhausted")
    assert ARGUMENTS_ADVICE not in (result.error or "")
    assert "smaller" in (result.error or "")


@pytest.mark.slow
def test_a_crashed_worker_process_does_not_blame_the_arguments() -> None:
    """A process-isolated handler that dies says the arguments did not cause it."""
    result = run("dies")
    assert result.error_kind is ErrorKind.TOOL_ERROR
    error = result.error or ""
    assert "stopped without a result" in error
    assert "code 9" in error
    assert ARGUMENTS_ADVICE not in error
    assert "do not retry with different ones" in error
    assert result.metadata["retryable"] is False
    assert result.metadata["exception_type"] == "ProcessError"


class WorkerCrashedError(Exception):
    pass


class NodeDiedError(Exception):
    pass


class OutOfMemoryError(Exception):
    pass


class TaskCancelledError(Exception):
    pass


@pytest.mark.parametrize(
    ("exc", "advice", "retryable"),
    [
        (WorkerCrashedError("worker 1 exited"), "do not retry with different ones", False),
        (NodeDiedError("node 2 left"), "do not retry with different ones", False),
        (OutOfMemoryError("node 3 is full"), "A smaller request may succeed", True),
    ],
    ids=["worker", "node", "memory"],
)
def test_a_lost_ray_task_does_not_blame_the_arguments(
    exc: Exception, advice: str, retryable: bool
) -> None:
    """Ray's dead worker, departed node and out-of-memory kill each get their own advice."""
    from forge.tools.integrations.ray import _lost

    exceptions = SimpleNamespace(
        TaskCancelledError=TaskCancelledError, WorkerCrashedError=WorkerCrashedError,
        NodeDiedError=NodeDiedError, OutOfMemoryError=OutOfMemoryError,
    )  # fmt: skip
    result = _lost(rejects, exc, SimpleNamespace(exceptions=exceptions))
    error = result.error or ""
    assert ARGUMENTS_ADVICE not in error
    assert advice in error
    assert str(exc) in error
    assert result.metadata["retryable"] is retryable
    assert result.metadata["exception_type"] == type(exc).__name__


def http_registry(url: str) -> ToolRegistry:
    definition = {
        "name": "call_api", "description": "Call the test API.",
        "parameters": {"type": "object", "properties": {}},
        "implementation": {"type": "http", "url": url},
    }  # fmt: skip
    return ToolRegistry([
        build_tool(
            definition, builtins=HandlerRegistry("builtin"), internal=HandlerRegistry("internal"),
            allow_private_network=True,
        )
    ])  # fmt: skip


def test_an_unreachable_http_server_suggests_retrying_later() -> None:
    """An http tool whose server refuses the connection says to retry later."""
    with ToolExecutor(http_registry(f"http://127.0.0.1:{closed_port()}/x")) as executor:
        result = executor.run_sync("call_api", {})
    error = result.error or ""
    assert "could not be reached" in error
    assert "different arguments will not" in error
    assert result.metadata["retryable"] is True


def test_a_misconfigured_http_tool_says_not_to_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    """An http tool whose environment variable is unset is the deployment's fault."""
    monkeypatch.delenv("FORGE_TEST_UNSET_BASE", raising=False)
    with ToolExecutor(http_registry("${FORGE_TEST_UNSET_BASE}/x")) as executor:
        result = executor.run_sync("call_api", {})
    error = result.error or ""
    assert "FORGE_TEST_UNSET_BASE" in error
    assert "do not retry it" in error
    assert result.metadata["retryable"] is False
