"""Search terms of any script: folding, CJK bigrams, and the tokenizer's invariants."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools.search import tokenize, words


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("Café CRÈME", ["cafe", "creme"]),
        ("ﬁle Straße", ["file", "strasse"]),
        ("Москва погода", ["москва", "погода"]),
        ("天气预报", ["天气", "气预", "预报"]),
        ("查天气 weather", ["查天", "天气", "weather"]),
        ("书", ["书"]),
        ("東京タワー", ["東京", "京タ", "タワ", "ワー"]),
        ("한국어 날씨", ["한국어", "날씨"]),
        ("getWeather在北京", ["get", "weather", "在北", "北京"]),
        ("\uff12\uff10\uff12\uff13 \u0663 x", []),  # full-width and Arabic-Indic digits
    ],
)
def test_letters_and_digits_of_every_script(text: str, terms: list[str]) -> None:
    """Words of any script are kept, accents and widths folded, CJK runs cut into pairs."""
    assert tokenize(text) == terms


def test_whole_definition_words_keep_other_scripts_unstemmed() -> None:
    """The whole-definition words keep numbers and stop words, and stem only English."""
    assert words("Rechnungen für 2023 senden") == ["rechnungen", "fur", "2023", "senden"]
    assert words("获取天气 forecasts") == ["获取", "取天", "天气", "forecast"]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_tokenize_never_raises_and_is_idempotent(text: str) -> None:
    """Any text gives clean, folded terms, and the terms give themselves back."""
    terms = tokenize(text)
    for term in terms:
        assert term
        assert term == term.casefold() == unicodedata.normalize("NFKC", term)
        assert not any(c.isspace() or c == "_" for c in term)
    assert tokenize(" ".join(terms)) == terms
    assert len(words(text)) >= len(terms)
