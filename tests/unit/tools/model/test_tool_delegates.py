"""The tool API of the original design: ``tool.schema`` and ``tool.execute(input)``."""

from __future__ import annotations

import asyncio
import threading

import pytest

from forge.core.errors import ToolExecutionError, ToolValidationError
from forge.tools import ToolRegistry, tool


@tool
def read_file(path: str, encoding: str = "utf-8") -> str:
    """Read a file."""
    return f"{path}:{encoding}"


@tool
async def slow_read(path: str) -> str:
    """Read a file, asynchronously."""
    return path.upper()


@tool(timeout=5)
def timed(x: int) -> int:
    """Runs on a worker thread, because of its timeout."""
    return x * 2


@tool
def boom(x: int) -> int:
    """Always fails."""
    raise RuntimeError("nope")


def test_schema_is_the_input_json_schema() -> None:
    """``tool.schema`` is the parameters JSON Schema the tool validates with."""
    assert read_file.schema is read_file.parameters
    assert read_file.schema["type"] == "object"
    assert read_file.schema["required"] == ["path"]
    with pytest.raises(TypeError):
        read_file.schema["type"] = "array"  # type: ignore[index]


def test_execute_validates_then_returns_the_value() -> None:
    """Valid input runs the handler and gives back its return value itself."""
    assert asyncio.run(read_file.execute({"path": "./README.md"})) == "./README.md:utf-8"
    assert asyncio.run(slow_read.execute({"path": "a"})) == "A"


def test_execute_raises_for_invalid_input() -> None:
    """Invalid input raises `ToolValidationError`, as ``registry.execute`` does."""
    with pytest.raises(ToolValidationError) as raised:
        asyncio.run(read_file.execute({"path": 123}))
    with pytest.raises(ToolValidationError) as registry_raised:
        ToolRegistry([read_file]).execute("read_file", {"path": 123})
    assert raised.value.message == registry_raised.value.message
    with pytest.raises(ToolValidationError):
        read_file.execute_sync({"invalid": "input"})


def test_execute_sync_is_the_blocking_twin() -> None:
    """``execute_sync`` gives what ``execute`` gives, from sync code."""
    assert read_file.execute_sync({"path": "x", "encoding": "ascii"}) == "x:ascii"
    assert slow_read.execute_sync({"path": "b"}) == "B"


def test_a_handler_error_raises_with_the_failed_result() -> None:
    """A handler exception raises `ToolExecutionError` carrying the registry's failed result."""
    with pytest.raises(ToolExecutionError) as raised:
        asyncio.run(boom.execute({"x": 1}))
    failed = raised.value.result
    assert not failed.success
    assert failed.error_kind == "tool_error"
    assert failed.error == ToolRegistry([boom]).execute("boom", {"x": 1}).error
    assert raised.value.message == failed.error
    assert raised.value.tool_name == "boom"
    with pytest.raises(ToolExecutionError):
        boom.execute_sync({"x": 1})


def test_execute_leaves_no_worker_threads_behind() -> None:
    """Each call's engine is closed: calls that use a worker thread do not pile them up."""
    assert timed.execute_sync({"x": 2}) == 4
    before = threading.active_count()
    for i in range(20):
        assert timed.execute_sync({"x": i}) == 2 * i
        assert asyncio.run(timed.execute({"x": i})) == 2 * i
    assert threading.active_count() <= before + 1
