"""The LangChain bridge: to_langchain / from_langchain, and the optional extra."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool, ToolException
from langchain_core.tools import tool as lc_tool

from forge.core.errors import MissingDependencyError, ToolDefinitionError
from forge.tools import ToolExecutor, ToolRegistry, tool
from forge.tools.integrations.langchain import from_langchain, to_langchain


@tool
def add(a: int, b: int = 2) -> int:
    """Add two integers."""
    return a + b


@tool
async def slow_add(a: int, b: int) -> int:
    """Add, asynchronously."""
    return a + b


@tool
def boom(x: int) -> int:
    """Always fails."""
    raise RuntimeError("nope")


def test_to_langchain_keeps_name_schema_and_validation() -> None:
    """The StructuredTool has our schema, runs our handler and rejects what we reject."""
    lc = to_langchain(add)
    assert isinstance(lc, StructuredTool)
    assert (lc.name, lc.description) == ("add", "Add two integers.")
    assert lc.args_schema == add.parameters
    assert lc.invoke({"a": 1}) == 3
    assert "a: Input should be a valid integer" in lc.invoke({"a": "1"})
    assert "missing required parameter" in lc.invoke({})


def test_async_and_failing_tools() -> None:
    """Async tools run through ``ainvoke``; a failure is the tool's answer, an error ToolMessage."""
    assert asyncio.run(to_langchain(slow_add).ainvoke({"a": 2, "b": 3})) == 5
    assert asyncio.run(to_langchain(add).ainvoke({"a": 2})) == 4
    assert "nope" in to_langchain(boom).invoke({"x": 1})
    assert "Invalid arguments" in asyncio.run(to_langchain(add).ainvoke({"a": "x"}))
    call = {"name": "boom", "args": {"x": 1}, "id": "call_9", "type": "tool_call"}
    message = to_langchain(boom).invoke(call)
    assert isinstance(message, ToolMessage)
    assert (message.status, message.tool_call_id) == ("error", "call_9")
    assert "nope" in message.content


def test_handle_tool_error_off_raises() -> None:
    """Turning LangChain's handle_tool_error off gives back the ToolException."""
    lc = to_langchain(add)
    lc.handle_tool_error = False
    with pytest.raises(ToolException, match="Invalid arguments"):
        lc.invoke({"a": "x"})


def test_executor_must_hold_the_tool() -> None:
    """A tool the given executor does not hold is refused when converted."""
    with pytest.raises(ToolDefinitionError, match="not in the executor's registry"):
        to_langchain(add, executor=ToolExecutor(ToolRegistry([boom])))


def test_registry_target_builds_structured_tools() -> None:
    """``to_provider("langchain")`` returns one StructuredTool per tool, in order."""
    out = ToolRegistry([add, slow_add]).to_provider("langchain")
    assert [t.name for t in out] == ["add", "slow_add"]


def test_from_langchain_imports_and_runs() -> None:
    """A LangChain tool becomes a Tool whose schema validates and whose calls run it."""

    @lc_tool
    def multiply(x: int, y: int) -> int:
        """Multiply two integers."""
        return x * y

    imported = from_langchain(multiply)
    assert imported.parameters["required"] == ["x", "y"]
    assert ToolRegistry([imported]).execute("multiply", {"x": 2, "y": 3}).output == 6
    assert from_langchain(multiply, name="times").name == "times"


def test_from_langchain_round_trips_our_tools() -> None:
    """to_langchain then from_langchain gives back the same schema and behaviour."""
    back = from_langchain(to_langchain(add))
    assert back.parameters["properties"] == add.parameters["properties"]
    assert ToolRegistry([back]).execute("add", {"a": 5}).output == 7


def test_from_langchain_async_only_and_odd_names() -> None:
    """An async-only LangChain tool imports as an async tool; a dotted name is mapped."""

    async def fetch(q: str) -> str:
        return q.upper()

    lc = StructuredTool.from_function(coroutine=fetch, name="web.fetch", description="Fetch.")
    imported = from_langchain(lc)
    assert imported.name == "web_fetch"
    assert imported.is_async
    result = asyncio.run(ToolRegistry([imported]).aexecute("web_fetch", {"q": "a"}))
    assert result.output == "A"


def test_from_langchain_rejects_other_objects() -> None:
    """Only LangChain tools are accepted."""
    with pytest.raises(ToolDefinitionError, match="BaseTool"):
        from_langchain(object())


def test_missing_extra_names_the_langchain_extra() -> None:
    """Without langchain-core the error names the extra to install."""
    code = (
        "import sys\n"
        "sys.modules['langchain_core'] = sys.modules['langchain_core.tools'] = None\n"
        "from forge.tools import tool\n"
        "from forge.tools.integrations.langchain import to_langchain\n"
        "@tool\ndef f(x: int) -> int:\n    '''F.'''\n    return x\n"
        "try:\n    to_langchain(f)\n"
        "except ImportError as e:\n    print(type(e).__name__, e.extra)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "MissingDependencyError langchain"
    assert issubclass(MissingDependencyError, ImportError)


def test_import_forge_tools_does_not_import_langchain(tmp_path: Any) -> None:
    """Neither forge.tools nor forge.tools.formats imports LangChain."""
    code = "import sys, forge.tools, forge.tools.formats; print('langchain_core' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_tool_and_registry_convert_themselves() -> None:
    """``tool.to_langchain_tool()`` and ``registry.to_langchain_tools()`` are the bridge's."""
    lc = add.to_langchain_tool()
    assert isinstance(lc, StructuredTool)
    assert (lc.name, lc.args) == (to_langchain(add).name, to_langchain(add).args)
    assert lc.invoke({"a": 1, "b": 2}) == 3
    registry = ToolRegistry([add, slow_add])
    tools = registry.to_langchain_tools()
    assert [t.name for t in tools] == ["add", "slow_add"]
    assert tools[0].invoke({"a": 4}) == 6


def test_the_delegates_name_the_missing_extra() -> None:
    """Without langchain-core both delegates raise `MissingDependencyError`, even with no tool."""
    code = (
        "import sys\n"
        "sys.modules['langchain_core'] = sys.modules['langchain_core.tools'] = None\n"
        "from forge.tools import ToolRegistry, tool\n"
        "@tool\ndef f(x: int) -> int:\n    '''F.'''\n    return x\n"
        "for convert in (f.to_langchain_tool, ToolRegistry().to_langchain_tools):\n"
        "    try:\n        convert()\n"
        "    except ImportError as e:\n        print(type(e).__name__, e.extra)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["MissingDependencyError langchain"] * 2
