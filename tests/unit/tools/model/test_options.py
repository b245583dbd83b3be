"""`ToolOptions`: a tool's options, defined once and honoured by every way of defining a tool."""

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from forge.core.errors import ToolDefinitionError
from forge.tools import (
    BaseTool,
    ExecutionContext,
    Tool,
    ToolCategory,
    ToolMetadata,
    ToolOptions,
    ToolParameter,
    ToolResult,
    create_tool,
    from_record,
    tool,
)
from forge.tools.config import HandlerRegistry, build_tool, builtin_handlers
from forge.tools.model.options import OPTION_NAMES
from forge.tools.registry import ToolFactory

ROOT = Path(__file__).resolve().parents[4]

# Every option, each with a value that differs from its default.
SAMPLE: ToolOptions = {
    "name": "sampled",
    "description": "Echo a number, as given.",
    "category": "web",
    "tags": ["numbers", "echo"],
    "examples": [{"description": "one", "input": {"x": 1}, "output": 1}],
    "annotations": {"read_only": True},
    "title": "Sample",
    "timeout": 5.0,
    "placement": "inline",
    "max_concurrency": 2,
    "error_details": "type",
    "output_limit": {"max_chars": 20_000, "max_bytes": 1_000_000},
    "display_name": "Sample Tool",
    "usage_notes": "Pass a number.",
    "limitations": ["integers only"],
    "version": "1.2",
    "author": "forge",
    "deprecated": True,
    "replaced_by": "other",
    "extra": {"team": "tools"},
    "output_schema": {"type": "integer", "description": "The number given."},
    "resources": {"num_cpus": 2, "resources": {"ssd": 1}},
}
SCHEMA = {
    "type": "object",
    "properties": {"x": {"type": "integer", "description": "A number."}},
    "required": ["x"],
    "additionalProperties": False,
}


def sample(x: int) -> int:
    """Echo a number.

    Args:
        x: A number.
    """
    return x


async def _execute(self: BaseTool, context: ExecutionContext, **kwargs: Any) -> ToolResult:
    return ToolResult.ok(kwargs["x"])


PARAMETERS = [ToolParameter(name="x", type="integer", description="A number.")]
# A BaseTool subclass declaring every option as a class attribute.
SampleTool = type(
    "SampleTool", (BaseTool,), {**SAMPLE, "parameters": PARAMETERS, "_execute": _execute}
)


def _decorator() -> Tool:
    return tool(**SAMPLE)(sample)


def _base_tool() -> Tool:
    return SampleTool().to_tool()


def _builder() -> Tool:
    return create_tool().options(**SAMPLE).implement(sample).build()


def _record() -> Tool:
    return from_record({**SAMPLE, "parameters": SCHEMA, "handler": sample})


def _factory_class() -> Tool:
    return ToolFactory().tool(SampleTool)


def _factory_options() -> Tool:
    class Sample:
        def __call__(self, x: int) -> int:
            """Echo a number.

            Args:
                x: A number.
            """
            return x

    return ToolFactory().tool(Sample, **SAMPLE)


STYLES = [_decorator, _base_tool, _builder, _record, _factory_class, _factory_options]


def _seen(t: Tool) -> dict[str, Any]:
    """What the options set on a tool."""
    return {
        "name": t.name,
        "description": t.description,
        "metadata": t.metadata,
        "annotations": t.annotations,
        "timeout": t.timeout,
        "placement": t.placement,
        "max_concurrency": t.max_concurrency,
        "error_details": t.error_details,
        "output_schema": t.output_schema,
        "output_limit": t.output_limit,
        "resources": t.resources,
    }


def test_the_sample_sets_every_option() -> None:
    """The sample below gives every option (a new option must be added to it)."""
    assert set(SAMPLE) == OPTION_NAMES


def test_every_metadata_field_is_an_option() -> None:
    """Each ToolMetadata field can be set as an option."""
    assert {f.name for f in dataclasses.fields(ToolMetadata)} <= OPTION_NAMES


def test_the_decorator_sets_every_option() -> None:
    """@tool(**options) puts each option where it belongs on the Tool."""
    made = _decorator()
    assert made.metadata == ToolMetadata.build(
        category=ToolCategory.WEB,
        tags=["numbers", "echo"],
        examples=SAMPLE["examples"],
        limitations=["integers only"],
        display_name="Sample Tool",
        usage_notes="Pass a number.",
        version="1.2",
        author="forge",
        deprecated=True,
        replaced_by="other",
        extra={"team": "tools"},
    )
    assert (made.annotations.read_only, made.annotations.title) == (True, "Sample")
    assert (made.timeout, made.placement, made.max_concurrency, made.error_details) == (
        5.0,
        "inline",
        2,
        "type",
    )


@pytest.mark.parametrize("key", sorted(OPTION_NAMES))
def test_each_option_changes_the_tool(key: str) -> None:
    """No option is ignored: each one alone makes a tool that differs from the default."""
    assert _seen(tool(**{key: SAMPLE[key]})(sample)) != _seen(tool(sample))  # type: ignore[misc]


@pytest.mark.parametrize("style", STYLES, ids=lambda f: f.__name__.strip("_"))
def test_every_style_honours_every_option(style: Any) -> None:
    """Decorator, class, builder, record and factory turn the same options into the same tool."""
    assert _seen(style()) == _seen(_decorator())


def test_a_configuration_file_honours_every_option_but_placement_and_extra() -> None:
    """A configuration definition takes the options too, except the two the loader decides."""
    given = {k: v for k, v in SAMPLE.items() if k not in ("placement", "extra")}
    internal = HandlerRegistry("internal", {"sample": sample})
    definition = {**given, "parameters": SCHEMA, "implementation": {"type": "internal"}}
    definition["implementation"]["handler"] = "sample"
    made = build_tool(definition, builtins=builtin_handlers(), internal=internal)
    expected = _seen(_decorator())
    expected["placement"] = "auto"
    expected["metadata"] = dataclasses.replace(expected["metadata"], extra=made.metadata.extra)
    assert _seen(made) == expected
    assert made.metadata.extra["implementation"] == "internal"


@pytest.mark.parametrize("key", ["placement", "extra"])
def test_a_configuration_file_rejects_the_options_the_loader_decides(key: str) -> None:
    """placement follows the implementation and extra records it: a file may not set them."""
    definition = {
        "name": "sample",
        "description": "Echo a number.",
        "parameters": SCHEMA,
        "implementation": {"type": "mock", "mock_response": 1},
        key: SAMPLE[key],  # type: ignore[literal-required]
    }
    with pytest.raises(ToolDefinitionError, match=f"unknown key.*{key}"):
        build_tool(definition, builtins=builtin_handlers(), internal=HandlerRegistry("internal"))


@pytest.mark.parametrize(
    "define",
    [
        lambda: tool(nmae="typo")(sample),  # type: ignore[call-overload]
        lambda: create_tool().options(nmae="typo"),  # type: ignore[call-arg]
        lambda: ToolFactory().tool(SampleTool, nmae="typo"),  # type: ignore[call-arg]
    ],
    ids=["decorator", "builder", "factory"],
)
def test_an_unknown_option_is_named_with_the_closest_one(define: Any) -> None:
    """A misspelt option is a definition error that suggests the option meant."""
    with pytest.raises(ToolDefinitionError, match=r"unknown option\(s\): 'nmae' \(did you mean"):
        define()


def test_the_builders_options_replace_and_its_shorthands_add() -> None:
    """options(tags=...) replaces the tags set before; tags(...) adds to them."""
    builder = create_tool().name("t").description("d").category("web").implement(sample)
    built = builder.tags("a").options(tags=["b"]).tags("c").build()
    assert built.tags == ("b", "c")


def test_a_base_tool_method_is_not_an_option() -> None:
    """A BaseTool method that shares an option's name is not read as the option."""

    class Versioned(SampleTool):  # type: ignore[valid-type, misc]
        def version(self) -> str:
            return "not an option"

    assert Versioned().to_tool().metadata.version is None


def test_a_factory_option_wins_over_the_class() -> None:
    """An option given to the factory wins over the class's; None keeps the class's."""
    made = ToolFactory().tool(SampleTool, timeout=9, max_concurrency=None)
    assert (made.timeout, made.max_concurrency) == (9, 2)


@pytest.mark.slow
def test_tool_options_type_check() -> None:
    """mypy --strict accepts @tool, @tool(...) and the option-taking calls, and rejects typos."""
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "tests/typing"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
