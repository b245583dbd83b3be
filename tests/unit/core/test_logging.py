"""Logging under the ``forge`` namespace (forge.core.logging)."""

import logging

import pytest

from forge.core.logging import get_logger


def test_short_name_is_namespaced() -> None:
    """get_logger("tools") is the standard logger "forge.tools"."""
    assert get_logger("tools") is logging.getLogger("forge.tools")


def test_dotted_short_name_is_namespaced() -> None:
    """get_logger("tools.registry") is "forge.tools.registry"."""
    assert get_logger("tools.registry").name == "forge.tools.registry"


def test_namespaced_name_kept() -> None:
    """A name already under forge stays as it is."""
    assert get_logger("forge.x") is logging.getLogger("forge.x")
    assert get_logger("forge.x").name == "forge.x"


def test_root_name_kept() -> None:
    """get_logger("forge") is the package's root logger."""
    assert get_logger("forge") is logging.getLogger("forge")


def test_lookalike_prefix_is_namespaced() -> None:
    """A name that merely starts with "forge" is not treated as namespaced."""
    assert get_logger("forgery").name == "forge.forgery"


def test_forge_logger_has_null_handler() -> None:
    """The "forge" logger has a NullHandler, so the library never prints by itself."""
    handlers = logging.getLogger("forge").handlers
    assert any(isinstance(h, logging.NullHandler) for h in handlers)


def test_library_adds_no_other_handlers() -> None:
    """The library configures nothing but the NullHandler and keeps propagation on."""
    root = logging.getLogger("forge")
    assert all(isinstance(h, logging.NullHandler) for h in root.handlers)
    assert root.propagate is True
    assert get_logger("tools").handlers == []


def test_records_reach_application_handlers(caplog: pytest.LogCaptureFixture) -> None:
    """Records from a forge logger propagate to handlers the application installs."""
    with caplog.at_level(logging.INFO, logger="forge"):
        get_logger("tools").info("Executing tool: %s", "get_weather")
    assert [(r.name, r.getMessage()) for r in caplog.records] == [
        ("forge.tools", "Executing tool: get_weather")
    ]
