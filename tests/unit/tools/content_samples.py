"""Small real files of each content kind, shared by the content tests."""

from __future__ import annotations

import base64
import io
import wave

from forge.tools.values.content import Audio, Content, File, Image, ResourceLink, Text

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
"""A 1x1 red pixel."""
PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
)
"""An empty PDF document."""


def wav() -> bytes:
    """A tenth of a second of 8 kHz mono silence."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(8000)
        out.writeframes(b"\x80" * 800)
    return buffer.getvalue()


WAV = wav()

PARTS: dict[str, Content] = {
    "text": Text("Here is what I found:"),
    "png": Image(PNG, "image/png"),
    "bmp": Image(b"BM" + bytes(60), "image/bmp"),
    "wav": Audio(WAV, "audio/wav"),
    "ogg": Audio(b"OggS" + bytes(40), "audio/ogg"),
    "pdf": File(PDF, "application/pdf", name="report.pdf"),
    "notes": File("line one\nline two", "text/plain", name="notes.txt"),
    "json": File('{"test":"data"}', "application/json", uri="test://data"),
    "csv_bytes": File(b"a,b\n1,2\n", "text/csv", name="table.csv"),
    "zip": File(b"PK\x03\x04" + bytes(20), "application/zip", name="bundle.zip"),
    "link": ResourceLink(
        "file:///logs/today.log", title="Today's log", description="The server log",
        mime_type="text/plain", size=2048,
    ),
}  # fmt: skip
"""One part of each kind a provider may or may not carry."""
