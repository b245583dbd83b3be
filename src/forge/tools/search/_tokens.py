"""Search terms of any script: identifiers split, text normalised, CJK cut into bigrams.

Text is normalised with NFKC, case-folded and stripped of combining accents (``Café`` and
``CAFE`` give ``cafe``). A word is a run of letters and digits of any script; a run of Chinese
or Japanese characters, written without spaces, becomes its overlapping character pairs
(``天气预报`` -> ``天气 气预 预报``; a lone character stays). English stop words, numbers and
single Latin letters are dropped from ``tokenize``'s terms, and English plurals and suffixes are
folded; words of other scripts are kept as they are.

An ASCII text is cut into its runs of letters and digits; each distinct run is split, and its
terms and stems found, once and kept (up to ``_RUNS_KEPT``), so indexing many tools
splits each word of their vocabulary once instead of at every occurrence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import chain, pairwise

__all__ = ["identifier_terms", "split_identifier", "terms_and_words", "tokenize", "words"]

#: Where a camelCase word breaks: before a capital that follows a lowercase letter or digit, or
#: that starts a word after a run of capitals (``HTTPServer``). Testing the capital first lets
#: the scan skip every other position quickly.
_CAMEL = re.compile(r"(?=[A-Z])(?:(?<=[a-z0-9])|(?<=[A-Z])(?=[A-Z][a-z]))")
#: ASCII text to its runs of letters and digits (case kept): every other character a space.
_ASCII_RUNS = "".join(c if c.isalnum() else " " for c in map(chr, range(128)))
#: How many distinct ASCII runs keep their words, terms and stems (the most recently used).
_RUNS_KEPT = 32768
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
    """Text with a non-ASCII character, NFKC- and case-folded, accents stripped."""
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return unicodedata.normalize("NFC", _ACCENTS.sub("", unicodedata.normalize("NFD", text)))


def _runs(text: str) -> list[str]:
    """An ASCII text's runs of letters and digits.

    A camelCase break lies between two letters or digits and depends on no other character,
    so a text's words are its runs' words, one after the other: each run is split (and its
    terms and stems found) once and kept (`_run_pieces`).
    """
    return text.translate(_ASCII_RUNS).split()


def _pieces(text: str) -> list[str]:
    """The words of a text, folded; a CJK run as its character pairs."""
    if text.isascii():
        return list(chain.from_iterable(map(_run_pieces, _runs(text))))
    folded = _fold(split_identifier(text))
    if folded.isascii():  # no CJK run to split
        return _WORD.findall(folded)
    out: list[str] = []
    for word in _WORD.findall(folded):
        if len(word) > 1 and _CJK_RUN.match(word):
            out.extend(a + b for a, b in pairwise(word))
        else:
            out.append(word)
    return out


@lru_cache(maxsize=_RUNS_KEPT)
def _run_pieces(run: str) -> tuple[str, ...]:
    """The lowercase words of a run of ASCII letters and digits (cut at camelCase breaks)."""
    return (run,) if run.islower() else tuple(_CAMEL.sub(" ", run).lower().split())


@lru_cache(maxsize=65536)
def _term(word: str) -> str | None:
    if not word.isascii():
        return None if word.isdigit() or not (len(word) > 1 or _CJK_RUN.match(word)) else word
    if len(word) < 2 or word in _STOP or word.isdigit():
        return None
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return None if word in _STOP else word


def _terms(words: Iterable[str]) -> list[str]:
    return [term for term in map(_term, words) if term is not None]


class _Kept(dict[str, tuple[str, ...]]):
    """What ``derive`` gives each run, computed on first use and kept; emptied when it would
    hold more than ``_RUNS_KEPT``. A dict's own lookup costs a run less than `lru_cache`'s."""

    def __init__(self, derive: Callable[[str], tuple[str, ...]]) -> None:
        super().__init__()
        self._derive = derive

    def __missing__(self, run: str) -> tuple[str, ...]:
        if len(self) >= _RUNS_KEPT:
            self.clear()
        found = self[run] = self._derive(run)
        return found


def _run_terms(run: str) -> tuple[str, ...]:
    return tuple(_terms(_run_pieces(run)))


_RUN_TERMS = _Kept(_run_terms)


def tokenize(text: str) -> list[str]:
    """Split text and identifiers into lowercase search terms."""
    if text.isascii():
        return list(chain.from_iterable(map(_RUN_TERMS.__getitem__, _runs(text))))
    return _terms(_pieces(text))


@lru_cache(maxsize=_RUNS_KEPT)
def identifier_terms(name: str) -> tuple[str, ...]:
    """``tokenize(name)``, kept: the same parameter names recur across a registry's tools."""
    return tuple(tokenize(name))


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


def _run_stems(run: str) -> tuple[str, ...]:
    return tuple(map(_stem, _run_pieces(run)))


_RUN_STEMS = _Kept(_run_stems)


def words(text: str) -> list[str]:
    """Every word of text and identifiers, lowercased and stemmed, none dropped."""
    if text.isascii():
        return list(chain.from_iterable(map(_RUN_STEMS.__getitem__, _runs(text))))
    return list(map(_stem, _pieces(text)))


def terms_and_words(text: str) -> tuple[list[str], list[str]]:
    """``tokenize(text)`` and ``words(text)``, an ASCII text cut into runs once for both."""
    if not text:  # most tools have no display name or tags
        return [], []
    if not text.isascii():
        return tokenize(text), words(text)
    runs = _runs(text)
    return (list(chain.from_iterable(map(_RUN_TERMS.__getitem__, runs))),
            list(chain.from_iterable(map(_RUN_STEMS.__getitem__, runs))))  # fmt: skip
