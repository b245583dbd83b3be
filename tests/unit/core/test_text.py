"""Articles in messages: "an integer", never "a integer"."""

from __future__ import annotations

import pytest

from forge.core.errors import BlockedAddressError
from forge.core.text import article


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("integer", "an integer"), ("internal", "an internal"), ("object", "an object"),
        ("unspecified", "an unspecified"), ("int", "an int"), ("string", "a string"),
        ("user", "a user"), ("URL", "a URL"), ("UUID", "a UUID"), ("one-off", "a one-off"),
    ],
)  # fmt: skip
def test_article_follows_the_sound(word: str, expected: str) -> None:
    """A word starting with a vowel sound takes "an"; others, "a"."""
    assert article(word) == expected


def test_blocked_address_message_uses_the_right_article() -> None:
    """0.0.0.0 is "an unspecified address", loopback "a loopback address"."""
    assert "an unspecified address" in str(BlockedAddressError("h", "0.0.0.0", "unspecified"))
    assert "a loopback address" in str(BlockedAddressError("h", "127.0.0.1", "loopback"))
