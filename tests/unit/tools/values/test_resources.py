"""The ``resources`` option: what one call reserves on a remote backend's worker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forge.core.errors import ConfigError, ToolDefinitionError
from forge.tools import ToolBuilder, load_tools, tool
from forge.tools.values.resources import ToolResources

FULL = {"num_cpus": 2, "num_gpus": 0.5, "memory": 2**30, "resources": {"dataset_shard": 1}}


def test_the_decorator_takes_resources_as_a_mapping() -> None:
    """@tool(resources=...) gives the tool a ToolResources with Ray's option names."""

    @tool(resources=FULL)
    def train(step: int) -> int:
        """Train one step."""
        return step

    assert train.resources == ToolResources(
        num_cpus=2, num_gpus=0.5, memory=2**30, custom={"dataset_shard": 1}
    )
    assert train.resources.to_options() == {**FULL, "resources": {"dataset_shard": 1.0}}
    assert train.resources.requirements() == {
        "CPU": 2.0,
        "GPU": 0.5,
        "memory": float(2**30),
        "dataset_shard": 1.0,
    }


def test_the_builder_and_a_configuration_file_take_resources(tmp_path: Path) -> None:
    """ToolBuilder.options(resources=...) and a file's ``resources`` key set the same option."""
    built = (
        ToolBuilder()
        .name("fetch_shard")
        .description("Read a shard.")
        .category("file")
        .implement(lambda: "ok")
        .options(resources={"num_cpus": 1, "resources": {"ssd": 1}})
        .build()
    )
    assert built.resources == ToolResources(num_cpus=1, custom={"ssd": 1})
    path = tmp_path / "tools.json"
    definition = {
        "name": "echo",
        "description": "Echo the text.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
        "implementation": {"type": "builtin", "handler": "echo"},
        "resources": {"num_cpus": 0.25},
    }
    path.write_text(json.dumps({"tools": [definition]}))
    loaded = load_tools(path, strict=True).registry.get_or_raise("echo")
    assert loaded.resources == ToolResources(num_cpus=0.25)


def test_no_resources_by_default() -> None:
    """A tool declares nothing unless asked; the backend's default applies."""

    @tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    assert ping.resources is None
    assert ToolResources().to_options() == {}
    assert ToolResources.coerce(None) is None


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ({"cpus": 1}, "unknown resource key(s) cpus"),
        ({"num_cpus": -1}, "num_cpus must be zero or more"),
        ({"num_gpus": "one"}, "num_gpus must be a number"),
        ({"memory": 1.5}, "memory must be a whole number of bytes"),
        ({"resources": {"CPU": 1}}, "other than CPU, GPU and memory"),
        ({"resources": ["ssd"]}, "custom resource names to amounts"),
        ({"num_cpus": True}, "num_cpus must be a number"),
        ("two cpus", "must be a mapping of num_cpus"),
    ],
)
def test_bad_resources_name_the_tool_and_the_problem(value: Any, says: str) -> None:
    """Each mistake is a ToolDefinitionError naming the tool and what to write instead."""
    with pytest.raises(ToolDefinitionError, match="heavy") as raised:
        tool(lambda: 1, name="heavy", description="Heavy work.", resources=value)
    assert says in str(raised.value)


def test_a_configuration_file_with_bad_resources_is_rejected(tmp_path: Path) -> None:
    """A file's invalid resources are reported with the tool, like any other option."""
    path = tmp_path / "tools.json"
    definition = {
        "name": "echo",
        "description": "Echo the text.",
        "parameters": {"type": "object", "properties": {}},
        "implementation": {"type": "builtin", "handler": "echo"},
        "resources": {"gpus": 1},
    }
    path.write_text(json.dumps({"tools": [definition]}))
    with pytest.raises(ConfigError, match="unknown resource key"):
        load_tools(path, strict=True)


def test_placement_local_is_accepted_and_others_are_named() -> None:
    """placement='local' is a placement; a misspelt one lists all four."""

    @tool(placement="local")
    def here() -> int:
        """Stay in this process."""
        return 1

    assert here.placement == "local"
    with pytest.raises(ToolDefinitionError, match="'auto', 'inline', 'process' or 'local'"):
        tool(lambda: 1, name="odd", description="Odd.", placement="remote")  # type: ignore[call-overload]
