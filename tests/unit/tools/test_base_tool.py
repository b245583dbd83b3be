"""`BaseTool`, the class-based way to define a tool."""

import ast
import asyncio
import re
import subprocess
import sys
from typing import Any, ClassVar

import pytest

from forge.tools import ErrorKind, Tool, ToolAnnotations, ToolDefinitionError, ToolRegistry
from forge.tools.base import BaseTool, ExecutionContext, ToolCategory, ToolParameter, ToolResult


# The original design's TestTool, verbatim (only the f-string's shell escapes \" undone).
# fmt: off
class TestTool(BaseTool):
    @property
    def name(self): return 'test'

    @property
    def description(self): return 'A test tool'

    @property
    def category(self): return ToolCategory.OTHER

    @property
    def parameters(self):
        return [ToolParameter(name='message', type='string', description='Test message')]

    async def _execute(self, ctx, **kwargs):
        return ToolResult.ok(f'Got: {kwargs["message"]}')
# fmt: on


TestTool.__test__ = False  # not a pytest test class


class CounterTool(BaseTool):
    """A tool declared with plain class attributes instead of properties."""

    name = "counter"
    description = "Double a number."
    category = ToolCategory.UTILITY
    tags = ("math", "demo")
    display_name = "Counter"
    annotations = ToolAnnotations(read_only=True, idempotent=True)
    parameters: ClassVar[list[ToolParameter]] = [
        ToolParameter(name="n", type="integer", description="The number"),
        ToolParameter(name="ratio", type="number", required=False),
        ToolParameter(name="mode", type="string", required=False, enum=["fast", "slow"]),
    ]

    async def _execute(self, context: ExecutionContext, **kwargs: Any) -> ToolResult:
        n = kwargs["n"]
        if n < 0:
            raise RuntimeError("n must not be negative")
        if kwargs.get("mode") == "slow":
            await asyncio.sleep(30)
        return ToolResult.ok(n * 2, working_dir=context.working_dir)


TEST_TOOL_PARAMETERS = {
    "type": "object",
    "properties": {"message": {"type": "string", "description": "Test message"}},
    "required": ["message"],
    "additionalProperties": False,
}

# Seed 004, "Verification Commands": the text between `python -c "` and the closing `"`,
# copied character for character (bash double-quote escapes included).
SEED_COMMAND_1 = r"""
from forge.tools.base import BaseTool, ToolParameter, ToolResult, ExecutionContext, ToolCategory

class TestTool(BaseTool):
    @property
    def name(self): return 'test'

    @property
    def description(self): return 'A test tool'

    @property
    def category(self): return ToolCategory.OTHER

    @property
    def parameters(self):
        return [ToolParameter(name='message', type='string', description='Test message')]

    async def _execute(self, ctx, **kwargs):
        return ToolResult.ok(f'Got: {kwargs[\"message\"]}')

# Test schema generation
print(TestTool().to_openai_schema())
"""

SEED_COMMAND_2 = r"""
from forge.tools.registry import ToolRegistry
from forge.tools.base import ToolCategory

registry = ToolRegistry()
print(f'Tools: {len(registry.list_all())}')
print(f'File tools: {len(registry.list_by_category(ToolCategory.FILE))}')
"""


def _shell_double_quoted(text: str) -> str:
    """Return what bash passes for ``"text"``: a backslash escapes only $ ` " \\ and newline."""
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _run_seed_command(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _shell_double_quoted(code)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _run(tool: BaseTool, context: ExecutionContext | None = None, **kwargs: Any) -> ToolResult:
    return asyncio.run(tool.execute(context or ExecutionContext(), **kwargs))


def test_seed_test_tool_openai_schema() -> None:
    """The original design's TestTool converts to the exact OpenAI tool definition."""
    assert TestTool().to_openai_schema() == {
        "type": "function",
        "function": {
            "name": "test",
            "description": "A test tool",
            "parameters": TEST_TOOL_PARAMETERS,
        },
    }


def test_seed_test_tool_anthropic_schema() -> None:
    """The original design's TestTool converts to the exact Anthropic tool definition."""
    assert TestTool().to_anthropic_schema() == {
        "name": "test",
        "description": "A test tool",
        "input_schema": TEST_TOOL_PARAMETERS,
    }


def test_seed_test_tool_executes() -> None:
    """The original design's TestTool runs through execute() and returns its own result."""
    result = _run(TestTool(), message="hi")
    assert result == ToolResult.ok("Got: hi").for_call(None, "test")


def test_seed_test_tool_registers_and_runs() -> None:
    """A BaseTool instance registers in a ToolRegistry and runs through it."""
    registry = ToolRegistry([TestTool()])
    assert registry.get_or_raise("test").category is ToolCategory.OTHER
    result = registry.execute("test", {"message": "hi"})
    assert (result.success, result.output, result.tool_name) == (True, "Got: hi", "test")


def test_registering_the_class_instead_of_an_instance_fails() -> None:
    """Registering a BaseTool subclass itself raises a definition error saying to instantiate it."""
    with pytest.raises(ToolDefinitionError, match="instance"):
        ToolRegistry().register(TestTool)


def test_class_attribute_variant_schema() -> None:
    """Plain class attributes work like the original properties, with optional and enum params."""
    assert CounterTool().to_anthropic_schema() == {
        "name": "counter",
        "description": "Double a number.",
        "input_schema": {
            "type": "object",
            "properties": {
                "n": {"type": "integer", "description": "The number"},
                "ratio": {"type": "number"},
                "mode": {"type": "string", "enum": ["fast", "slow"]},
            },
            "required": ["n"],
            "additionalProperties": False,
        },
    }


def test_class_attribute_variant_metadata() -> None:
    """Optional class attributes (tags, display_name, annotations) reach the Tool record."""
    instance = CounterTool()
    record = instance.to_tool()
    assert isinstance(record, Tool)
    assert record is instance.to_tool()
    assert record.category is ToolCategory.UTILITY
    assert record.tags == ("math", "demo")
    assert record.metadata.display_name == "Counter"
    assert record.annotations == ToolAnnotations(read_only=True, idempotent=True)
    assert record.is_async is True


def test_execute_success_passes_context() -> None:
    """execute() returns the tool's result and gives _execute the context."""
    result = _run(CounterTool(), ExecutionContext(working_dir="/srv/work"), n=21)
    assert result.success is True
    assert result.output == 42
    assert result.metadata == {"working_dir": "/srv/work"}


def test_execute_missing_required_parameter() -> None:
    """A missing required parameter gives a failed result naming it."""
    result = _run(CounterTool())
    assert result.success is False
    assert result.error_kind is ErrorKind.INVALID_ARGUMENTS
    assert "n" in (result.error or "")
    assert "missing" in (result.error or "")


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"n": True}, "n"),
        ({"n": 1.5}, "n"),
        ({"n": "3"}, "n"),
        ({"n": 1, "ratio": False}, "ratio"),
        ({"n": 1, "mode": "medium"}, "mode"),
        ({"n": 1, "extra": 1}, "extra"),
    ],
)
def test_execute_rejects_invalid_arguments(kwargs: dict[str, Any], field: str) -> None:
    """Wrong types (booleans are not integers), enum violations and unknown params fail, named."""
    result = _run(CounterTool(), **kwargs)
    assert result.success is False
    assert result.error_kind is ErrorKind.INVALID_ARGUMENTS
    assert field in (result.error or "")


def test_execute_accepts_whole_float_for_integer() -> None:
    """A JSON integer written as 2.0 is a valid integer argument."""
    assert _run(CounterTool(), n=2.0).success is True


def test_execute_applies_context_timeout() -> None:
    """An _execute slower than context.timeout gives a failed result of kind timeout."""
    result = _run(CounterTool(), ExecutionContext(timeout=0.05), n=1, mode="slow")
    assert result.success is False
    assert result.error_kind is ErrorKind.TIMEOUT
    assert "did not finish within 0.05 s" in (result.error or "")


def test_execute_applies_class_timeout() -> None:
    """A tool's own timeout attribute overrides the context's timeout."""

    class QuickTimeout(CounterTool):
        timeout = 0.05

    result = _run(QuickTimeout(), ExecutionContext(timeout=120), n=1, mode="slow")
    assert result.error_kind is ErrorKind.TIMEOUT


def test_execute_catches_exceptions() -> None:
    """An exception from _execute becomes a failed result of kind tool_error with its message."""
    result = _run(CounterTool(), n=-1)
    assert result.success is False
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert "n must not be negative" in (result.error or "")


def test_tool_raising_timeout_error_is_not_a_call_timeout() -> None:
    """A TimeoutError raised by the tool itself is a tool error, not a timeout of the call."""

    class Upstream(CounterTool):
        async def _execute(self, context: ExecutionContext, **kwargs: Any) -> ToolResult:
            raise TimeoutError("upstream API did not answer")

    result = _run(Upstream(), ExecutionContext(timeout=120), n=1)
    assert result.success is False
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert "upstream API did not answer" in (result.error or "")


def test_validate_params_valid() -> None:
    """validate_params returns (True, None) for valid arguments."""
    assert CounterTool().validate_params(n=1, mode="fast") == (True, None)


def test_validate_params_invalid() -> None:
    """validate_params returns (False, message) naming the bad parameter."""
    valid, message = CounterTool().validate_params(n=True)
    assert valid is False
    assert message is not None
    assert "n" in message
    assert "integer" in message


def test_duplicate_parameter_names_rejected() -> None:
    """Two parameters with the same name make the tool's schema fail to compile."""

    class Twice(CounterTool):
        parameters: ClassVar[list[ToolParameter]] = [
            ToolParameter(name="n", type="integer"),
            ToolParameter(name="n", type="string"),
        ]

    with pytest.raises(ToolDefinitionError, match="'n'"):
        Twice().to_openai_schema()


def test_seed_verification_command_schema() -> None:
    """Seed 004's first verification command runs as written and prints the OpenAI schema."""
    proc = _run_seed_command(SEED_COMMAND_1)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "'type': 'function'" in proc.stdout
    assert ast.literal_eval(proc.stdout.strip()) == TestTool().to_openai_schema()


def test_seed_verification_command_registry() -> None:
    """Seed 004's second verification command runs as written and reports an empty registry."""
    proc = _run_seed_command(SEED_COMMAND_2)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.splitlines() == ["Tools: 0", "File tools: 0"]


def test_shell_unescaping_only_touches_shell_escapes() -> None:
    """The helper that undoes bash double-quote escapes leaves other backslashes alone."""
    assert _shell_double_quoted(r"a[\"b\"] \n \\ \$x") == r'a["b"] \n \ $x'
