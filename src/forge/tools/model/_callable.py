"""What makes a `Tool` look like the function it wraps to libraries that inspect callables.

pydantic-ai, the OpenAI Agents SDK, LangChain and `inspect` read ``__name__``,
``__doc__``, ``__wrapped__``, ``__annotations__``, ``__module__`` and
``__qualname__`` off a callable, as `functools.wraps` would have set them. A `Tool`
is a frozen, slotted dataclass, so these are class attributes that read the tool on
an instance and keep the class's own value on the class: ``Tool.__doc__`` stays the
class docstring while ``get_weather.__doc__`` is the function's.

Python reads ``__doc__``, ``__module__`` and ``__annotations__`` raw from the class
dictionary for the class itself, so they are stored there as a ``str`` or ``dict``
subclass (the class's value) that is also a descriptor (the tool's value). A class
dictionary cannot hold ``__qualname__`` at all, so each tool keeps its own in a slot
(`Named`), set when the tool is built or unpickled; a ``__getattr__`` would do it too,
but would slow every attribute read of every tool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Named", "install", "qualname", "wrapped"]

Read = Callable[[Any], Any]


class _ClassText(str):
    """The class's text on the class; ``read(tool)`` on an instance."""

    _read: Read

    def __new__(cls, value: str, read: Read) -> _ClassText:
        text = super().__new__(cls, value)
        text._read = read
        return text

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        return self if instance is None else self._read(instance)

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        # pickle writes the class's ``__module__`` when it pickles a tool: as plain text
        return str, (str(self),)


class _ClassAnnotations(dict[str, Any]):
    """The class's annotations on the class; the handler's (a copy) on an instance."""

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        return dict(getattr(instance.handler, "__annotations__", None) or {})


def _doc(tool: Any) -> str:
    doc = getattr(tool.handler, "__doc__", None)
    return doc if isinstance(doc, str) and doc.strip() else tool.description


def _module(tool: Any) -> str | None:
    module = getattr(tool.handler, "__module__", None)
    return module if isinstance(module, str) else None


def wrapped(tool: Any) -> Any:
    """The handler, as ``__wrapped__`` (an ``AttributeError`` for a tool without one)."""
    if tool.handler is None:
        raise AttributeError(f"tool {tool.name!r} has no Python handler, so no __wrapped__")
    return tool.handler


def qualname(tool: Any) -> str:
    """The handler's qualified name, else the tool's name."""
    found = getattr(tool.handler, "__qualname__", None)
    return found if isinstance(found, str) else tool.name


class Named:
    """The base of `Tool`: one slot, ``__qualname__`` (the class's own stays on the class)."""

    __slots__ = ("__qualname__",)


def install(cls: type) -> None:
    """Make ``__doc__``, ``__module__`` and ``__annotations__`` read each `Tool` instance."""
    type.__setattr__(cls, "__doc__", _ClassText(cls.__doc__ or "", _doc))
    type.__setattr__(cls, "__module__", _ClassText(cls.__module__, _module))
    type.__setattr__(cls, "__annotations__", _ClassAnnotations(vars(cls)["__annotations__"]))
