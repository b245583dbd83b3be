"""The README's agent-framework examples run as written, each with the framework's own agent
and a scripted model standing in for ``model``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from tests.unit.test_readme import run_block, session


@pytest.fixture
def namespace() -> dict[str, Any]:
    """The 'Defining tools' session plus the examples' shared executor."""
    return run_block("frameworks-executor", session())


@pytest.fixture
def own_loop() -> Iterator[None]:
    """The thread's event loop, which pydantic-ai's ``run_sync`` and the Agents SDK's
    ``Runner.run_sync`` use and leave open on purpose, is one closed afterwards."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield
    asyncio.set_event_loop(None)
    loop.close()


@pytest.fixture
def agents_sdk(own_loop: None) -> Iterator[None]:
    """The OpenAI Agents SDK exports no traces."""
    from agents import set_tracing_disabled

    set_tracing_disabled(True)
    yield
    set_tracing_disabled(False)


def test_pydantic_ai_example(
    namespace: dict[str, Any], capsys: pytest.CaptureFixture[str], own_loop: None
) -> None:
    """pydantic-ai's Agent calls get_weather through the executor; shout is registered."""
    from tests.unit.tools.integrations.test_pydantic_ai import scripted

    namespace["model"] = scripted("get_weather", {"location": "Paris"})
    run_block("pydantic-ai", namespace)
    assert capsys.readouterr().out.startswith("saw: {")
    assert namespace["executor"].metrics.snapshot()["get_weather"].successes == 1
    assert namespace["registry"].execute("shout", {"text": "hi"}).output == "HI"


def test_openai_agents_example(
    namespace: dict[str, Any], capsys: pytest.CaptureFixture[str], agents_sdk: None
) -> None:
    """Runner.run_sync calls get_weather through the executor; add is registered."""
    from tests.unit.tools.integrations.test_openai_agents import ScriptedModel

    namespace["model"] = ScriptedModel("get_weather", {"location": "Paris", "unit": None})
    run_block("openai-agents", namespace)
    assert capsys.readouterr().out == 'saw: {"location":"Paris","temp":21,"unit":"c"}\n'
    assert namespace["registry"].execute("add", {"a": 2, "b": 3}).output == 5


def test_langchain_example(namespace: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    """create_agent gets an error ToolMessage for bad arguments; both conversions hold."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from tests.unit.test_readme import BAD_UNIT, WEATHER
    from tests.unit.tools.integrations.test_langchain_agent import ScriptedChatModel

    namespace["model"] = ScriptedChatModel(name_="get_weather", arguments=BAD_UNIT)
    run_block("langchain", namespace)
    assert capsys.readouterr().out.startswith("saw [error]: Invalid arguments for tool")
    registry, weather = namespace["registry"], namespace["weather"]
    assert weather.invoke({"location": "Paris"}) == WEATHER
    assert registry.execute("multiply", {"a": 6, "b": 7}).output == 42
    [as_openai] = registry.to_provider("openai", allowed=["get_weather"])
    assert convert_to_openai_tool(weather) == as_openai
    assert "unit" in weather.invoke(BAD_UNIT)
