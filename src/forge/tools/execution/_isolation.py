"""Process isolation: run one call in a fresh interpreter that can be killed (EX-4).

A thread cannot be stopped from outside, so a sync handler that ignores its
timeout keeps running after the caller has moved on. A tool with
``placement="process"`` instead runs each call in a new Python process
(``python -m forge.tools.execution._isolation``): the validated arguments go in on
stdin, the result comes back on stdout, and on timeout or cancellation the
process is killed (SIGKILL on POSIX, sent to the child's own process group,
so processes the handler started are killed with it). Each call pays for a fresh interpreter
(tens of milliseconds), so isolate only the tools that need it.

The child imports the handler by module and qualified name, falling back to
the module's file (so test modules and scripts work), which means the handler
must be a module-level function; its arguments and return value must pickle.
The handler's own prints go to stderr, which the child shares with the parent.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from forge.core.errors import ToolDefinitionError

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool
    from forge.tools.values.context import ExecutionContext

__all__ = ["IsolatedCall", "Outcome", "Target", "target_of"]

_POSIX = os.name == "posix"

Outcome = tuple[Any, ...]
"""``("ok", value)``, ``("error", type name, message, traceback)`` or ``("crash", detail)``."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where a child process finds the handler, and how to call it."""

    module: str
    qualname: str
    file: str | None
    call_style: Literal["kwargs", "dict"]
    context_params: tuple[str, ...]


def target_of(tool: Tool) -> Target:
    """Describe ``tool``'s handler so a child process can import and call it.

    Raises:
        ToolDefinitionError: The handler cannot be imported by name in another process.
    """
    from forge.tools.schema import FunctionSource, ModelSource, SchemaSource

    source = tool.source
    context_params: tuple[str, ...] = ()
    style: Literal["kwargs", "dict"] = "kwargs"
    if isinstance(source, FunctionSource):
        from forge.tools.schema import context_parameters, type_hints

        fn = source.fn
        context_params = context_parameters(fn, type_hints(tool.name, fn))
    elif isinstance(source, SchemaSource | ModelSource) and source.fn is not None:
        fn = source.fn
        style = source.call_style if isinstance(source, SchemaSource) else "kwargs"
    else:
        raise ToolDefinitionError(
            tool.name, "only function, record and builder tools can run isolated in a process"
        )
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if not module or not qualname or "<" in qualname:
        raise ToolDefinitionError(
            tool.name,
            f"an isolated tool's handler must be a module-level function; {qualname or fn!r} "
            "cannot be imported by name in another process",
        )
    file = getattr(sys.modules.get(module), "__file__", None)
    return Target(module, qualname, file, style, context_params)


class IsolatedCall:
    """One call in a child process: `start`, then `wait`; `kill` at any time."""

    def __init__(self, target: Target, kwargs: dict[str, Any], context: ExecutionContext) -> None:
        self._payload = _payload(target, kwargs, context)
        self._proc: subprocess.Popen[bytes] | None = None
        self._killed = False
        self._waiting = False
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the child process."""
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "forge.tools.execution._isolation"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=_POSIX,  # its own process group: a kill reaches its children
        )

    @property
    def pid(self) -> int | None:
        """The child's process id, once started."""
        return self._proc.pid if self._proc is not None else None

    def wait(self, timeout: float | None = None) -> Outcome | None:
        """Send the call, wait for the result; ``None`` (child killed) on timeout or `kill`."""
        proc = self._proc
        if proc is None:
            raise RuntimeError("start() the call first")
        with self._lock:
            if self._killed:
                _close_streams(proc)
                return None
            self._waiting = True
        try:
            out, _ = proc.communicate(self._payload, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        except (BrokenPipeError, ValueError, OSError):  # killed while sending
            out = b""
        finally:
            with self._lock:
                self._waiting = False
            _close_streams(proc)
        if self.killed:
            return None
        try:
            outcome: Outcome = pickle.loads(out)
        except Exception:
            sent = f" (it wrote {len(out)} bytes that are not one)" if out else ""
            return (
                "crash",
                f"its process exited with code {proc.returncode} without a result{sent}",
            )
        return outcome

    @property
    def killed(self) -> bool:
        """Whether `kill` was called (perhaps from another thread)."""
        with self._lock:
            return self._killed

    def kill(self) -> None:
        """Kill the child (if still running) and reap it.

        A `wait` under way on another thread returns ``None`` once the child's end of the
        pipe closes, and closes the streams itself: closing them under it would free
        their descriptors for reuse, and it could then read another call's result.
        """
        with self._lock:
            self._killed = True
            waiting = self._waiting
        proc = self._proc
        if proc is None:
            return
        if _POSIX:  # the whole group: processes the handler started die with it
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL cannot be ignored
            proc.wait(timeout=5)
        if not waiting:
            _close_streams(proc)


def _close_streams(proc: subprocess.Popen[bytes]) -> None:
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):  # a pipe the child left unread
                stream.close()


def _payload(target: Target, kwargs: dict[str, Any], context: ExecutionContext) -> bytes:
    context = context.replace(
        permissions=None, approve=None, on_progress=None, on_log=None, on_elicit=None,
        on_sample=None,
    )  # fmt: skip
    try:
        body = pickle.dumps((kwargs, context))
    except Exception:
        body = pickle.dumps((kwargs, context.replace(metadata={})))
    head = pickle.dumps((list(sys.path), target))
    return len(head).to_bytes(8, "big") + head + body


# -- the child side ----------------------------------------------------------------------


def _load(target: Target) -> Any:
    import importlib
    import importlib.util

    try:
        module = importlib.import_module(target.module)
    except ImportError:
        if target.file is None:
            raise
        name = "__mp_main__" if target.module == "__main__" else target.module
        spec = importlib.util.spec_from_file_location(name, target.file)
        if spec is None or spec.loader is None:
            raise
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = sys.modules[target.module] = module
        spec.loader.exec_module(module)
    obj: Any = module
    for part in target.qualname.split("."):
        obj = getattr(obj, part)
    from forge.tools.model.tool import Tool

    return obj.handler if isinstance(obj, Tool) else obj  # @tool binds the name to a Tool


def _call(data: bytes) -> Outcome:
    import asyncio
    import inspect

    size = int.from_bytes(data[:8], "big")
    sys_path, target = pickle.loads(data[8 : 8 + size])
    for entry in reversed(sys_path):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    fn = _load(target)
    kwargs, context = pickle.loads(data[8 + size :])
    if target.call_style == "dict":
        out = fn(kwargs)
    else:
        out = fn(**kwargs, **dict.fromkeys(target.context_params, context))
    if inspect.isawaitable(out):
        out = asyncio.run(_await(out))
    return ("ok", out)


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _child() -> None:
    import traceback

    result_stream = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # the handler's prints must not corrupt the result stream
    data = sys.stdin.buffer.read()
    try:
        outcome = _call(data)
    except BaseException as exc:  # report everything, even SystemExit, to the parent
        outcome = ("error", type(exc).__name__, str(exc), traceback.format_exc())
    try:
        blob = pickle.dumps(outcome)
    except Exception as exc:
        blob = pickle.dumps(
            ("error", "TypeError", f"the result cannot be sent back from the process: {exc}", "")
        )
    result_stream.write(blob)
    result_stream.flush()


if __name__ == "__main__":
    _child()
