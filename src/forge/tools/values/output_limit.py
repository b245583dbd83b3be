"""`OutputLimit`: how much of a tool's output goes back to the model.

`format_results` (and the MCP server) cut what a result sends the model to its limit:
text beyond ``max_chars`` characters is cut in the middle, and images, audio and files
beyond ``max_bytes`` bytes are left out, each with a note saying what was cut and what
to do. The `ToolResult` keeps the whole output for the Python caller.

A tool's ``output_limit`` option overrides its executor's, which overrides the default
(`DEFAULT_OUTPUT_LIMIT`: 100,000 characters, about 25,000 tokens, and 5 MiB).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["DEFAULT_OUTPUT_LIMIT", "MIN_CHARS", "OutputLimit"]

MIN_CHARS: Final = 1000
"""The smallest ``max_chars``: room for the truncation note and some of the output."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OutputLimit:
    """The most of one result that is sent to the model (``None``: no limit).

    >>> OutputLimit.coerce(20_000)
    OutputLimit(max_chars=20000, max_bytes=5242880)
    """

    max_chars: int | None = 100_000
    """Characters of text (the output's text or JSON, text parts and text files together)."""
    max_bytes: int | None = 5 * 1024 * 1024
    """Bytes of images, audio and binary files together (before base64)."""

    def __post_init__(self) -> None:
        _check("max_chars", self.max_chars, MIN_CHARS)
        _check("max_bytes", self.max_bytes, 0)

    @classmethod
    def coerce(cls, value: OutputLimit | int | Mapping[str, Any] | None) -> OutputLimit | None:
        """An `OutputLimit` from itself, ``max_chars`` alone, a mapping of its fields or ``None``.

        Raises:
            TypeError: ``value`` is none of those.
            ValueError: A limit is not a whole number, or is too small.
        """
        if value is None or isinstance(value, OutputLimit):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return cls(max_chars=value)
        if isinstance(value, Mapping):
            unknown = sorted(set(map(str, value)) - {"max_chars", "max_bytes"})
            if unknown:
                raise ValueError(
                    f"unknown output_limit key(s): {', '.join(unknown)}; "
                    "allowed: max_chars, max_bytes"
                )
            return cls(**value)
        raise TypeError(
            "output_limit must be an OutputLimit, a number of characters or a mapping with "
            f"max_chars and max_bytes, got {type(value).__name__}"
        )


def _check(name: str, value: object, least: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int or None, got {type(value).__name__}")
    if value < least:
        raise ValueError(
            f"{name} must be at least {least} (or None for no limit), got {value}"
            + (": the truncation notes take up to about 700" if name == "max_chars" else "")
        )


DEFAULT_OUTPUT_LIMIT: Final = OutputLimit()
"""The limit of results whose tool and executor set none."""
