"""The pydantic-ai bridge: a registry as a toolset, run by pydantic-ai's own Agent.

The model is pydantic-ai's ``FunctionModel``: it makes one scripted tool call, then answers
with what the tool sent back, so each test sees exactly what the model saw.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic_ai import Agent, BinaryContent, RunContext, Tool
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.toolsets import FunctionToolset

from forge.core.errors import ToolDefinitionError
from forge.tools import ExecutionContext, Image, ToolExecutor, ToolRegistry, tool
from forge.tools.integrations.pydantic_ai import ForgeToolset, from_pydantic_ai, to_pydantic_ai
from tests.unit.tools.integrations import agent_tools as at


@pytest.fixture(autouse=True)
def own_loop() -> Iterator[None]:
    """The loop pydantic-ai's ``run_sync`` uses and leaves open on purpose is closed after."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield
    asyncio.set_event_loop(None)
    loop.close()


def scripted(name: str, arguments: dict[str, Any]) -> FunctionModel:
    """A model that calls ``name`` once, then answers with the last tool message it got."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        answers = [p for p in last.parts if isinstance(p, ToolReturnPart | RetryPromptPart)]
        if not answers:
            return ModelResponse(parts=[ToolCallPart(name, arguments, tool_call_id="call_1")])
        seen = answers[-1]
        text = (
            seen.model_response()
            if isinstance(seen, RetryPromptPart)
            else seen.model_response_str()
        )
        return ModelResponse(parts=[TextPart(f"saw: {text}")])

    return FunctionModel(respond)


def tool_answer(result: Any) -> ToolReturnPart | RetryPromptPart:
    """The tool's answer in the run's messages."""
    [part] = [
        p
        for m in result.all_messages()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart | RetryPromptPart)
    ]
    return part


@tool
def whoami(context: ExecutionContext) -> str:
    """Say the session."""
    return str(context.session_id)


def run(call: tuple[str, dict[str, Any]]) -> tuple[Any, Any]:
    """Run an agent with the test tools on a scripted call; return its result and metrics."""
    executor, metrics = at.executor()
    agent = Agent(scripted(*call), toolsets=[to_pydantic_ai(executor)])
    return agent.run_sync("go"), metrics.snapshot()


def test_good_call() -> None:
    """A good call runs through the executor; the model gets the output."""
    result, metrics = run(at.GOOD)
    part = tool_answer(result)
    assert isinstance(part, ToolReturnPart)
    assert part.content == at.WEATHER
    assert part.tool_call_id == "call_1"
    assert metrics["get_weather"].successes == 1


def test_bad_arguments_are_a_retry_with_our_message() -> None:
    """Bad arguments come back as pydantic-ai's retry prompt with our message; the run goes on."""
    result, metrics = run(at.BAD)
    part = tool_answer(result)
    assert isinstance(part, ToolReturnPart)
    assert part.outcome == "retried"
    assert "unit" in str(part.content)
    assert "'c' or 'f'" in str(part.content)
    assert result.output.startswith("saw:")
    assert "unit" in result.output
    assert metrics["get_weather"].failures == 1


def test_denied_call_is_a_failed_result() -> None:
    """A call the policy denies never runs; the model gets the reason as a failed result."""
    result, metrics = run(at.DENIED)
    part = tool_answer(result)
    assert isinstance(part, ToolReturnPart)
    assert part.outcome == "failed"
    assert at.DENY_REASON in str(part.content)
    assert at.DENY_REASON in result.output
    assert metrics["delete_file"].errors == {"denied": 1}


def test_timeout_is_a_failed_result() -> None:
    """A call over its timeout is stopped; the model gets a timeout failure and the run goes on."""
    result, metrics = run(at.SLOW)
    part = tool_answer(result)
    assert isinstance(part, ToolReturnPart)
    assert part.outcome == "failed"
    assert "did not finish within 0.05 s" in str(part.content)
    assert "did not finish" in result.output
    assert metrics["slow_search"].timeouts == 1


def test_definitions_are_ours() -> None:
    """The model sees each tool's own name, description and JSON Schema."""
    model = TestModel(call_tools=[])
    Agent(model, toolsets=[ForgeToolset(at.registry())]).run_sync("go")
    params = model.last_model_request_parameters
    assert params is not None
    sent = {d.name: d for d in params.function_tools}
    assert list(sent) == ["get_weather", "delete_file", "slow_search"]
    assert sent["get_weather"].parameters_json_schema == at.get_weather.parameters
    assert sent["get_weather"].description == at.get_weather.description


def test_test_model_calls_every_tool() -> None:
    """pydantic-ai's TestModel calls each tool with arguments it makes up from the schema."""
    only = ToolRegistry([at.get_weather])
    result = Agent(TestModel(), toolsets=[to_pydantic_ai(only, max_retries=0)]).run_sync("go")
    assert "get_weather" in result.output


def test_context_from_the_run_context() -> None:
    """A function of pydantic-ai's RunContext gives each call its ExecutionContext."""
    toolset = to_pydantic_ai(
        [whoami], context=lambda ctx: ExecutionContext(session_id=f"user-{ctx.deps}")
    )
    agent = Agent(scripted("whoami", {}), toolsets=[toolset], deps_type=int)
    assert agent.run_sync("go", deps=7).output == "saw: user-7"


# -- pydantic-ai tools into a registry -------------------------------------------------------


def temperature(ctx: RunContext[int], city: str, hot: bool = False) -> dict[str, Any]:
    """Temperature in a city.

    Args:
        city: The city.
        hot: Whether to exaggerate.
    """
    return {"city": city, "temp": ctx.deps + (20 if hot else 0)}


async def shout(text: str) -> str:
    """Shout it."""
    return text.upper()


def test_from_pydantic_ai_keeps_schemas_and_runs_through_the_executor() -> None:
    """Their tools become ours with the same schema, and our executor runs them."""
    theirs = Tool(temperature)
    imported = from_pydantic_ai([theirs, shout], deps=5)
    assert [t.name for t in imported] == ["temperature", "shout"]
    assert imported[0].parameters == theirs.tool_def.parameters_json_schema
    assert imported[0].description == theirs.tool_def.description
    executor = ToolExecutor(ToolRegistry(imported))
    assert executor.run_sync("temperature", {"city": "Oslo"}).output == {"city": "Oslo", "temp": 5}
    assert executor.run_sync("shout", {"text": "hi"}).output == "HI"
    bad = executor.run_sync("temperature", {"city": 3})
    assert bad.error_kind == "invalid_arguments"


def test_from_pydantic_ai_toolset_and_run_only_fields() -> None:
    """A FunctionToolset's tools import; a tool reading run-only fields gets a clear failure."""

    def model_name(ctx: RunContext[None]) -> str:
        """Name the model."""
        return str(ctx.model)

    imported = from_pydantic_ai(FunctionToolset([model_name, shout]))
    result = ToolExecutor(ToolRegistry(imported)).run_sync("model_name", {})
    assert result.error_kind == "tool_error"
    assert "'model' is not available" in str(result.error)
    assert "deps" in str(result.error)


def test_round_trip_through_pydantic_ai() -> None:
    """Our toolset's tools are not pydantic-ai Tools; theirs round-trip through ours unchanged."""
    back = from_pydantic_ai(Tool(shout))[0]
    agent = Agent(scripted("shout", {"text": "hey"}), toolsets=[to_pydantic_ai([back])])
    assert agent.run_sync("go").output == "saw: HEY"


def test_from_pydantic_ai_rejects_other_objects() -> None:
    """Our own tools and non-callables are refused with the accepted kinds named."""
    with pytest.raises(ToolDefinitionError, match="pydantic-ai Tools"):
        from_pydantic_ai([at.get_weather])
    with pytest.raises(ToolDefinitionError, match="got int"):
        from_pydantic_ai(3)


def test_to_pydantic_ai_rejects_other_objects() -> None:
    """Only forge tools, registries and executors are accepted."""
    with pytest.raises(ToolDefinitionError, match="define it with @tool"):
        to_pydantic_ai([shout])


@pytest.mark.slow
def test_missing_extra_names_it() -> None:
    """Without pydantic-ai the import error names the extra to install."""
    code = (
        "import sys\nsys.modules['pydantic_ai'] = None\n"
        "try:\n    import forge.tools.integrations.pydantic_ai\n"
        "except ImportError as e:\n    print(type(e).__name__, e.extra)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "MissingDependencyError pydantic-ai"


@tool
def chart() -> list[Any]:
    """Draw a chart."""
    return ["A chart:", Image(b"\x89PNG\r\n\x1a\n", "image/png")]


def test_images_go_as_binary_content() -> None:
    """Content parts reach pydantic-ai as text and BinaryContent."""
    result = Agent(scripted("chart", {}), toolsets=[to_pydantic_ai([chart])]).run_sync("go")
    part = tool_answer(result)
    assert isinstance(part, ToolReturnPart)
    text, image = part.content
    assert text == "A chart:"
    assert isinstance(image, BinaryContent)
    assert (image.data, image.media_type) == (b"\x89PNG\r\n\x1a\n", "image/png")
