"""What a tool result may hold besides text and JSON: images, audio, files and links.

A handler returns one `Content` part, or a list mixing parts with strings (each string
is a `Text` part), and `format_results` sends each part the way the provider takes it
(images as image blocks, PDFs as documents, ...). Common Python values become parts:

=====================================  =====================================================
returned value                         becomes
=====================================  =====================================================
`Image`, `Audio`, `File`, `Text`,      itself
`ResourceLink`
``pathlib.Path``                       the file's content: `Image`, `Audio` or `File` by
                                       the MIME type guessed from its name (return
                                       ``str(path)`` to send the path as text)
a PIL image (if Pillow is installed)   a PNG `Image` (JPEG, GIF and WebP images keep their
                                       format)
a list or tuple holding a part         a mix: strings become `Text`, paths and PIL images
                                       parts, anything else `Text` of its JSON
bytes with a MIME type                 ``Content.from_bytes(data, mime_type)``
a pydantic model, dict, list, ...      structured output (JSON), as before
=====================================  =====================================================
"""

from __future__ import annotations

import base64
import os
import sys
from dataclasses import KW_ONLY, dataclass
from typing import Any, ClassVar

__all__ = ["Audio", "Content", "File", "Image", "ResourceLink", "Text"]


class Content:
    """One part of a tool's result: `Text`, `Image`, `Audio`, `File` or `ResourceLink`."""

    __slots__ = ()

    kind: ClassVar[str] = "content"
    """The part's kind, as MCP names it: ``text``, ``image``, ``audio``, ``resource``
    (a `File`) or ``resource_link``."""

    @staticmethod
    def from_bytes(data: bytes, mime_type: str, *, name: str | None = None) -> Image | Audio | File:
        """The part for ``data`` of a MIME type: `Image`, `Audio` or else `File`.

        >>> Content.from_bytes(b"RIFF", "audio/wav")
        Audio(mime_type='audio/wav', size=4)
        """
        kind = _major(mime_type)
        if kind == "image":
            return Image(data, mime_type)
        if kind == "audio":
            return Audio(data, mime_type)
        return File(data, mime_type, name=name)

    @staticmethod
    def from_path(
        path: str | os.PathLike[str], mime_type: str | None = None
    ) -> Image | Audio | File:
        """The content of the file at ``path``, its MIME type guessed from the name.

        Raises:
            OSError: The file cannot be read.
        """
        import pathlib

        file = pathlib.Path(path)
        guessed = mime_type or guess_mime_type(file.name)
        return Content.from_bytes(file.read_bytes(), guessed, name=file.name)


@dataclass(frozen=True, slots=True)
class Text(Content):
    """Text for the model."""

    text: str
    """The text."""

    kind: ClassVar[str] = "text"

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"Text needs a str, got {type(self.text).__name__}")


@dataclass(frozen=True, slots=True, repr=False)
class Image(Content):
    """An image, as bytes of a MIME type such as ``image/png``."""

    data: bytes
    """The encoded image (PNG, JPEG, ...), not base64."""
    mime_type: str = "image/png"
    """Its MIME type (``image/...``)."""

    kind: ClassVar[str] = "image"

    def __post_init__(self) -> None:
        _check_binary(self, "image")

    def __repr__(self) -> str:
        return f"Image(mime_type={self.mime_type!r}, size={len(self.data)})"

    @property
    def base64(self) -> str:
        """The data as standard base64 text."""
        return base64.b64encode(self.data).decode("ascii")


@dataclass(frozen=True, slots=True, repr=False)
class Audio(Content):
    """A sound, as bytes of a MIME type such as ``audio/wav``."""

    data: bytes
    """The encoded audio (WAV, MP3, ...), not base64."""
    mime_type: str = "audio/wav"
    """Its MIME type (``audio/...``)."""

    kind: ClassVar[str] = "audio"

    def __post_init__(self) -> None:
        _check_binary(self, "audio")

    def __repr__(self) -> str:
        return f"Audio(mime_type={self.mime_type!r}, size={len(self.data)})"

    @property
    def base64(self) -> str:
        """The data as standard base64 text."""
        return base64.b64encode(self.data).decode("ascii")


@dataclass(frozen=True, slots=True, repr=False)
class File(Content):
    """A document or any other file: bytes, or text for a text file.

    A file with a ``uri`` is what MCP calls an embedded resource (MCP needs a URI: a file
    without one is sent as ``file:///<name>``).
    """

    data: bytes | str
    """The content: bytes, or a str for text (a text file, JSON, CSV, ...)."""
    mime_type: str = ""
    """Its MIME type (default: guessed from ``name``; else ``text/plain`` for text and
    ``application/octet-stream`` for bytes)."""
    _: KW_ONLY
    name: str | None = None
    """A file name for the model (``report.pdf``)."""
    uri: str | None = None
    """Where the content comes from (an MCP resource URI)."""

    kind: ClassVar[str] = "resource"

    def __post_init__(self) -> None:
        data: object = self.data  # checked: callers without type checking pass anything
        if isinstance(data, bytearray | memoryview):
            object.__setattr__(self, "data", bytes(data))
        elif not isinstance(data, bytes | str):
            raise TypeError(f"File data must be bytes or str, got {type(data).__name__}")
        if not self.mime_type:
            guessed = guess_mime_type(self.name or self.uri or "", default="")
            fallback = "text/plain" if isinstance(data, str) else "application/octet-stream"
            object.__setattr__(self, "mime_type", guessed or fallback)
        _check_mime(self.mime_type, "File")

    def __repr__(self) -> str:
        where = "".join(f", {k}={v!r}" for k, v in (("name", self.name), ("uri", self.uri)) if v)
        return f"File(mime_type={self.mime_type!r}, size={self.size}{where})"

    @property
    def is_text(self) -> bool:
        """Whether the content is text (a str)."""
        return isinstance(self.data, str)

    @property
    def size(self) -> int:
        """The content's length: bytes, or characters for text."""
        return len(self.data)

    @property
    def base64(self) -> str:
        """The content as standard base64 text (text is encoded as UTF-8 first)."""
        data = self.data
        raw = data.encode("utf-8") if isinstance(data, str) else data
        return base64.b64encode(raw).decode("ascii")

    @property
    def filename(self) -> str:
        """``name``, else the last segment of ``uri``, else ``file`` with an extension."""
        if self.name:
            return self.name
        tail = (self.uri or "").rstrip("/").rsplit("/", 1)[-1]
        if tail and "." in tail:
            return tail
        return "file" + _extension(self.mime_type)


@dataclass(frozen=True, slots=True)
class ResourceLink(Content):
    """A link to a resource the model (or its client) can fetch, not its content."""

    uri: str
    """The resource's URI."""
    _: KW_ONLY
    name: str = ""
    """A short name (default: the last segment of the URI)."""
    title: str | None = None
    """A human-readable title."""
    description: str | None = None
    """What the resource holds."""
    mime_type: str | None = None
    """Its MIME type, if known."""
    size: int | None = None
    """Its size in bytes, if known."""

    kind: ClassVar[str] = "resource_link"

    def __post_init__(self) -> None:
        if not isinstance(self.uri, str) or not self.uri:
            raise ValueError(f"ResourceLink needs a non-empty URI string, got {self.uri!r}")
        if not self.name:
            object.__setattr__(self, "name", self.uri.rstrip("/").rsplit("/", 1)[-1] or self.uri)


def guess_mime_type(name: str, default: str = "application/octet-stream") -> str:
    """The MIME type of a file name's extension (``default`` when unknown)."""
    import mimetypes

    guessed, _ = mimetypes.guess_type(name, strict=False)
    return guessed or _EXTRA_TYPES.get(os.path.splitext(name)[1].lower(), default)


_EXTRA_TYPES = {".webp": "image/webp", ".md": "text/markdown", ".flac": "audio/flac"}


def _extension(mime_type: str) -> str:
    import mimetypes

    known = {"text/plain": ".txt", "image/jpeg": ".jpg", "audio/mpeg": ".mp3"}
    return known.get(mime_type) or mimetypes.guess_extension(mime_type, strict=False) or ".bin"


def _major(mime_type: str) -> str:
    return mime_type.split("/", 1)[0].strip().lower() if isinstance(mime_type, str) else ""


def _check_binary(part: Image | Audio, major: str) -> None:
    data: object = part.data
    if isinstance(data, bytearray | memoryview):
        object.__setattr__(part, "data", bytes(data))
    elif not isinstance(data, bytes):
        hint = " (decode base64 text with base64.b64decode first)" if isinstance(data, str) else ""
        raise TypeError(
            f"{type(part).__name__} data must be bytes, got {type(data).__name__}{hint}"
        )
    _check_mime(part.mime_type, type(part).__name__)
    if _major(part.mime_type) != major:
        raise ValueError(
            f"{type(part).__name__} needs a {major}/... MIME type, got {part.mime_type!r}: "
            "use Content.from_bytes(data, mime_type) to pick the kind from the MIME type"
        )


def _check_mime(mime_type: object, what: str) -> None:
    if not isinstance(mime_type, str) or mime_type.count("/") != 1 or " " in mime_type.strip():
        raise ValueError(f"{what} needs a MIME type such as 'image/png', got {mime_type!r}")


_PLAIN = frozenset({str, dict, int, float, bool, type(None)})


def is_content(value: Any) -> bool:
    """Whether `as_content` would turn ``value`` into parts (without reading any file)."""
    if isinstance(value, Content) or _is_path(value):
        return True
    pil = sys.modules.get("PIL.Image")
    kinds = (Content, pil.Image) if pil is not None else Content
    if isinstance(value, kinds):
        return True
    return isinstance(value, list | tuple) and any(isinstance(item, kinds) for item in value)


def as_content(value: Any) -> Content | list[Content] | None:
    """``value`` as content parts, or ``None`` when it is plain output (text or JSON).

    See the module docstring for what becomes what.

    Raises:
        OSError: A returned path cannot be read.
    """
    if type(value) in _PLAIN:
        return None
    if isinstance(value, Content):
        return value
    part = _single(value)
    if part is not None:
        return part
    if isinstance(value, list | tuple):
        pil = sys.modules.get("PIL.Image")
        kinds = (Content, pil.Image) if pil is not None else Content
        if any(isinstance(item, kinds) for item in value):
            return [_item(item) for item in value]
    return None


def _is_path(value: Any) -> bool:
    pathlib = sys.modules.get("pathlib")  # not imported: the value cannot be a path
    return pathlib is not None and isinstance(value, pathlib.PurePath)


def _single(value: Any) -> Content | None:
    if _is_path(value):
        return Content.from_path(value)
    return _pil_image(value)


def _item(value: Any) -> Content:
    if isinstance(value, Content):
        return value
    if isinstance(value, str):
        return Text(value)
    part = _single(value)
    if part is not None:
        return part
    from forge.tools.values.jsonable import dumps

    return Text(dumps(value))


_PIL_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


def _pil_image(value: Any) -> Image | None:
    """A PIL image as an `Image` (Pillow is never imported here: only if the caller did)."""
    pil = sys.modules.get("PIL.Image")
    if pil is None or not isinstance(value, pil.Image):
        return None
    import io

    fmt = value.format if value.format in _PIL_FORMATS else "PNG"
    buffer = io.BytesIO()
    value.save(buffer, format=fmt)
    return Image(buffer.getvalue(), _PIL_FORMATS[fmt])
