"""Small helpers for writing messages."""

from __future__ import annotations

import reprlib
from typing import Any

__all__ = ["article", "shown"]

# Words starting with a vowel letter but a consonant sound, as they occur in our messages.
_CONSONANT_SOUND = ("uni", "use", "usa", "usu", "uri", "url", "utf", "uui", "one")


def article(word: str) -> str:
    """``word`` with "a" or "an" before it: ``article("integer") == "an integer"``."""
    lowered = word.lower()
    vowel = lowered[:1] in ("a", "e", "i", "o", "u") and not lowered.startswith(_CONSONANT_SOUND)
    return f"{'an' if vowel else 'a'} {word}"


_SHORT = reprlib.Repr()
_SHORT.maxlevel = 4
_SHORT.maxstring = _SHORT.maxother = 80


def shown(value: Any, limit: int = 200) -> str:
    """A short ``repr`` of ``value`` for a message, whatever it holds.

    Never raises: nesting past a few levels is elided (no `RecursionError`), and a
    value whose ``repr`` fails (an integer past Python's 4300-digit limit) is named
    by its type.
    """
    try:
        text = _SHORT.repr(value)
    except (ValueError, RecursionError, TypeError):
        return f"<{type(value).__name__} that cannot be shown>"
    return text[:limit]
