"""A `Tool` looks like the function it wraps to libraries that inspect callables."""

from __future__ import annotations

import asyncio
import inspect
import typing

import pytest

from forge.tools import Tool, ToolRegistry, from_record, tool


@tool(name="weather")
def get_weather(location: str, unit: typing.Literal["c", "f"] = "c") -> dict[str, str]:
    """Get the current weather.

    Args:
        location: City name.
        unit: Temperature unit.
    """
    return {"location": location, "unit": unit}


def test_tool_reads_like_its_function() -> None:
    """``__name__`` is the tool's name; the rest are the handler's, as functools.wraps sets them."""
    handler = get_weather.handler
    assert get_weather.__name__ == "weather"
    assert get_weather.__wrapped__ is handler
    assert get_weather.__doc__ == handler.__doc__
    assert get_weather.__qualname__ == handler.__qualname__ == "get_weather"
    assert get_weather.__module__ == __name__
    assert get_weather.__annotations__ == handler.__annotations__
    assert inspect.signature(get_weather) == inspect.signature(handler)
    assert typing.get_type_hints(get_weather) == typing.get_type_hints(handler)


def test_the_class_keeps_its_own_attributes() -> None:
    """On the class the same names are the class's: its docstring, module and fields."""
    assert (Tool.__name__, Tool.__qualname__) == ("Tool", "Tool")
    assert Tool.__module__ == "forge.tools.model.tool"
    assert str(Tool.__doc__).startswith("One tool")
    assert list(Tool.__annotations__)[:3] == ["name", "description", "handler"]
    assert isinstance(Tool.__module__, str)


def test_a_tool_without_handler_has_no_wrapped() -> None:
    """A record without a Python handler has no ``__wrapped__``; its doc is the description."""
    record = {"name": "remote", "description": "Runs elsewhere.", "parameters": {"type": "object"}}
    remote = from_record({**record, "handler": lambda: None}).replace(handler=None)
    assert not hasattr(remote, "__wrapped__")
    assert remote.__doc__ == "Runs elsewhere."
    assert remote.__qualname__ == "remote"
    assert remote.__annotations__ == {}
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        _ = remote.missing


def test_pydantic_ai_takes_a_tool_as_a_function() -> None:
    """pydantic-ai's Agent(tools=[...]) accepts a Tool and builds the same schema from it."""
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    model = TestModel()
    agent = Agent(model, tools=[get_weather])
    result = asyncio.run(agent.run("weather?"))
    [definition] = model.last_model_request_parameters.function_tools  # type: ignore[union-attr]
    assert definition.name == "weather"
    assert definition.description == "Get the current weather."
    assert definition.parameters_json_schema["properties"].keys() == {"location", "unit"}
    assert "weather" in result.output


def test_registry_still_takes_it() -> None:
    """Nothing about registering or running changes."""
    assert ToolRegistry([get_weather]).execute("weather", {"location": "Oslo"}).output == {
        "location": "Oslo",
        "unit": "c",
    }


def _forecast(city: str) -> str:
    return f"sunny in {city}"


forecast = tool(_forecast, name="forecast")


def test_a_tool_pickles_with_what_it_reads_like() -> None:
    """A pickled tool (as Ray ships one) comes back whole: its name, its handler's
    qualified name and a validated call."""
    import copy
    import pickle

    for back in (pickle.loads(pickle.dumps(forecast)), copy.deepcopy(forecast)):
        assert (back.name, back.__name__, back.__qualname__) == ("forecast",) * 2 + ("_forecast",)
        assert back.execute_sync({"city": "Oslo"}) == "sunny in Oslo"
