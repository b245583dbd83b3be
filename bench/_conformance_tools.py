"""The tools the MCP conformance suite's server scenarios call, built as forge-tools tools.

``forge-tools serve --transport http --tools _conformance_tools:registry`` (with this
directory on ``PYTHONPATH``) is the server `conformance.py` tests. Each tool is named and
shaped as its scenario's description asks. The tools that log, report progress, sample
or elicit do it through their `ExecutionContext`; the content scenarios' tools return
forge-tools content parts (`Image`, `Audio`, `File`), which the server sends as MCP content
blocks.
"""

from __future__ import annotations

import asyncio
import base64
import io
import wave
from typing import Any

from forge.core.errors import ClientCapabilityError
from forge.tools import ExecutionContext, ToolRegistry, from_record, tool
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

# -- tools that talk back to the client while they run ---------------------------------


@tool
async def test_tool_with_logging(ctx: ExecutionContext) -> str:
    """Log three info messages ~50 ms apart (scenario tools-call-with-logging)."""
    await ctx.log("info", "Tool execution started")
    await asyncio.sleep(0.05)
    await ctx.log("info", "Tool processing data")
    await asyncio.sleep(0.05)
    await ctx.log("info", "Tool execution completed")
    return "Logging test completed"


@tool
async def test_tool_with_progress(ctx: ExecutionContext) -> str:
    """Report 0, 50 and 100 of 100, ~50 ms apart (scenario tools-call-with-progress)."""
    for done in (0, 50, 100):
        if done:
            await asyncio.sleep(0.05)
        await ctx.report_progress(done, 100)
    return "Progress test completed"


@tool
async def test_sampling(prompt: str, ctx: ExecutionContext) -> str:
    """Ask the client's model to answer a prompt (scenario tools-call-sampling).

    Args:
        prompt: The prompt to send to the LLM.
    """
    answer = await ctx.sample(prompt, max_tokens=100)
    return f"LLM response: {answer.text}"


ELICITED_USER = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


@tool
async def test_elicitation(message: str, ctx: ExecutionContext) -> str:
    """Ask the user for a name and an email (scenario tools-call-elicitation).

    Args:
        message: The message to show the user.
    """
    try:
        answer = await ctx.elicit(message, ELICITED_USER)
    except ClientCapabilityError as exc:
        raise RuntimeError(str(exc)) from None
    return f"User response: action={answer.action}, content={answer.content}"


SEP1034_DEFAULTS = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {
            "type": "string", "enum": ["active", "inactive", "pending"], "default": "active",
        },
        "verified": {"type": "boolean", "default": True},
    },
}  # fmt: skip


@tool
async def test_elicitation_sep1034_defaults(ctx: ExecutionContext) -> str:
    """Ask with a default for every primitive type (scenario elicitation-sep1034-defaults)."""
    answer = await ctx.elicit("Please review the defaults", SEP1034_DEFAULTS)
    return f"Elicitation completed: action={answer.action}, content={answer.content}"


def _titled(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"const": value, "title": title} for value, title in pairs]


SEP1330_ENUMS = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": _titled(
                ("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")
            ),
        },
        "legacyEnum": {
            "type": "string", "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": _titled(
                    ("value1", "First Choice"), ("value2", "Second Choice"),
                    ("value3", "Third Choice"),
                )
            },
        },
    },
}  # fmt: skip


@tool
async def test_elicitation_sep1330_enums(ctx: ExecutionContext) -> str:
    """Ask with all five enum shapes (scenario elicitation-sep1330-enums)."""
    answer = await ctx.elicit("Please choose", SEP1330_ENUMS)
    return f"Elicitation completed: action={answer.action}, content={answer.content}"


registry = ToolRegistry(
    [
        test_simple_text, test_error_handling, test_reconnection, json_schema_2020_12_tool,
        test_image_content, test_audio_content, test_embedded_resource,
        test_multiple_content_types, test_tool_with_logging, test_tool_with_progress,
        test_sampling, test_elicitation, test_elicitation_sep1034_defaults,
        test_elicitation_sep1330_enums,
    ]
)  # fmt: skip
