"""Content parts: built directly, or from the Python values a handler returns."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from forge.tools import (
    Audio,
    Content,
    ErrorKind,
    File,
    Image,
    ResourceLink,
    Text,
    ToolRegistry,
    format_results,
    tool,
)
from tests.unit.tools.content_samples import PDF, PNG, WAV


def _run(value: Any) -> Any:
    """What a tool returning ``value`` gives its caller."""

    @tool
    def give() -> Any:
        """Return the value."""
        return value

    return ToolRegistry([give]).execute("give", {})


def test_bytes_with_a_mime_type_pick_their_kind() -> None:
    """Content.from_bytes makes an Image, Audio or File from the MIME type."""
    assert Content.from_bytes(PNG, "image/png") == Image(PNG, "image/png")
    assert Content.from_bytes(WAV, "audio/wav") == Audio(WAV, "audio/wav")
    assert Content.from_bytes(PDF, "application/pdf", name="a.pdf") == File(
        PDF, "application/pdf", name="a.pdf"
    )


def test_a_returned_path_is_the_file_it_names(tmp_path: Path) -> None:
    """A Path becomes the file's content, its MIME type guessed from the name."""
    (tmp_path / "chart.png").write_bytes(PNG)
    (tmp_path / "report.pdf").write_bytes(PDF)
    assert _run(tmp_path / "chart.png").output == Image(PNG, "image/png")
    assert _run(tmp_path / "report.pdf").output == File(PDF, "application/pdf", name="report.pdf")


def test_a_path_that_cannot_be_read_is_a_tool_error(tmp_path: Path) -> None:
    """A missing file fails the call with a message naming the problem; nothing raises."""
    result = _run(tmp_path / "gone.png")
    assert not result.success
    assert result.error_kind is ErrorKind.TOOL_ERROR
    assert "gone.png" in result.error
    assert "No such file" in result.error


def test_a_pil_image_becomes_a_png() -> None:
    """A PIL image is saved as PNG (JPEG keeps its format)."""
    import PIL.Image as pil  # Pillow is a test dependency (the dev extra)

    result = _run(pil.new("RGB", (2, 2), "red"))
    assert isinstance(result.output, Image)
    assert result.output.mime_type == "image/png"
    assert pil.open(io.BytesIO(result.output.data)).size == (2, 2)
    buffer = io.BytesIO()
    pil.new("RGB", (1, 1)).save(buffer, format="JPEG")
    assert _run(pil.open(io.BytesIO(buffer.getvalue()))).output.mime_type == "image/jpeg"


def test_a_list_with_a_part_is_a_mix() -> None:
    """Strings become Text, parts stay, other values become their JSON text."""
    result = _run(["Chart:", Image(PNG), {"n": 1}])
    assert result.output == [Text("Chart:"), Image(PNG), Text('{"n":1}')]


def test_plain_outputs_stay_plain() -> None:
    """Strings, dicts, lists of strings and pydantic models are not content."""

    class Point(BaseModel):
        x: int

    assert _run("hi").output == "hi"
    assert _run(["a", "b"]).output == ["a", "b"]
    assert _run({"a": 1}).output == {"a": 1}
    assert _run(Point(x=1)).output == Point(x=1)
    assert format_results(_run(Point(x=1)).for_call("c", "give"), "mcp")[0][
        "structuredContent"
    ] == {"x": 1}


def test_parts_check_their_fields() -> None:
    """Wrong types and MIME types are refused with a message saying what to pass."""
    with pytest.raises(TypeError, match="b64decode"):
        Image("iVBOR...", "image/png")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"Content\.from_bytes"):
        Image(WAV, "audio/wav")
    with pytest.raises(ValueError, match="MIME type such as"):
        Audio(WAV, "wav")
    with pytest.raises(TypeError, match="bytes or str"):
        File(123, "text/plain")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-empty URI"):
        ResourceLink("")
    with pytest.raises(TypeError, match="needs a str"):
        Text(b"x")  # type: ignore[arg-type]


def test_defaults_are_filled_in() -> None:
    """A file's MIME type comes from its name; a link's name from its URI."""
    assert File("a,b", name="t.csv").mime_type == "text/csv"
    assert File("plain").mime_type == "text/plain"
    assert File(b"\x00").mime_type == "application/octet-stream"
    assert File(bytearray(b"x"), "application/zip").data == b"x"
    assert ResourceLink("https://example.com/docs/guide.md").name == "guide.md"
    assert File(b"x", "application/pdf").filename == "file.pdf"
    assert repr(Image(PNG)) == f"Image(mime_type='image/png', size={len(PNG)})"
