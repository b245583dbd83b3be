"""The forge-tools exception hierarchy (forge.core.errors)."""

import copy
import functools
import importlib
import pickle
import pkgutil
import re
from types import ModuleType

import pytest

import forge
import forge.core.errors
from forge.core.errors import (
    BlockedAddressError,
    ConfigError,
    DuplicateHandlerError,
    DuplicateToolError,
    FieldError,
    ForgeError,
    MissingDependencyError,
    ToolDefinitionError,
    ToolError,
    ToolNotFoundError,
    ToolValidationError,
    UnsupportedProviderError,
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
        (DuplicateHandlerError, ValueError),
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
    """ToolError accepts its arguments positionally (the original executor API) or by keyword."""
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
    DuplicateHandlerError("internal", "notes.add"),
    UnsupportedProviderError("nope", ["openai"]),
    ConfigError(["a.yaml: tool 't': bad"]),
    BlockedAddressError("example.test", "10.0.0.1", "private"),
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


def test_duplicate_handler_error_names_the_handler() -> None:
    """DuplicateHandlerError names the kind and the name, and says what to do instead."""
    err = DuplicateHandlerError("internal", "notes.add")
    assert (err.kind, err.name) == ("internal", "notes.add")
    assert str(err).startswith("an internal handler named 'notes.add' is already registered;")
    assert "another name" in str(err)


# -- the one tree: every exception class of the package, drawn in forge.core.errors ----------

TREE_LINE = re.compile(r"^[\s│├└─]*(?P<name>\w+)\((?P<bases>[\w, ]+)\)", re.MULTILINE)


@functools.cache
def _modules() -> list[ModuleType]:
    """Every module of the forge package, imported (integrations too: dev has their extras)."""

    def fail(name: str) -> None:
        raise ImportError(f"cannot import {name}")

    found = pkgutil.walk_packages(forge.__path__, "forge.", onerror=fail)
    return [forge, *(importlib.import_module(info.name) for info in found)]


def _is_private(module_name: str) -> bool:
    return any(part.startswith("_") for part in module_name.split("."))


def _exception_classes() -> set[type[BaseException]]:
    """Every exception (and warning) class defined in the package."""
    return {
        value
        for module in _modules()
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__.startswith("forge.")
    }


def _public_names(module: ModuleType) -> list[str]:
    """A module's ``__all__``, else the public names it defines itself."""
    exported = getattr(module, "__all__", None)
    if exported is not None:
        return list(exported)
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == module.__name__
    ]


def _public_homes() -> dict[type[BaseException], set[str]]:
    """Exception classes a public module exports, with the modules that export each."""
    homes: dict[type[BaseException], set[str]] = {}
    for module in _modules():
        if _is_private(module.__name__):
            continue
        for name in _public_names(module):
            value = getattr(module, name)
            if isinstance(value, type) and issubclass(value, BaseException):
                homes.setdefault(value, set()).add(module.__name__)
    return homes


def _drawn() -> dict[str, tuple[str, str]]:
    """The classes the errors module docstring draws: name -> (bases, the text of its entry)."""
    doc = forge.core.errors.__doc__ or ""
    matches = list(TREE_LINE.finditer(doc))
    entries: dict[str, tuple[str, str]] = {}
    for match, following in zip(matches, [*matches[1:], None], strict=True):
        end = following.start() if following is not None else doc.find("\n\n", match.end())
        entries[match["name"]] = (match["bases"], doc[match.start() : end])
    return entries


def test_every_forge_error_is_drawn_in_the_tree() -> None:
    """Every ForgeError subclass, wherever it lives, is drawn in the errors docstring."""
    drawn = _drawn()
    errors = {cls for cls in _exception_classes() if issubclass(cls, ForgeError)}
    assert sorted(cls.__name__ for cls in errors if cls.__name__ not in drawn) == []


def test_the_tree_draws_each_class_with_its_bases() -> None:
    """Each drawn class exists, with the bases it is drawn with (the tree cannot go stale)."""
    classes = {cls.__name__: cls for cls in _exception_classes()}
    for name, (bases, _) in _drawn().items():
        if name == "ForgeError":
            assert bases == "Exception"
            continue
        assert name in classes, f"{name} is drawn but not defined"
        actual = ", ".join(base.__name__ for base in classes[name].__bases__)
        assert bases == actual, name


def test_the_tree_says_where_to_import_the_errors_defined_elsewhere() -> None:
    """A drawn class not in forge.core.errors names a public module that exports it."""
    homes = _public_homes()
    for cls in _exception_classes():
        entry = _drawn().get(cls.__name__)
        if entry is None or cls.__module__ == "forge.core.errors":
            continue
        named = re.findall(r"import from ([\w.]+)", entry[1])
        assert named, f"{cls.__name__}: say where to import it"
        assert set(named) <= homes.get(cls, set()), cls.__name__


def test_no_public_exception_is_outside_the_tree() -> None:
    """A public exception class is a ForgeError (or the drawn warning); the rest are internal."""
    homes = _public_homes()
    outside = {
        cls
        for cls in _exception_classes()
        if not issubclass(cls, ForgeError) and cls.__name__ not in _drawn()
    }
    assert sorted(f"{cls.__module__}.{cls.__name__}" for cls in outside if cls in homes) == []
    for cls in outside:
        assert _is_private(cls.__module__) or cls.__name__.startswith("_"), cls
        assert "internal" in (cls.__doc__ or ""), f"{cls.__qualname__}: say it is internal"


def test_the_warnings_are_drawn_beside_the_tree() -> None:
    """ConfigWarning and the Ray backend's fallback warning are the package's only warnings."""
    warnings = {cls.__name__ for cls in _exception_classes() if issubclass(cls, Warning)}
    assert warnings <= {"ConfigWarning", "RemoteFallbackWarning"}
    assert _drawn()["ConfigWarning"][0] == "UserWarning"
    assert _drawn()["RemoteFallbackWarning"][0] == "RuntimeWarning"
