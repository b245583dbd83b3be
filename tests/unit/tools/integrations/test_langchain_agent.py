"""LangChain's own agent (``create_agent``) runs forge tools through the executor.

The model is a LangChain chat model that supports ``bind_tools``: it makes one scripted tool
call, then answers with the tool message it got, so each test sees what the model saw. A
model-caused failure must be an error ``ToolMessage``, never an exception ending the run.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool as lc_tool
from langchain_core.utils.function_calling import convert_to_openai_tool

from forge.tools import Image, ToolExecutor, ToolRegistry, tool
from forge.tools.integrations.langchain import from_langchain, to_langchain_tools
from tests.unit.tools.integrations import agent_tools as at


class ScriptedChatModel(BaseChatModel):
    """Calls one tool, then answers with the tool message it got back."""

    name_: str
    arguments: dict[str, Any]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            reply = AIMessage(content=f"saw [{last.status}]: {last.content}")
        else:
            call = {"name": self.name_, "args": self.arguments, "id": "call_1", "type": "tool_call"}
            reply = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=reply)])


def run(call: tuple[str, dict[str, Any]], *, asynchronous: bool = False) -> tuple[Any, Any]:
    """Run create_agent on a scripted call; return the tool message, the answer and metrics."""
    executor, metrics = at.executor()
    model = ScriptedChatModel(name_=call[0], arguments=call[1])
    agent = create_agent(model, tools=to_langchain_tools(executor))
    given = {"messages": [{"role": "user", "content": "go"}]}
    state = asyncio.run(agent.ainvoke(given)) if asynchronous else agent.invoke(given)
    [message] = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    return message, state["messages"][-1].content, metrics.snapshot()


def test_good_call() -> None:
    """A good call runs through the executor; the model gets the output."""
    message, answer, metrics = run(at.GOOD)
    assert message.status == "success"
    assert message.tool_call_id == "call_1"
    assert answer.startswith("saw [success]: ")
    assert "Paris" in answer
    assert metrics["get_weather"].successes == 1


def test_bad_arguments_are_an_error_tool_message() -> None:
    """Bad arguments are an error ToolMessage with our message; the run goes on."""
    message, answer, metrics = run(at.BAD)
    assert message.status == "error"
    assert message.content.startswith("Invalid arguments for tool 'get_weather'")
    assert answer.startswith("saw [error]: Invalid arguments")
    assert metrics["get_weather"].failures == 1


def test_denied_call_is_an_error_tool_message() -> None:
    """The executor's permission policy applies; the model gets the reason."""
    message, answer, metrics = run(at.DENIED)
    assert message.status == "error"
    assert at.DENY_REASON in message.content
    assert at.DENY_REASON in answer
    assert metrics["delete_file"].errors == {"denied": 1}


def test_timeout_is_an_error_tool_message() -> None:
    """A call over its timeout is stopped; the model gets the timeout message."""
    message, answer, metrics = run(at.SLOW)
    assert message.status == "error"
    assert "did not finish within 0.05 s" in message.content
    assert answer.startswith("saw [error]")
    assert metrics["slow_search"].timeouts == 1


def test_async_agent() -> None:
    """The same holds when the agent runs asynchronously (the tools' coroutines)."""
    message, answer, metrics = run(at.BAD, asynchronous=True)
    assert message.status == "error"
    assert "unit" in answer
    good, _, _ = run(at.GOOD, asynchronous=True)
    assert good.status == "success"
    assert metrics["get_weather"].failures == 1


@lc_tool
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def test_langchain_tools_into_a_registry_and_back_into_their_agent() -> None:
    """Their tool runs in our executor with its schema, and in their agent through ours."""
    [imported] = [from_langchain(multiply)]
    assert imported.parameters == convert_to_openai_tool(multiply)["function"]["parameters"]
    executor = ToolExecutor(ToolRegistry([imported]))
    assert executor.run_sync("multiply", {"a": 6, "b": 7}).output == 42
    model = ScriptedChatModel(name_="multiply", arguments={"a": 6, "b": 7})
    agent = create_agent(model, tools=to_langchain_tools(executor))
    state = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
    assert state["messages"][-1].content == "saw [success]: 42"


@tool
def chart() -> list[Any]:
    """Draw a chart."""
    return ["A chart:", Image(b"\x89PNG\r\n\x1a\n", "image/png")]


@tool(output_limit=1000)
def long_text() -> str:
    """Return a long text."""
    return "x" * 5000


def test_content_parts_and_cut_output_reach_the_model_as_text() -> None:
    """Parts become text (an image noted as left out); an output over its limit is cut."""
    [lc_chart, lc_long] = to_langchain_tools([chart, long_text])
    text = lc_chart.invoke({})
    assert text.startswith("A chart:\n[image (image/png, 8 bytes) left out: langchain")
    cut = lc_long.invoke({})
    assert "output cut" in cut
    assert len(cut) <= 1000
