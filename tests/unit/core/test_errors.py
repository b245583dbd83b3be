"""The forge-tools exception hierarchy (forge.core.errors)."""

import copy
import pickle

import pytest

from forge.core.errors import (
    DuplicateToolError,
    FieldError,
    ForgeError,
    MissingDependencyError,
    ToolDefinitionError,
    ToolError,
    ToolNotFoundError,
    ToolValidationError,
)


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (ToolError, Exception),
        (ToolDefinitionError, ValueError),
        (DuplicateToolError, ValueError),
        (ToolValidationError, ValueError),
        (ToolNotFoundError, LookupError),
        (MissingDependencyError, ImportError),
    ],
)
def test_hierarchy(error: type[Exception], builtin: type[Exception]) -> None:
    """Every error subclasses ForgeError and the builtin it resembles."""
    assert issubclass(error, ForgeError)
    assert issubclass(error, builtin)


@pytest.mark.parametrize(
    "error", [ToolDefinitionError, DuplicateToolError, ToolNotFoundError, ToolValidationError]
)
def test_tool_errors_subclass_tool_error(error: type[Exception]) -> None:
    """Errors about one tool subclass ToolError."""
    assert issubclass(error, ToolError)


def test_missing_dependency_is_not_a_tool_error() -> None:
    """MissingDependencyError is about an extra, not a tool."""
    assert not issubclass(MissingDependencyError, ToolError)


def test_forge_error_is_exception() -> None:
    """ForgeError is an ordinary Exception."""
    assert issubclass(ForgeError, Exception)
    assert not issubclass(Exception, ForgeError)


def test_tool_error_keeps_name_and_message() -> None:
    """ToolError(tool_name, message) keeps both and str() mentions both."""
    err = ToolError("read_file", "Tool already registered")
    assert err.tool_name == "read_file"
    assert err.message == "Tool already registered"
    assert "read_file" in str(err)
    assert "Tool already registered" in str(err)


def test_tool_error_positional_and_keyword() -> None:
    """ToolError accepts its arguments positionally (as in seed 004) or by keyword."""
    err = ToolError(tool_name="t", message="m")
    assert (err.tool_name, err.message) == ("t", "m")


def test_tool_error_can_be_raised_and_caught_as_forge_error() -> None:
    """A raised ToolError is caught by `except ForgeError`."""
    with pytest.raises(ForgeError) as info:
        raise ToolError("t", "Tool not found")
    assert isinstance(info.value, ToolError)


def test_definition_error_caught_as_value_error() -> None:
    """A ToolDefinitionError is caught by `except ValueError` and keeps its fields."""
    with pytest.raises(ValueError) as info:
        raise ToolDefinitionError("bad-tool", "the description must be a string")
    assert info.value.tool_name == "bad-tool"  # type: ignore[attr-defined]
    assert "the description must be a string" in str(info.value)


def test_duplicate_tool_error_default_message() -> None:
    """DuplicateToolError names the tool and says how to fix it by default."""
    err = DuplicateToolError("weather")
    assert err.tool_name == "weather"
    assert "already registered" in err.message
    assert "replace=True" in err.message
    assert "weather" in str(err)


def test_duplicate_tool_error_custom_message() -> None:
    """DuplicateToolError accepts a custom message."""
    assert DuplicateToolError("w", "twice in one batch").message == "twice in one batch"


def test_not_found_error_suggestions() -> None:
    """ToolNotFoundError keeps suggestions and offers them in its message."""
    err = ToolNotFoundError("get_wether", suggestions=["get_weather", "set_weather"])
    assert err.suggestions == ("get_weather", "set_weather")
    assert "did you mean 'get_weather' or 'set_weather'?" in str(err)
    assert "get_wether" in str(err)


def test_not_found_error_without_suggestions() -> None:
    """ToolNotFoundError without suggestions says the tool is not registered."""
    err = ToolNotFoundError("x")
    assert err.suggestions == ()
    assert "no tool with this name is registered" in str(err)
    assert "did you mean" not in str(err)


def test_validation_error_errors_and_missing() -> None:
    """ToolValidationError keeps every field error, lists the missing ones and names all."""
    errors = [
        FieldError(path="location", message="missing required parameter", kind="missing"),
        FieldError(path="unit", message="must be one of c, f", kind="enum"),
        FieldError(path="date", message="missing required parameter", kind="missing"),
    ]
    err = ToolValidationError("get_weather", errors)
    assert err.errors == tuple(errors)
    assert err.missing == ("location", "date")
    assert err.tool_name == "get_weather"
    assert err.message == (
        "invalid arguments: location: missing required parameter; unit: must be one of c, f; "
        "date: missing required parameter"
    )
    assert "get_weather" in str(err)


def test_validation_error_without_field_errors() -> None:
    """ToolValidationError with no field errors still has a message and no missing fields."""
    err = ToolValidationError("t", [])
    assert err.errors == ()
    assert err.missing == ()
    assert err.message == "invalid arguments: arguments rejected"


def test_field_error_str() -> None:
    """A FieldError prints as 'path: message', or just the message without a path."""
    assert str(FieldError(path="a.0", message="bad", kind="type")) == "a.0: bad"
    assert str(FieldError(path="", message="not an object", kind="type")) == "not an object"


def test_missing_dependency_error_names_extra() -> None:
    """MissingDependencyError names the package and the pip extra to install."""
    err = MissingDependencyError("mcp", "mcp")
    assert (err.package, err.extra) == ("mcp", "mcp")
    assert "forge-tools[mcp]" in str(err)
    assert "pip install '.[mcp]'" in str(err)
    assert "pip install 'forge_tools-0.1.0-py3-none-any.whl[mcp]'" in str(err)
    assert "'mcp'" in str(err)


def test_missing_dependency_error_caught_as_import_error() -> None:
    """MissingDependencyError is caught by `except ImportError`."""
    with pytest.raises(ImportError):
        raise MissingDependencyError("ray", "ray")


ALL_ERRORS = [
    ToolError("t", "m"),
    ToolDefinitionError("t", "bad definition"),
    DuplicateToolError("t"),
    ToolNotFoundError("t", suggestions=["u"]),
    ToolValidationError(
        "t", [FieldError(path="a", message="missing required parameter", kind="missing")]
    ),
    MissingDependencyError("mcp", "mcp"),
]


@pytest.mark.parametrize("error", ALL_ERRORS, ids=lambda e: type(e).__name__)
def test_errors_survive_pickling(error: ForgeError) -> None:
    """Every error pickles and unpickles intact (errors cross process boundaries, e.g. Ray)."""
    restored = pickle.loads(pickle.dumps(error))
    assert type(restored) is type(error)
    assert str(restored) == str(error)
    assert vars(restored) == vars(error)


@pytest.mark.parametrize("error", ALL_ERRORS, ids=lambda e: type(e).__name__)
def test_errors_can_be_copied(error: ForgeError) -> None:
    """copy.copy works on every error."""
    assert str(copy.copy(error)) == str(error)
