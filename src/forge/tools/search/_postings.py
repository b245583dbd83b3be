"""BM25 postings that grow one document at a time, scored against any snapshot of live documents.

Each term keeps the documents it occurs in as an append-only list of (slot, term frequency)
pairs, slots ascending (a document's slot is given once, in increasing order), plus each
slot's length. Nothing global is stored: a `Bm25` view computes the document frequencies, the
document count and the average length of the documents its `Live` set holds when it scores,
so adding or dropping a document never rewrites the other documents' entries, and a view
scores exactly as an index built from scratch over the same documents (same formula, same
integer statistics, the same additions in the same order for each document).

A batch of documents is counted in one pass of numpy over term codes; documents given as a
head and a shared tail (`Joined`: tools that differ only by name) have the tail's terms coded
once per batch.

Scores use BM25's Lucene variant (as bm25s does): ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``
and ``tf / (k1 * (1 - b + b * dl / avgdl) + tf)``, in float64.

Writers append under the owner's lock; readers never lock. A reader copies a term's pairs
(one C-level slice, atomic under the GIL) and keeps only the slots below its snapshot's size.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, repeat
from typing import Any, NamedTuple, overload

__all__ = ["Bm25", "Joined", "Live", "Postings"]


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


class Joined(Sequence[str]):
    """A document given as its own terms (``times`` over) then a tail of terms other
    documents may share.

    `Postings.add` counts the terms of each distinct tail (the same object) once per batch:
    tools that differ only by name share every term but their name's.
    """

    __slots__ = ("head", "tail", "times")

    def __init__(self, head: Sequence[str], tail: Sequence[str], times: int = 1) -> None:
        self.head = head
        self.tail = tail
        self.times = times

    def __len__(self) -> int:
        return len(self.head) * self.times + len(self.tail)

    def __iter__(self) -> Iterator[str]:
        return chain(*repeat(self.head, self.times), self.tail)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return list(self)[index]


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
        (code, slot) keys gives every term's slots in order with its frequency in each. The
        tail of a `Joined` document is counted once for all the documents sharing it.
        """
        import numpy as np

        heads, times, tails, rows = _split(documents)
        count = len(documents)
        head_sizes = np.fromiter(map(len, heads), dtype=np.int64, count=count)
        tail_sizes = np.fromiter(map(len, tails), dtype=np.int64, count=len(tails))
        self.lengths[start : start + count] = head_sizes * times + np.append(tail_sizes, 0)[rows]
        head_terms = list(chain.from_iterable(heads))
        tail_terms = list(chain.from_iterable(tails))
        codes = dict.fromkeys(chain(tail_terms, head_terms), 0)
        if not codes:
            return
        codes.update(zip(codes, range(len(codes)), strict=True))
        # Each distinct tail's (code, frequency) pairs, then each document's, from its tail's.
        tail_codes, tail_counts, sizes = _counted(
            np.fromiter(map(codes.__getitem__, tail_terms), dtype=np.int64, count=len(tail_terms)),
            tail_sizes,
            len(codes),
        )
        firsts = np.append(np.cumsum(sizes) - sizes, 0)[rows]
        sizes = np.append(sizes, 0)[rows]
        at = _ragged(firsts, sizes)
        slots = np.arange(count, dtype=np.int64)
        # The documents' (code, slot) keys, each with a frequency: every head term (as many
        # times as the head is repeated), and its tail's pairs. Sorted, a term in both sums
        # its frequencies.
        keys = np.concatenate(
            (
                np.fromiter(
                    map(codes.__getitem__, head_terms), dtype=np.int64, count=len(head_terms)
                ),
                tail_codes[at],
            )
        )
        keys *= max(count, 1)
        keys += np.concatenate((np.repeat(slots, head_sizes), np.repeat(slots, sizes)))
        keys, frequencies = _summed(
            keys, np.concatenate((np.repeat(times, head_sizes), tail_counts[at]))
        )
        flat = np.empty((len(keys), 2), dtype=np.int32)
        flat[:, 0] = keys % max(count, 1) + start
        flat[:, 1] = frequencies
        ends = [*(8 * (np.flatnonzero(np.diff(keys // max(count, 1))) + 1)).tolist(), 8 * len(keys)]
        data = flat.tobytes()
        pairs = self._pairs
        first = 0
        for term, end in zip(codes, ends, strict=True):
            known = pairs.get(term)
            if known is None:
                pairs[term] = array("i", data[first:end])
            else:
                known.frombytes(data[first:end])
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


def _split(
    documents: Sequence[Sequence[str]],
) -> tuple[list[Sequence[str]], Any, list[Sequence[str]], Any]:
    """Each document's own terms and how many times they are repeated, the distinct tails
    (by identity; a plain document's is the empty tuple), and each document's tail (its
    position in them)."""
    import numpy as np

    # Exact type checks: no ABC machinery per document.
    heads = [d.head if type(d) is Joined else d for d in documents]
    times = [d.times if type(d) is Joined else 1 for d in documents]
    shared = [d.tail if type(d) is Joined else () for d in documents]
    known: dict[int, int] = {}
    rows = [known.setdefault(i, len(known)) for i in map(id, shared)]
    tails = list({id(tail): tail for tail in shared}.values())
    return heads, np.array(times, dtype=np.int64), tails, np.array(rows, dtype=np.int64)


def _counted(codes: Any, sizes: Any, distinct: int) -> tuple[Any, Any, Any]:
    """The distinct codes of each run of ``sizes`` codes (ascending), how often each occurs
    in its run, and how many distinct codes each run has."""
    import numpy as np

    keys = codes + np.repeat(np.arange(len(sizes), dtype=np.int64) * distinct, sizes)
    keys, counts = np.unique(keys, return_counts=True)
    return keys % distinct, counts, np.bincount(keys // distinct, minlength=len(sizes))


def _summed(keys: Any, weights: Any) -> tuple[Any, Any]:
    """The distinct ``keys`` (ascending, non-negative) and the sum of each one's ``weights``."""
    import numpy as np

    if len(keys) and int(keys.max()) < 1 << 40 and int(weights.max()) < 1 << 22:
        packed = np.sort((keys << 22) | weights)  # a plain sort is much faster than argsort
        keys, weights = packed >> 22, packed & ((1 << 22) - 1)
    else:
        order = np.argsort(keys)
        keys, weights = keys[order], weights[order]
    firsts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return keys[firsts], np.add.reduceat(weights, firsts) if len(keys) else weights


def _ragged(starts: Any, sizes: Any) -> Any:
    """The positions ``starts[i], ..., starts[i] + sizes[i] - 1`` of every segment, in order."""
    import numpy as np

    offsets = np.cumsum(sizes) - sizes
    return np.arange(int(sizes.sum()), dtype=np.int64) + np.repeat(starts - offsets, sizes)


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
