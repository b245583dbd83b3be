"""Small helpers for writing messages."""

from __future__ import annotations

__all__ = ["article"]

# Words starting with a vowel letter but a consonant sound, as they occur in our messages.
_CONSONANT_SOUND = ("uni", "use", "usa", "usu", "uri", "url", "utf", "uui", "one")


def article(word: str) -> str:
    """``word`` with "a" or "an" before it: ``article("integer") == "an integer"``."""
    lowered = word.lower()
    vowel = lowered[:1] in ("a", "e", "i", "o", "u") and not lowered.startswith(_CONSONANT_SOUND)
    return f"{'an' if vowel else 'a'} {word}"
