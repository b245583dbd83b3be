"""The OpenAI Agents SDK bridge: a registry as FunctionTools, run by ``Runner.run``.

The model is a stub implementing the SDK's ``Model`` interface: it makes one scripted tool
call, then answers with the tool output it was sent, so each test sees what the model saw.
No network: tracing is off and nothing leaves the process.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import pytest
from agents import (
    Agent,
    FunctionTool,
    RunConfig,
    RunContextWrapper,
    Runner,
    ToolOutputImage,
    ToolOutputText,
    function_tool,
)
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.tool_context import ToolContext
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from forge.core.errors import ToolDefinitionError
from forge.tools import ExecutionContext, Image, ToolExecutor, ToolRegistry, tool
from forge.tools.integrations.openai_agents import from_openai_agents, to_openai_agents
from tests.unit.tools.integrations import agent_tools as at


class ScriptedModel(Model):
    """Calls one tool, then answers with the tool output it got back."""

    def __init__(self, name: str, arguments: dict[str, Any] | str) -> None:
        self.name = name
        self.arguments = arguments if isinstance(arguments, str) else json.dumps(arguments)

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        outputs = [i for i in input if dict(i).get("type") == "function_call_output"]
        if not outputs:
            call = ResponseFunctionToolCall(
                type="function_call", call_id="call_1", name=self.name,
                arguments=self.arguments, id="fc_1", status="completed",
            )  # fmt: skip
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        text = ResponseOutputText(
            type="output_text", text=f"saw: {outputs[-1]['output']}", annotations=[]
        )
        message = ResponseOutputMessage(
            type="message", id="msg_1", role="assistant", status="completed", content=[text]
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the tests do not stream")


def run(call: tuple[str, Any], tools: list[FunctionTool] | None = None) -> tuple[str, Any]:
    """Run an agent on a scripted call; return its final output and the executor's metrics."""
    executor, metrics = at.executor()
    agent = Agent(
        name="tester", model=ScriptedModel(*call), tools=tools or to_openai_agents(executor)
    )
    result = asyncio.run(Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True)))
    return str(result.final_output), metrics.snapshot()


def test_good_call() -> None:
    """A good call runs through the executor; the model gets the output as JSON."""
    output, metrics = run(at.GOOD)
    assert output == f"saw: {json.dumps(at.WEATHER, separators=(',', ':'))}"
    assert metrics["get_weather"].successes == 1


def test_strict_null_means_the_default() -> None:
    """The null a strict-mode model sends for an optional parameter takes its default."""
    output, _ = run(("get_weather", {"location": "Paris", "unit": None}))
    assert json.loads(output.removeprefix("saw: ")) == at.WEATHER


def test_bad_arguments_are_the_error_text() -> None:
    """Bad arguments come back as our message; the run goes on to a final answer."""
    output, metrics = run(at.BAD)
    assert output.startswith("saw: Invalid arguments for tool 'get_weather'")
    assert "unit" in output
    assert metrics["get_weather"].failures == 1


def test_arguments_that_are_not_json() -> None:
    """Arguments that are not JSON are a message to the model too, not an exception."""
    output, _ = run(("get_weather", '{"location": "Par'))
    assert output.startswith("saw: ")
    assert "JSON" in output


def test_denied_call() -> None:
    """A call the policy denies never runs; the model gets the reason."""
    output, metrics = run(at.DENIED)
    assert at.DENY_REASON in output
    assert metrics["delete_file"].errors == {"denied": 1}


def test_timeout() -> None:
    """A call over its timeout is stopped; the model gets the timeout message."""
    output, metrics = run(at.SLOW)
    assert "did not finish within 0.05 s" in output
    assert metrics["slow_search"].timeouts == 1


def test_strict_schemas_round_trip() -> None:
    """Each FunctionTool has the strict schema to_provider writes, unchanged by the SDK."""
    tools = to_openai_agents(at.registry())
    sent = at.registry().to_provider("openai", strict=True)
    assert [t.name for t in tools] == ["get_weather", "delete_file", "slow_search"]
    for ours, theirs in zip(sent, tools, strict=True):
        assert theirs.params_json_schema == ours["function"]["parameters"]
        assert theirs.strict_json_schema is True
        assert theirs.description == ours["function"]["description"]
    assert to_openai_agents([]) == []


@tool
def whoami(context: ExecutionContext) -> str:
    """Say the session."""
    return str(context.session_id)


def test_context_from_the_tool_context() -> None:
    """A function of the SDK's ToolContext gives each call its ExecutionContext."""
    tools = to_openai_agents(
        [whoami], context=lambda ctx: ExecutionContext(session_id=f"user-{ctx.context}")
    )
    agent = Agent(name="t", model=ScriptedModel("whoami", {}), tools=tools)
    config = RunConfig(tracing_disabled=True)
    result = asyncio.run(Runner.run(agent, "go", context=7, run_config=config))
    assert result.final_output == "saw: user-7"


# -- the SDK's function tools into a registry ------------------------------------------------


@function_tool
def temperature(ctx: RunContextWrapper[int], city: str, hot: bool = False) -> str:
    """Temperature in a city.

    Args:
        city: The city.
        hot: Whether to exaggerate.
    """
    return f"{city}: {ctx.context + (20 if hot else 0)}"


async def shout(text: str) -> str:
    """Shout it."""
    return text.upper()


def test_from_openai_agents_keeps_schemas_and_runs_through_the_executor() -> None:
    """Their tools become ours with the same schema, and our executor runs them."""
    imported = from_openai_agents([temperature, shout], context=5)
    assert [t.name for t in imported] == ["temperature", "shout"]
    assert imported[0].parameters == temperature.params_json_schema
    executor = ToolExecutor(ToolRegistry(imported))
    assert executor.run_sync("temperature", {"city": "Oslo", "hot": True}).output == "Oslo: 25"
    assert executor.run_sync("shout", {"text": "hi"}).output == "HI"
    assert executor.run_sync("temperature", {"city": 3}).error_kind == "invalid_arguments"
    assert from_openai_agents(temperature)[0].name == "temperature"


def test_round_trip_through_the_sdk() -> None:
    """Their tool, through our registry and back out, runs in their agent."""
    back = from_openai_agents(shout)
    output, _ = run(("shout", {"text": "hey"}), tools=to_openai_agents(back))
    assert output == "saw: HEY"


def test_rejects_other_objects() -> None:
    """Each direction names what it takes."""
    with pytest.raises(ToolDefinitionError, match="FunctionTools and plain functions"):
        from_openai_agents([at.get_weather])
    with pytest.raises(ToolDefinitionError, match="define it with @tool"):
        to_openai_agents([shout])


@pytest.mark.slow
def test_missing_extra_names_it() -> None:
    """Without the SDK the import error names the extra to install."""
    code = (
        "import sys\nsys.modules['agents'] = None\n"
        "try:\n    import forge.tools.integrations.openai_agents\n"
        "except ImportError as e:\n    print(type(e).__name__, e.extra)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "MissingDependencyError openai-agents"


@tool
def chart() -> list[Any]:
    """Draw a chart."""
    return ["A chart:", Image(b"\x89PNG\r\n\x1a\n", "image/png")]


def test_images_go_as_tool_output_images() -> None:
    """Content parts reach the SDK as its text and image outputs."""
    [function] = to_openai_agents([chart])
    ctx = ToolContext(None, tool_name="chart", tool_call_id="call_1", tool_arguments="{}")
    text, image = asyncio.run(function.on_invoke_tool(ctx, ""))
    assert text == ToolOutputText(text="A chart:")
    assert isinstance(image, ToolOutputImage)
    assert image.image_url == "data:image/png;base64,iVBORw0KGgo="


def test_the_sdk_refuses_a_tool_as_a_function() -> None:
    """What the README says: the SDK's function_tool refuses callable wrappers, a Tool too."""
    from agents.exceptions import UserError

    with pytest.raises(UserError, match="callable wrapper"):
        function_tool(at.get_weather)
