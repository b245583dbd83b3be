"""The model-facing error contract: kinds, messages, retry advice and size limits."""

import pytest

from forge.core.errors import FieldError, ToolDefinitionError, ToolValidationError
from forge.tools import ErrorKind, ToolRegistry, tool
from forge.tools.execution import failures
from forge.tools.execution.executor import ToolExecutor


def test_every_kind_has_a_builder_with_retry_advice() -> None:
    """Each failure kind comes with a message and a retryable flag."""
    err = ToolValidationError("t", [FieldError(path="a", kind="type", message="bad")])
    built = {
        ErrorKind.INVALID_JSON: failures.invalid_json("t", "Expecting value"),
        ErrorKind.UNKNOWN_TOOL: failures.unknown_tool("x", ["t"]),
        ErrorKind.INVALID_ARGUMENTS: failures.invalid_arguments("t", err),
        ErrorKind.DENIED: failures.denied("t", "read-only session"),
        ErrorKind.TIMEOUT: failures.timeout("t", 1.5),
        ErrorKind.CANCELLED: failures.cancelled("t"),
        ErrorKind.TOOL_ERROR: failures.tool_error(tool(lambda: None, name="t"), ValueError("v")),
    }
    retry = {
        ErrorKind.INVALID_JSON: True,
        ErrorKind.UNKNOWN_TOOL: True,
        ErrorKind.INVALID_ARGUMENTS: True,
        ErrorKind.DENIED: False,
        ErrorKind.TIMEOUT: True,
        ErrorKind.CANCELLED: False,
        ErrorKind.TOOL_ERROR: True,
    }
    assert set(built) == set(ErrorKind)
    for kind, result in built.items():
        assert result.success is False
        assert result.error_kind is kind
        assert result.error
        assert result.metadata["retryable"] is retry[kind]
        assert result.tool_name in ("t", "x")


def test_unknown_tool_suggests_close_names() -> None:
    """The unknown-tool message names close matches and lists the tools."""
    result = failures.unknown_tool("get_wether", ["get_weather", "search"])
    assert result.error is not None
    assert result.error.startswith("Unknown tool: get_wether.")
    assert "Did you mean 'get_weather'?" in result.error
    assert "get_weather, search" in result.error
    assert failures.unknown_tool("x", []).metadata["retryable"] is False


def test_denied_message_carries_the_reason() -> None:
    """A denial says why and tells the model not to retry the same call."""
    assert "because" not in (failures.denied("t", None).error or "")
    message = failures.denied("rm", "outside the working directory.").error or ""
    assert "outside the working directory" in message
    assert "Do not retry" in message


def test_schema_excerpt_names_the_fields_involved() -> None:
    """The excerpt shows the schemas of the bad fields, the required list and allowed names."""
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "string", "enum": ["x", "y"]}},
        "required": ["a"],
    }
    text = failures.schema_excerpt(schema, ["b"])
    assert '"b":{"type":"string","enum":["x","y"]}' in text
    assert '"a"' not in text.split("required")[0]
    assert "required: a" in text
    assert "allowed parameters: a, b" in failures.schema_excerpt(schema, ["c"])
    assert failures.schema_excerpt({"type": "object"}, ["a"]) == ""
    huge = {"type": "object", "properties": {"a": {"enum": list(range(10_000))}}}
    assert len(failures.schema_excerpt(huge, ["a"])) <= 700


@pytest.mark.parametrize(
    ("details", "shown", "hidden"),
    [
        ("message", ["KeyError", "'token'"], ["Traceback"]),
        ("type", ["KeyError"], ["'token'", "Traceback"]),
        ("traceback", ["KeyError", "'token'", "Traceback", "in leaky"], []),
    ],
)
def test_error_details_levels(details: str, shown: list[str], hidden: list[str]) -> None:
    """error_details decides how much of a handler exception the model sees."""

    @tool(name="leaky", error_details=details)  # type: ignore[arg-type]
    def leaky() -> None:
        """Raise a KeyError."""
        raise KeyError("token")

    result = ToolExecutor(ToolRegistry([leaky])).run_sync("leaky")
    for text in shown:
        assert text in (result.error or "")
    for text in hidden:
        assert text not in (result.error or "")
    assert result.metadata["exception_type"] == "KeyError"


def test_messages_are_cut_to_the_limit() -> None:
    """limit() cuts with an ellipsis; every builder respects MAX_MESSAGE_CHARS."""
    assert failures.limit("abc", 10) == "abc"
    assert failures.limit("a" * 20, 10) == "aaaaaaa..."
    long = failures.tool_error(tool(lambda: None, name="t"), ValueError("v" * 10_000))
    assert len(long.error or "") == failures.MAX_MESSAGE_CHARS
    assert (long.error or "").endswith("...")


def test_misconfigured_and_bad_output_say_do_not_retry() -> None:
    """Definition problems and unsendable outputs are not the model's to fix."""
    broken = failures.misconfigured("t", ToolDefinitionError("t", "no schema"))
    assert broken.metadata == {"retryable": False, "definition_error": "no schema"}
    assert failures.bad_output("t", "set").metadata["retryable"] is False


def test_invalid_tool_option_values_are_rejected() -> None:
    """error_details and max_concurrency are checked when the tool is defined."""
    with pytest.raises(ToolDefinitionError, match="error_details"):
        tool(lambda: None, name="t", error_details="everything")  # type: ignore[call-overload]
    for bad in (0, -2, True, 1.5):
        with pytest.raises(ToolDefinitionError, match="max_concurrency"):
            tool(lambda: None, name="t", max_concurrency=bad)  # type: ignore[call-overload]
