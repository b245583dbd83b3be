"""A small, real set of example tools across categories.

The file tools (``read-file``, ``list-directory``) read inside one directory only: the one
named by ``FORGE_TOOLS_EXAMPLES_DIR``, else the sample files shipped in ``files/`` beside this
module (`examples_dir`). A path is resolved first (``..``, absolute paths and symlinks
included); one that ends outside that directory is refused with a `PermissionError`.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field

from forge.tools import Tool, ToolRegistry, tool

if TYPE_CHECKING:
    from forge.tools.config import HandlerRegistry

MAX_READ_BYTES = 1_000_000
READ_TIMEOUT = 10.0
"""Seconds a ``read-file`` call may take (a slow or stuck file system fails it)."""
EXAMPLES_DIR_ENV = "FORGE_TOOLS_EXAMPLES_DIR"
SAMPLE_FILES = Path(__file__).with_name("files")


@tool(
    category="utility", tags=["text", "count"], placement="inline", annotations={"read_only": True}
)
def word_count(text: str) -> dict[str, int]:
    """Count the words, lines and characters of a text.

    Args:
        text: The text to measure.
    """
    return {"words": len(text.split()), "lines": len(text.splitlines()), "characters": len(text)}


@tool(
    category="utility",
    tags=["units", "temperature"],
    placement="inline",
    annotations={"read_only": True, "idempotent": True},
    examples=[{"description": "Boiling point in Fahrenheit",
               "input": {"value": 100, "from_unit": "c", "to_unit": "f"}, "output": 212.0}],
)  # fmt: skip
def convert_temperature(
    value: float, from_unit: Literal["c", "f", "k"], to_unit: Literal["c", "f", "k"]
) -> float:
    """Convert a temperature between Celsius, Fahrenheit and Kelvin.

    Args:
        value: The temperature to convert.
        from_unit: The unit of ``value``.
        to_unit: The unit to convert to.
    """
    celsius = {"c": value, "f": (value - 32) * 5 / 9, "k": value - 273.15}[from_unit]
    result = {"c": celsius, "f": celsius * 9 / 5 + 32, "k": celsius + 273.15}[to_unit]
    return round(result, 6)


@tool(category="utility", tags=["time", "clock"], annotations={"read_only": True})
def current_time(timezone: str = "UTC") -> str:
    """Return the current date and time in ISO 8601 format.

    Args:
        timezone: An IANA time zone name such as ``Europe/Paris``.
    """
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"unknown time zone {timezone!r}; use an IANA name like 'Europe/Paris'"
        ) from None
    return dt.datetime.now(zone).isoformat(timespec="seconds")


def examples_dir() -> Path:
    """The directory the example file tools read: ``$FORGE_TOOLS_EXAMPLES_DIR`` or ``files/``.

    Read on every call, so a server picks up a change of the variable at once.
    """
    configured = os.environ.get(EXAMPLES_DIR_ENV)
    return (Path(configured).expanduser() if configured else SAMPLE_FILES).resolve()


def _inside(path: str) -> Path:
    """``path`` resolved against `examples_dir`; refused unless it stays inside it."""
    root = examples_dir()
    # resolve() follows every symlink and removes "..", so the check sees the real target.
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise PermissionError(
            f"{path!r} is outside the examples directory {root}; the example file tools only "
            f"read inside it (set {EXAMPLES_DIR_ENV} to choose another directory)"
        )
    return target


@tool(
    name="read-file",
    category="file-system",
    tags=["file", "read", "io"],
    display_name="Read File",
    annotations={"read_only": True},
    usage_notes="Paths are relative to the examples directory; paths outside it are refused",
    limitations=["Cannot read files larger than 1 MB", "Reads regular files only"],
    timeout=READ_TIMEOUT,
)
def read_file(
    path: Annotated[str, Field(description="Path to the file to read")],
    encoding: Literal["utf-8", "ascii"] = "utf-8",
) -> str:
    """Read the contents of a text file in the examples directory."""
    target = _inside(path)
    # Non-blocking open: a FIFO without a writer would otherwise block here forever.
    fd = os.open(target, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(
                f"{path} is not a regular file (a directory, FIFO, socket or device); "
                "read-file reads regular files only"
            )
        data = _read_at_most(fd, MAX_READ_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_READ_BYTES:
        raise ValueError(f"{path} is larger than {MAX_READ_BYTES} bytes")
    return data.decode(encoding)


def _read_at_most(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    while size > 0 and (chunk := os.read(fd, min(size, 1 << 16))):
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


@tool(name="list-directory", category="file-system", tags=["file", "list", "io"],
      annotations={"read_only": True})  # fmt: skip
def list_directory(path: str = ".") -> list[str]:
    """List the entries of a directory in the examples directory, directories first.

    Directory names end in '/'.

    Args:
        path: The directory, relative to the examples directory.
    """
    target = _inside(path)
    entries = sorted(os.scandir(target), key=lambda e: (not e.is_dir(), e.name))
    return [e.name + ("/" if e.is_dir() else "") for e in entries]


EXAMPLE_TOOLS: tuple[Tool, ...] = (
    word_count,
    convert_temperature,
    current_time,
    read_file,
    list_directory,
)
CONFIG_FILE = Path(__file__).with_name("tools.yaml")


class Notebook:
    """A tiny in-memory service, exposed to configuration as ``internal`` handlers."""

    def __init__(self) -> None:
        self.notes: dict[str, str] = {}

    def add(self, title: str, text: str) -> str:
        """Save a note, replacing one with the same title."""
        self.notes[title] = text
        return f"saved note {title!r}"

    def list(self) -> list[str]:
        """Return the titles of the saved notes."""
        return sorted(self.notes)


def example_registry(*, allow_private_network: bool = False) -> ToolRegistry:
    """Return a new registry holding the bundled example tools.

    The Python tools come first, then the configuration tools of ``tools.yaml``
    (one each of mock, builtin, internal and http), loaded in strict mode.

    Args:
        allow_private_network: Let the http example reach private addresses
            (for a local server named by ``FORGE_EXAMPLES_HTTP_BASE``).
    """
    from forge.tools.config import load_tools

    registry = ToolRegistry(EXAMPLE_TOOLS)
    load_tools(
        CONFIG_FILE, registry=registry, strict=True, internal=example_internal_handlers(),
        allow_private_network=allow_private_network,
    )  # fmt: skip
    return registry


def example_internal_handlers() -> HandlerRegistry:
    """Return the internal handlers of the bundled configuration (a fresh `Notebook`)."""
    from forge.tools.config import HandlerRegistry

    notebook = Notebook()
    return HandlerRegistry("internal", {"notes.add": notebook.add, "notes.list": notebook.list})
