"""The tools the MCP conformance suite's server scenarios call, built as forge-tools tools.

``forge-tools serve --transport http --tools _conformance_tools:registry`` (with this
directory on ``PYTHONPATH``) is the server `conformance.py` tests. Each tool is named and
shaped as its scenario's description asks. The content scenarios' tools return forge-tools
content parts (`Image`, `Audio`, `File`), which the server sends as MCP content blocks. The
scenarios whose tools would need log or progress notifications, sampling or elicitation are
left out: forge-tools tools cannot express them yet (see the table in ``bench/README.md``).
"""

from __future__ import annotations

import base64
import io
import wave
from typing import Any

from forge.tools import ToolRegistry, from_record, tool
from forge.tools.values.content import Audio, Content, File, Image

SIMPLE_TEXT = "This is a simple text response for testing."
ERROR_TEXT = "This tool intentionally returns an error for testing"
JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}


@tool
def test_simple_text() -> str:
    """Return a fixed sentence (scenario tools-call-simple-text)."""
    return SIMPLE_TEXT


@tool
def test_error_handling() -> str:
    """Always fail (scenario tools-call-error)."""
    raise RuntimeError(ERROR_TEXT)


RED_PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def _silent_wav() -> bytes:
    """A tenth of a second of 8 kHz mono silence, as a WAV file."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(8000)
        out.writeframes(b"\x80" * 800)
    return buffer.getvalue()


@tool
def test_image_content() -> Image:
    """Return a 1x1 red PNG (scenario tools-call-image)."""
    return Image(RED_PIXEL_PNG, "image/png")


@tool
def test_audio_content() -> Audio:
    """Return a short WAV clip (scenario tools-call-audio)."""
    return Audio(_silent_wav(), "audio/wav")


@tool
def test_embedded_resource() -> File:
    """Return a text resource (scenario tools-call-embedded-resource)."""
    return File(
        "This is an embedded resource content.", "text/plain", uri="test://embedded-resource"
    )


@tool
def test_multiple_content_types() -> list[Content | str]:
    """Return text, an image and a JSON resource (scenario tools-call-mixed-content)."""
    return [
        "Multiple content types test:",
        Image(RED_PIXEL_PNG, "image/png"),
        File('{"test":"data","value":123}', "application/json",
             uri="test://mixed-content-resource"),
    ]  # fmt: skip


@tool
def test_reconnection() -> str:
    """Answer at once (scenario server-sse-polling calls it on a POST stream)."""
    return "Reconnection test completed successfully"


def _describe(arguments: dict[str, Any]) -> str:
    return f"received {sorted(arguments)}"


json_schema_2020_12_tool = from_record(
    {
        "name": "json_schema_2020_12_tool",
        "description": "Tool with JSON Schema 2020-12 features",
        "parameters": JSON_SCHEMA_2020_12,
        "handler": _describe,
    }
)

registry = ToolRegistry(
    [
        test_simple_text, test_error_handling, test_reconnection, json_schema_2020_12_tool,
        test_image_content, test_audio_content, test_embedded_resource,
        test_multiple_content_types,
    ]
)  # fmt: skip
