"""Content parts over MCP: `forge-tools serve` to the official client, and back into forge-tools.

The server sends images, audio, embedded resources and resource links as MCP content blocks
(not base64 inside JSON text), and cuts long output to its limit; `import_tools` brings
them back as the same content parts, which `format_results` then sends a provider natively.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from forge.mcp import import_tools
from forge.tools import (
    Audio,
    File,
    Image,
    ResourceLink,
    Text,
    ToolRegistry,
    format_results,
)

pytestmark = pytest.mark.slow  # real server subprocesses

from content_tools import BIG, PNG, WAV  # noqa: E402 - the servers directory is on the path
from mcp_harness import FORGE_TOOLS, HttpServer, server_env  # noqa: E402

SPEC = "content_tools:registry"


def _stdio() -> StdioServerParameters:
    return StdioServerParameters(
        command=FORGE_TOOLS, args=["serve", "--tools", SPEC],
        env={"PYTHONPATH": server_env()["PYTHONPATH"]},
    )  # fmt: skip


@pytest.fixture(scope="module")
def http() -> Iterator[HttpServer]:
    """One HTTP server for the module."""
    server = HttpServer("--tools", SPEC)
    yield server
    server.stop()


@pytest.fixture(params=["stdio", "http"])
def target(request: pytest.FixtureRequest, http: HttpServer) -> Any:
    """What the official client connects to."""
    return _stdio() if request.param == "stdio" else http.url


def _call(target: Any, name: str, arguments: dict[str, Any] | None = None) -> Any:
    async def body() -> Any:
        async with Client(target) as client:
            return await client.call_tool(name, arguments or {})

    return asyncio.run(asyncio.wait_for(body(), 60))


def test_images_and_text_are_content_blocks(target: Any) -> None:
    """A caption and an image arrive as a text block and an image block."""
    result = _call(target, "chart")
    assert result.is_error is False
    caption, image = result.content
    assert caption == types.TextContent(text="Sales by month:")
    assert isinstance(image, types.ImageContent)
    assert (image.mime_type, base64.b64decode(image.data)) == ("image/png", PNG)
    assert result.structured_content is None


def test_audio_resources_and_links(target: Any) -> None:
    """Audio, text and blob resources and a resource link keep their MCP types."""
    (audio,) = _call(target, "clip").content
    assert isinstance(audio, types.AudioContent)
    assert base64.b64decode(audio.data) == WAV
    csv, pdf, link = _call(target, "resources").content
    assert isinstance(csv, types.EmbeddedResource)
    assert isinstance(csv.resource, types.TextResourceContents)
    assert (str(csv.resource.uri), csv.resource.text) == ("test://sales.csv", "name,total\nada,3\n")
    assert isinstance(pdf, types.EmbeddedResource)
    assert isinstance(pdf.resource, types.BlobResourceContents)
    assert str(pdf.resource.uri) == "file:///report.pdf"
    assert isinstance(link, types.ResourceLink)
    assert (link.name, link.title) == ("today", "Today's log")


def test_a_returned_path_is_sent_as_the_file(target: Any, tmp_path: Path) -> None:
    """A tool returning a Path sends the image it names."""
    (tmp_path / "dot.png").write_bytes(PNG)
    (image,) = _call(target, "picture", {"path": str(tmp_path / "dot.png")}).content
    assert isinstance(image, types.ImageContent)
    assert base64.b64decode(image.data) == PNG


def test_long_output_is_cut_with_a_note(target: Any) -> None:
    """Two million characters arrive cut to the default limit, or to the tool's own."""
    default = _call(target, "dump")
    (text,) = default.content
    assert len(text.text) == 100_000
    assert text.text.startswith(BIG[:40_000])
    assert "it has 2,000,000 characters" in text.text
    assert default.meta is not None
    assert default.meta["forge-tools/truncated"] is True
    (small,) = _call(target, "small_dump").content
    assert len(small.text) == 2_000


def test_forge_to_mcp_to_forge_keeps_the_parts() -> None:
    """Imported tools return the same parts the remote tools built, ready for any provider."""
    registry = ToolRegistry()
    client = import_tools(registry, _stdio(), prefix="remote_")
    try:
        assert registry.execute("remote_chart", {}).output == [
            Text("Sales by month:"), Image(PNG, "image/png"),
        ]  # fmt: skip
        assert registry.execute("remote_clip", {}).output == Audio(WAV, "audio/wav")
        csv, pdf, link = registry.execute("remote_resources", {}).output
        assert csv == File("name,total\nada,3\n", "text/csv", uri="test://sales.csv")
        assert pdf == File(b"%PDF-1.4\n%%EOF\n", "application/pdf", uri="file:///report.pdf")
        assert link == ResourceLink(
            "test://logs/today", name="today", title="Today's log", mime_type="text/plain"
        )
        result = registry.execute("remote_chart", {}).for_call("toolu_1", "remote_chart")
        (message,) = format_results(result, "anthropic")
        image_block = message["content"][0]["content"][1]
        assert image_block["type"] == "image"
        assert base64.b64decode(image_block["source"]["data"]) == PNG
    finally:
        client.close()
