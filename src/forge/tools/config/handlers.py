"""Registries of allowed handlers for configuration files.

A configuration file names its ``builtin`` and ``internal`` handlers by
string. Those strings are looked up in a `HandlerRegistry` that the
application filled with Python callables; nothing is ever imported or
evaluated from a name, so a configuration file cannot run code that the
application did not register.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar, overload

from forge.core.errors import DuplicateHandlerError

__all__ = ["HandlerRegistry", "builtin_handlers"]

F = TypeVar("F", bound=Callable[..., Any])
_HANDLER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,127}$")


class HandlerRegistry:
    """Named Python callables that configuration files may refer to.

    Args:
        kind: What the handlers are (``builtin`` or ``internal``), for messages.
        handlers: Handlers to register at once, by name.
    """

    def __init__(self, kind: str, handlers: Mapping[str, Callable[..., Any]] | None = None) -> None:
        self.kind = kind
        self._lock = threading.Lock()
        self._handlers: dict[str, Callable[..., Any]] = {}
        for name, fn in (handlers or {}).items():
            self.register(name, fn)

    @overload
    def register(self, name: str, fn: F, /) -> F: ...
    @overload
    def register(self, name: str, /) -> Callable[[F], F]: ...
    def register(self, name: str, fn: Callable[..., Any] | None = None, /) -> Any:
        """Register ``fn`` under ``name``; without ``fn``, return a decorator.

        Raises:
            DuplicateHandlerError: The name is already taken (a `ValueError`).
            ValueError: The name is malformed.
            TypeError: ``fn`` is not callable.
        """
        if not isinstance(name, str) or not _HANDLER_NAME.match(name):
            raise ValueError(
                f"invalid {self.kind} handler name {name!r}: use letters, digits, '_', '.', '-'"
            )
        if fn is None:

            def decorate(func: F) -> F:
                self.register(name, func)
                return func

            return decorate
        if not callable(fn):
            raise TypeError(f"{self.kind} handler {name!r} must be callable")
        with self._lock:
            if name in self._handlers:
                raise DuplicateHandlerError(self.kind, name)
            self._handlers = {**self._handlers, name: fn}
        return fn

    def get(self, name: str) -> Callable[..., Any] | None:
        """Return the handler registered under ``name``, or ``None``."""
        return self._handlers.get(name)

    def names(self) -> list[str]:
        """Return the registered names, sorted."""
        return sorted(self._handlers)

    def copy(self) -> HandlerRegistry:
        """Return an independent registry holding the same handlers."""
        return HandlerRegistry(self.kind, self._handlers)

    def __contains__(self, name: object) -> bool:
        return name in self._handlers

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._handlers)

    def __repr__(self) -> str:
        return f"<HandlerRegistry {self.kind} {self.names()}>"


def _echo(arguments: dict[str, Any], /) -> dict[str, Any]:
    """Return the arguments unchanged."""
    return dict(arguments)


def _current_time() -> str:
    """Return the current UTC time in ISO 8601 format."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _word_count(text: str) -> dict[str, int]:
    """Count the words, lines and characters of a text."""
    return {"words": len(text.split()), "lines": len(text.splitlines()), "characters": len(text)}


_BUILTINS: dict[str, Callable[..., Any]] = {
    "echo": _echo,
    "current_time": _current_time,
    "word_count": _word_count,
}


def builtin_handlers() -> HandlerRegistry:
    """Return a new registry of the builtin handlers forge-tools ships.

    ``echo`` (returns its arguments), ``current_time`` (UTC, ISO 8601) and
    ``word_count`` (takes ``text``). Register more on the returned registry.
    """
    return HandlerRegistry("builtin", _BUILTINS)
