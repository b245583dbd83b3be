"""Search terms of any script: identifiers split, text normalised, CJK cut into bigrams.

Text is normalised with NFKC, case-folded and stripped of combining accents (``Café`` and
``CAFE`` give ``cafe``). A word is a run of letters and digits of any script; a run of Chinese
or Japanese characters, written without spaces, becomes its overlapping character pairs
(``天气预报`` -> ``天气 气预 预报``; a lone character stays). English stop words, numbers and
single Latin letters are dropped from ``tokenize``'s terms, and English plurals and suffixes are
folded; words of other scripts are kept as they are.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from itertools import pairwise

__all__ = ["pieces", "split_identifier", "stems", "terms", "tokenize", "words"]

#: Where a camelCase word breaks: before a capital that follows a lowercase letter or digit, or
#: that starts a word after a run of capitals (``HTTPServer``). Testing the capital first lets
#: the scan skip every other position quickly.
_CAMEL = re.compile(r"(?=[A-Z])(?:(?<=[a-z0-9])|(?<=[A-Z])(?=[A-Z][a-z]))")
#: ASCII text to its words: capitals lowered, everything but letters and digits a space.
_ASCII_WORDS = str.maketrans(
    {chr(i): chr(i).lower() if chr(i).isalnum() else " " for i in range(128)}
)
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: A run of Chinese or Japanese characters, or a run of other letters and digits.
_WORD = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_CJK_RUN = re.compile(rf"[{_CJK}]")
_ACCENTS = re.compile("[\u0300-\u036f]")
_STOP = frozenset(
    [
        "a",
        "about",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "by",
        "can",
        "could",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "he",
        "hello",
        "her",
        "hey",
        "hi",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "just",
        "know",
        "let",
        "like",
        "me",
        "much",
        "my",
        "need",
        "now",
        "of",
        "on",
        "or",
        "our",
        "please",
        "she",
        "should",
        "so",
        "some",
        "tell",
        "than",
        "thank",
        "thanks",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "up",
        "us",
        "very",
        "want",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
_SUFFIXES = (
    ("ational", "ate"),
    ("ation", "ate"),
    ("ies", "y"),
    ("sses", "ss"),
    ("ingly", ""),
    ("ing", ""),
    ("edly", ""),
    ("ed", ""),
    ("ly", ""),
    ("ment", ""),
    ("s", ""),
)
_VOWEL = re.compile(r"[aeiouy]")


def split_identifier(text: str) -> str:
    """``snake_case``, ``kebab-case`` and ``camelCase`` identifiers spelled as words."""
    text = text.replace("_", " ").replace("-", " ")
    return text if text.islower() else _CAMEL.sub(" ", text)  # no capital: nothing to split


def _fold(text: str) -> str:
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return unicodedata.normalize("NFC", _ACCENTS.sub("", unicodedata.normalize("NFD", text)))


def pieces(text: str) -> list[str]:
    """The words of a text, folded; a CJK run as its character pairs.

    `tokenize` and `words` of a text are `terms` and `stems` of its pieces, so a text that
    needs both is split once. Texts joined by spaces give their pieces joined.
    """
    spelled = split_identifier(text)
    if spelled.isascii():  # folding is lowering; a word is a run of [a-z0-9]
        return spelled.translate(_ASCII_WORDS).split()
    folded = _fold(spelled)
    if folded.isascii():  # no CJK run to split
        return _WORD.findall(folded)
    out: list[str] = []
    for word in _WORD.findall(folded):
        if len(word) > 1 and _CJK_RUN.match(word):
            out.extend(a + b for a, b in pairwise(word))
        else:
            out.append(word)
    return out


@lru_cache(maxsize=65536)
def _term(word: str) -> str | None:
    if not word.isascii():
        return None if word.isdigit() or not (len(word) > 1 or _CJK_RUN.match(word)) else word
    if len(word) < 2 or word in _STOP or word.isdigit():
        return None
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return None if word in _STOP else word


def terms(words: Iterable[str]) -> list[str]:
    """The search terms of a text's `pieces` (stop words, numbers and single letters dropped)."""
    return [term for term in map(_term, words) if term is not None]


def tokenize(text: str) -> list[str]:
    """Split text and identifiers into lowercase search terms."""
    return terms(pieces(text))


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A light English stemmer: the first matching suffix of ``_SUFFIXES`` is replaced."""
    if len(word) <= 3 or not word.isascii() or word.endswith(("ss", "us", "is")):
        return word
    for suffix, replacement in _SUFFIXES:
        base = word[: -len(suffix)]
        if not word.endswith(suffix) or len(base) < 3 or not _VOWEL.search(base):
            continue
        if suffix in ("ing", "ingly", "ed", "edly"):
            if base[-1] == base[-2] and base[-1] not in "lsz":
                return base[:-1]  # stopped -> stop
            if base.endswith(("at", "bl", "iz")):
                return base + "e"  # created -> create
        return base + replacement
    return word


def stems(words: Iterable[str]) -> list[str]:
    """Every one of a text's `pieces`, stemmed."""
    return list(map(_stem, words))


def words(text: str) -> list[str]:
    """Every word of text and identifiers, lowercased and stemmed, none dropped."""
    return stems(pieces(text))
