"""BM25 postings that grow one document at a time, scored against any snapshot of live documents.

Each term keeps the documents it occurs in as an append-only list of (slot, term frequency)
pairs, slots ascending (a document's slot is given once, in increasing order), plus each
slot's length. Nothing global is stored: a `Bm25` view computes the document frequencies, the
document count and the average length of the documents its `Live` set holds when it scores,
so adding or dropping a document never rewrites the other documents' entries, and a view
scores exactly as an index built from scratch over the same documents (same formula, same
integer statistics, the same additions in the same order for each document).

Scores use BM25's Lucene variant (as bm25s does): ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``
and ``tf / (k1 * (1 - b + b * dl / avgdl) + tf)``, in float64.

Writers append under the owner's lock; readers never lock. A reader copies a term's pairs
(one C-level slice, atomic under the GIL) and keeps only the slots below its snapshot's size.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Any, NamedTuple

__all__ = ["Bm25", "Live", "Postings"]


class Live(NamedTuple):
    """The documents of one snapshot: ``slots[position]`` and a mask over slots below ``size``."""

    slots: Any
    """Slot of each document, in the snapshot's order (int64 array)."""
    alive: Any
    """``alive[slot]`` is true for the slots in ``slots`` (bool array of ``size``)."""
    size: int
    """Slots at or above this were given after the snapshot was taken."""
    ordered: bool
    """Whether ``slots`` is every slot below ``size``, in order (no copy needed)."""


class Postings:
    """Term postings and document lengths, appended to and never changed in place."""

    def __init__(self) -> None:
        import numpy as np

        self._pairs: dict[str, array[int]] = {}
        self._arrays: dict[str, tuple[int, Any, Any]] = {}
        self.lengths: Any = np.zeros(0, dtype=np.int64)

    def reserve(self, size: int) -> None:
        """Make room for slots below ``size`` (a new array: readers keep the one they hold)."""
        import numpy as np

        if size > len(self.lengths):
            grown = np.zeros(max(size, 2 * len(self.lengths)), dtype=np.int64)
            grown[: len(self.lengths)] = self.lengths
            self.lengths = grown

    def add(self, start: int, documents: Sequence[Sequence[str]]) -> None:
        """Index documents at slots ``start``, ``start + 1``, ... (above every slot added).

        All the documents are counted at once: each term gets a code, and one sort of the
        (code, slot) keys gives every term's slots in order with its frequency in each.
        """
        import numpy as np

        count = len(documents)
        lengths = np.fromiter(map(len, documents), dtype=np.int64, count=count)
        self.lengths[start : start + count] = lengths
        terms = list(chain.from_iterable(documents))
        if not terms:
            return
        codes = dict(zip(dict.fromkeys(terms), range(len(terms)), strict=False))
        keys = np.fromiter(map(codes.__getitem__, terms), dtype=np.int64, count=len(terms))
        keys *= max(count, 1)
        keys += np.repeat(np.arange(count, dtype=np.int64), lengths)
        keys, frequencies = np.unique(keys, return_counts=True)
        flat = np.empty((len(keys), 2), dtype=np.int32)
        flat[:, 0] = keys % max(count, 1) + start
        flat[:, 1] = frequencies
        ends = [*(np.flatnonzero(np.diff(keys // max(count, 1))) + 1).tolist(), len(keys)]
        pairs = self._pairs
        first = 0
        for term, end in zip(codes, ends, strict=True):
            known = pairs.get(term)
            chunk = flat[first:end]
            if known is None:
                pairs[term] = array("i", chunk.tobytes())
            else:
                known.frombytes(chunk.tobytes())
            first = end

    def find(self, term: str, size: int) -> tuple[Any, Any] | None:
        """The slots below ``size`` holding ``term`` (ascending) and its frequency in each."""
        import numpy as np

        pairs = self._pairs.get(term)
        if pairs is None:
            return None
        count = len(pairs) & ~1
        cached = self._arrays.get(term)
        if cached is None or cached[0] != count:
            flat = np.frombuffer(pairs[:count], dtype=np.int32)
            cached = (count, flat[0::2].astype(np.int64), flat[1::2].astype(np.float64))
            self._arrays[term] = cached
        _, slots, frequencies = cached
        if len(slots) and slots[-1] >= size:
            cut = int(np.searchsorted(slots, size))
            slots, frequencies = slots[:cut], frequencies[:cut]
        return slots, frequencies

    def kept(self, remap: Any, size: int) -> Postings:
        """A copy holding only the slots ``remap`` keeps (``remap[old] = new``, -1 to drop).

        ``remap`` must keep the order of the slots it keeps, so the lists stay ascending.
        """
        import numpy as np

        out = Postings()
        out.reserve(size)
        kept = remap >= 0
        out.lengths[remap[kept]] = self.lengths[: len(remap)][kept]
        for term, pairs in list(self._pairs.items()):
            flat = np.frombuffer(pairs[: len(pairs) & ~1], dtype=np.int32).reshape(-1, 2)
            flat = flat[flat[:, 0] < len(remap)]
            new = remap[flat[:, 0]]
            keep = new >= 0
            if keep.any():
                moved = np.column_stack((new[keep], flat[keep, 1])).astype(np.int32)
                out._pairs[term] = array("i", moved.tobytes())
        return out


class Bm25:
    """BM25 scores over the documents of one `Live` snapshot of `Postings`.

    Each term's scores are computed on first use and kept with the snapshot, so a change
    to the registry costs nothing until a query uses a term, and repeated terms cost a sum.
    """

    def __init__(self, postings: Postings, live: Live, k1: float, b: float) -> None:
        self._postings = postings
        self._live = live
        self._k1 = k1
        self._b = b
        self._lengths = postings.lengths
        self._average = float(self._lengths[live.slots].sum()) / max(1, len(live.slots))
        self._complete = len(live.slots) == live.size  # no dead slot below the size
        self._terms: dict[str, tuple[Any, Any] | None] = {}

    def _term(self, term: str) -> tuple[Any, Any] | None:
        """The live slots holding ``term`` and their scores for it, or ``None``."""
        if term in self._terms:
            return self._terms[term]
        live = self._live
        found = self._postings.find(term, live.size)
        if found is not None:
            slots, tf = found
            if not self._complete:
                alive = live.alive[slots]
                slots, tf = slots[alive], tf[alive]
            found = None
            if len(slots):
                df, total, k1, b = len(slots), len(live.slots), self._k1, self._b
                idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
                lengths = self._lengths[slots]
                found = slots, idf * (tf / (k1 * ((1 - b) + b * lengths / self._average) + tf))
        self._terms[term] = found
        return found

    def get(self, term: str, default: int = 0) -> int:
        """How many live documents hold ``term`` (its document frequency), else ``default``."""
        found = self._term(term)
        return len(found[0]) if found is not None else default

    def get_scores(self, terms: Iterable[str]) -> Any:
        """Each document's score for ``terms`` (repeats count again), in the snapshot's order."""
        import numpy as np

        live = self._live
        scores = np.zeros(live.size, dtype=np.float64)
        for term in terms:
            found = self._term(term)
            if found is not None:
                scores[found[0]] += found[1]
        return scores if live.ordered else scores[live.slots]
