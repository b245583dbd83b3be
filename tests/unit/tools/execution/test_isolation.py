"""Process isolation: isolated tools run in a child process that is killed on timeout."""

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from forge.core.errors import ToolDefinitionError
from forge.tools import ErrorKind, ExecutionContext, ToolRegistry, tool
from forge.tools.execution._isolation import IsolatedCall, target_of
from forge.tools.execution.executor import ToolExecutor

pytestmark = pytest.mark.slow  # child processes


@tool(placement="process")
def hang(pid_file: str) -> str:
    """Write this process's id, then sleep a minute."""
    Path(pid_file).write_text(str(os.getpid()))
    time.sleep(60)
    return "woke"


@tool(placement="process")
def spawn_and_hang(pid_file: str) -> str:
    """Start a grandchild process, write its id, then sleep a minute."""
    grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    Path(pid_file).write_text(str(grandchild.pid))
    time.sleep(60)
    return "woke"


@tool(placement="process")
def leave_a_daemon(pid_file: str) -> str:
    """Fork a process into a session of its own (out of reach of the kill, holding this
    process's descriptors), write its id, then sleep a minute."""
    daemon = os.fork()
    if daemon == 0:
        os.setsid()
        time.sleep(60)
        os._exit(0)
    Path(pid_file).write_text(str(daemon))
    time.sleep(60)
    return "woke"


@tool(placement="process")
def where(ctx: ExecutionContext, x: int) -> dict[str, Any]:
    """Return the process id, the argument and the session of the injected context."""
    print("handler output goes to stderr, not into the result")
    return {"pid": os.getpid(), "x": x, "session": ctx.session_id}


@tool(placement="process")
async def async_where(x: int) -> int:
    """Run an async handler in the child process."""
    await asyncio.sleep(0)
    return os.getpid()


@tool(placement="process")
def explode() -> None:
    """Raise inside the child process."""
    raise ValueError("bad input in child")


@tool(placement="process", error_details="type")
def secret_failure() -> None:
    """Raise with a message that must not reach the model."""
    raise PermissionError("token=abc123")


@tool(placement="process")
def crash() -> None:
    """Die without a result."""
    os._exit(7)


@tool(placement="process")
def unpicklable() -> Any:
    """Return something that cannot cross the process boundary."""
    return lambda: None


def registry() -> ToolRegistry:
    return ToolRegistry(
        [
            hang,
            spawn_and_hang,
            leave_a_daemon,
            where,
            async_where,
            explode,
            secret_failure,
            crash,
            unpicklable,
        ]
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_for_pid(path: Path) -> int:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if path.exists() and path.read_text():
            return int(path.read_text())
        time.sleep(0.01)
    raise AssertionError("the child never started the handler")


@pytest.mark.parametrize("entry", ["async", "sync"])
def test_an_isolated_handler_is_killed_at_its_timeout(tmp_path: Path, entry: str) -> None:
    """The child running a hanging handler is killed when the timeout passes."""
    pid_file = tmp_path / "pid"
    ex = ToolExecutor(registry())
    args = {"pid_file": str(pid_file)}
    started = time.perf_counter()
    if entry == "async":
        result = asyncio.run(ex.run("hang", args, timeout=5))
    else:
        result = ex.run_sync("hang", args, timeout=5)
    elapsed = time.perf_counter() - started
    assert result.error_kind is ErrorKind.TIMEOUT
    assert elapsed < 30  # not held until the handler ends; generous for a loaded machine
    pid = wait_for_pid(pid_file)
    assert pid != os.getpid()
    assert not alive(pid)


def gone(pid: int) -> bool:
    """Whether a process has ended (a zombie waiting for its new parent counts as ended)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state in {"Z", "X"}:
            return True
        time.sleep(0.02)
    return False


@pytest.mark.skipif(sys.platform != "linux", reason="reads process states from /proc")
@pytest.mark.parametrize("entry", ["async", "sync"])
def test_processes_an_isolated_handler_started_are_killed_with_it(
    tmp_path: Path, entry: str
) -> None:
    """At the deadline the whole process group dies: the handler's own child too."""
    pid_file = tmp_path / "grandchild"
    ex = ToolExecutor(registry())
    args = {"pid_file": str(pid_file)}
    if entry == "async":
        result = asyncio.run(ex.run("spawn_and_hang", args, timeout=5))
    else:
        result = ex.run_sync("spawn_and_hang", args, timeout=5)
    assert result.error_kind is ErrorKind.TIMEOUT
    grandchild = wait_for_pid(pid_file)
    assert gone(grandchild)


def test_cancelling_an_isolated_call_kills_the_child(tmp_path: Path) -> None:
    """Cancelling the awaiting task kills the child process."""
    pid_file = tmp_path / "pid"
    ex = ToolExecutor(registry())

    async def go() -> int:
        task = asyncio.create_task(ex.run("hang", {"pid_file": str(pid_file)}))
        while not (pid_file.exists() and pid_file.read_text()):
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return int(pid_file.read_text())

    pid = asyncio.run(asyncio.wait_for(go(), 30))
    assert not alive(pid)


def test_a_kill_leaves_the_pipe_to_the_thread_waiting_on_it(tmp_path: Path) -> None:
    """A kill from another thread does not close the result pipe under the waiting thread.

    It used to: the freed descriptor went to the next pipe opened (the next call's), which
    the waiting thread then read, taking that call's result.
    """
    pid_file = tmp_path / "pid"
    call = IsolatedCall(target_of(leave_a_daemon), {"pid_file": str(pid_file)}, ExecutionContext())
    call.start()
    assert call._proc is not None
    assert call._proc.stdout is not None
    result_fd = call._proc.stdout.fileno()
    outcome: list[Any] = []
    waiter = threading.Thread(target=lambda: outcome.append(call.wait()))
    waiter.start()
    daemon = wait_for_pid(pid_file)
    read_end, write_end = os.pipe()  # the next call's pipe
    try:
        call.kill()
        os.write(write_end, b"not yours")
        try:
            os.fstat(result_fd)
        except OSError:  # closed under the waiter: the next pipe may get its number
            os.dup2(read_end, result_fd)
        os.kill(daemon, signal.SIGKILL)  # the last writer of the old pipe: the wait wakes up
        waiter.join(30)
        assert outcome == [None]
        os.set_blocking(read_end, False)
        assert os.read(read_end, 100) == b"not yours"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(daemon, signal.SIGKILL)
        os.close(read_end)
        os.close(write_end)


def test_isolated_results_and_context_cross_the_boundary() -> None:
    """The child gets validated arguments and the context; the result comes back."""
    ex = ToolExecutor(registry())
    ctx = ExecutionContext(session_id="s9", permissions=lambda request: True)
    result = ex.run_sync("where", {"x": 4}, ctx)
    assert result.success, result.error
    assert result.output["x"] == 4
    assert result.output["session"] == "s9"
    assert result.output["pid"] != os.getpid()
    assert asyncio.run(ex.run("async_where", {"x": 1})).output != os.getpid()


def test_an_isolated_call_leaves_the_contexts_callbacks_behind() -> None:
    """Callbacks cannot cross into the child: the call runs, with the context's data."""
    ctx = ExecutionContext(session_id="s10", on_progress=print, on_log=print, on_elicit=print)
    result = ToolExecutor(registry()).run_sync("where", {"x": 2}, ctx)
    assert result.success, result.error
    assert result.output["session"] == "s10"


def test_isolated_failures_are_results() -> None:
    """Child exceptions, crashes and unsendable results become tool errors."""
    ex = ToolExecutor(registry())
    failed = ex.run_sync("explode")
    assert failed.error_kind is ErrorKind.TOOL_ERROR
    assert "ValueError" in (failed.error or "")
    assert "bad input in child" in (failed.error or "")
    hidden = ex.run_sync("secret_failure")
    assert "PermissionError" in (hidden.error or "")
    assert "abc123" not in (hidden.error or "")
    crashed = asyncio.run(ex.run("crash"))
    assert crashed.error_kind is ErrorKind.TOOL_ERROR
    assert "code 7" in (crashed.error or "")
    lost = ex.run_sync("unpicklable")
    assert lost.error_kind is ErrorKind.TOOL_ERROR
    assert "cannot be sent back" in (lost.error or "")


def test_isolation_needs_an_importable_handler() -> None:
    """A local function cannot run isolated: the call fails as a misconfigured tool."""

    @tool(placement="process")
    def local() -> None:
        """Defined inside a test."""

    result = ToolExecutor(ToolRegistry([local])).run_sync("local")
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert result.metadata["retryable"] is False
    assert "module-level" in result.metadata["definition_error"]


def test_placement_is_one_of_three() -> None:
    """A placement other than auto, inline or process is a definition error."""
    with pytest.raises(ToolDefinitionError, match="placement must be"):

        @tool(placement="nowhere")  # type: ignore[arg-type]
        def lost() -> None:
            """Placed nowhere."""
