"""Tools returning content parts, served by `forge-tools serve --tools content_tools:registry`."""

from __future__ import annotations

import base64
from pathlib import Path

from forge.tools import Audio, Content, File, Image, ResourceLink, ToolRegistry, tool

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
WAV = (
    b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00@\x1f\x00\x00"
    b"\x01\x00\x08\x00data\x00\x00\x00\x00"
)
"""An empty 8 kHz mono WAV file."""
BIG = "0123456789" * 200_000
"""Two million characters."""


@tool
def chart() -> list[Content | str]:
    """A caption and a chart."""
    return ["Sales by month:", Image(PNG, "image/png")]


@tool
def clip() -> Audio:
    """A (silent) sound."""
    return Audio(WAV, "audio/wav")


@tool
def resources() -> list[Content]:
    """A text resource, a binary one and a link."""
    return [
        File("name,total\nada,3\n", "text/csv", uri="test://sales.csv"),
        File(b"%PDF-1.4\n%%EOF\n", "application/pdf", name="report.pdf"),
        ResourceLink("test://logs/today", title="Today's log", mime_type="text/plain"),
    ]


@tool
def picture(path: str) -> Path:
    """The file at a path.

    Args:
        path: Where the file is.
    """
    return Path(path)


@tool
def dump() -> str:
    """Two million characters (cut to the default limit)."""
    return BIG


@tool(output_limit=2_000)
def small_dump() -> str:
    """Two million characters, cut to 2,000."""
    return BIG


registry = ToolRegistry([chart, clip, resources, picture, dump, small_dump])
