"""The error an unusable OpenAPI document raises, and JSON pointers for its messages."""

from __future__ import annotations

from collections.abc import Iterable

from forge.core.errors import ForgeError

__all__ = ["OpenAPIError", "pointer"]


class OpenAPIError(ForgeError, ValueError):
    """An OpenAPI document cannot be read, is invalid, or cannot become tools.

    Attributes:
        source: The document (a path, a URL or ``<mapping>``).
        path: Where in the document, as a JSON pointer (``""``: the document itself).
        reason: What is wrong and how to fix it.
    """

    def __init__(self, source: str, path: str, reason: str) -> None:
        self.source = source
        self.path = path
        self.reason = reason
        at = f" at {path}" if path else ""
        super().__init__(f"{source}{at}: {reason}")

    def __reduce__(self) -> tuple[type[OpenAPIError], tuple[str, str, str]]:
        return (type(self), (self.source, self.path, self.reason))


def pointer(parts: Iterable[str]) -> str:
    """The JSON pointer (RFC 6901) of a path in the document: ``/paths/~1pets/get``."""
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)
