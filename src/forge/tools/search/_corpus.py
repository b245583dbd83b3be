"""The search index's storage, kept across registry versions and changed one tool at a time.

A `Corpus` holds what the index needs of each tool it has seen (`Parts`: its two BM25
documents, its embedding and its re-ranking profile), each computed once, in slots that are
only ever appended. A `Snapshot` is one list of tools over it: the slot of each tool and the
mask of live slots. Taking the snapshot of a registry's new version computes the parts of the
tools the corpus has not seen (by identity: a replaced tool is a new object) and nothing else;
tools that left simply have no slot in it. Nothing global is stored, so a snapshot scores
exactly as a corpus built from scratch over the same tools (`forge.tools.search._postings`).

When the dead slots outnumber the live ones (plus `SPARE`), or no tool is left, the snapshot
being taken moves its live slots into a fresh storage (copied, not recomputed). Snapshots
taken before keep the storage they were taken on: storage is never changed below the size a
snapshot saw, so readers never lock and always see one consistent version. Writers take the
corpus's lock.

`corpus_for` keeps one corpus per registry or view, as long as it lives.
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple, overload

from forge.tools.search._postings import Bm25, Live, Postings

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool

__all__ = ["SPARE", "Corpus", "Parts", "Snapshot", "corpus_for"]

#: Dead slots tolerated beyond the number of live ones before a snapshot compacts the storage.
SPARE = 64


class Parts(NamedTuple):
    """What the index keeps of one tool, computed once when the corpus first sees it."""

    fields: Sequence[str]
    """The weighted-field BM25 document (never empty; a `_postings.Joined` whose tail
    other tools of the batch may share)."""
    whole: Sequence[str]
    """The whole-definition BM25 document (never empty; may be a `_postings.Joined` too)."""
    vector: Any
    """The unit-length embedding (float32 row)."""
    profile: Any
    """The term sets the re-ranking features compare with a query."""


class _Storage:
    """Append-only slots: tools, profiles, vectors and the two sets of postings."""

    def __init__(self, dimensions: int) -> None:
        import numpy as np

        self.tools: list[Tool] = []
        self.profiles: list[Any] = []
        self.vectors: Any = np.zeros((0, dimensions), dtype=np.float32)
        self.fields = Postings()
        self.whole = Postings()
        # Each tool's id() sorted, and its slot: a list of tools is matched to slots in C.
        self.ids: Any = np.zeros(0, dtype=np.int64)
        self.id_slots: Any = np.zeros(0, dtype=np.int64)

    def append(self, tools: Sequence[Tool], parts: Sequence[Parts]) -> list[int]:
        """Give each tool the next slot; return the slots."""
        import numpy as np

        start = len(self.tools)
        end = start + len(tools)
        self.fields.reserve(end)
        self.whole.reserve(end)
        if end > len(self.vectors):
            grown = np.zeros((max(end, 2 * len(self.vectors)), self.vectors.shape[1]),
                             dtype=np.float32)  # fmt: skip
            grown[:start] = self.vectors[:start]
            self.vectors = grown
        self.vectors[start:end] = [part.vector for part in parts]
        self.fields.add(start, [part.fields for part in parts])
        self.whole.add(start, [part.whole for part in parts])
        self.profiles.extend(part.profile for part in parts)
        self.tools.extend(tools)
        self._sort_ids(_ids(tools), np.arange(start, end))
        return list(range(start, end))

    def _sort_ids(self, ids: Any, slots: Any) -> None:
        import numpy as np

        ids = np.concatenate((self.ids, ids))
        slots = np.concatenate((self.id_slots, slots))
        order = np.argsort(ids, kind="stable")
        self.ids, self.id_slots = ids[order], slots[order]

    def find(self, tools: Sequence[Tool]) -> Any:
        """The slot of each tool (-1 for a tool not seen), by identity."""
        import numpy as np

        ids = _ids(tools)
        if not len(self.ids):
            return np.full(len(ids), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.ids, ids), len(self.ids) - 1)
        return np.where(self.ids[at] == ids, self.id_slots[at], -1)

    def kept(self, live: Any) -> tuple[_Storage, Any]:
        """A storage of the ``live`` slots only (their order kept), and the old-to-new map."""
        import numpy as np

        ordered = np.sort(live)
        remap = np.full(len(self.tools), -1, dtype=np.int64)
        remap[ordered] = np.arange(len(ordered))
        out = _Storage(self.vectors.shape[1])
        out.vectors = self.vectors[ordered]
        out.fields = self.fields.kept(remap, len(ordered))
        out.whole = self.whole.kept(remap, len(ordered))
        out.tools = [self.tools[i] for i in ordered.tolist()]
        out.profiles = [self.profiles[i] for i in ordered.tolist()]
        out._sort_ids(_ids(out.tools), np.arange(len(ordered)))
        return out, remap


def _ids(tools: Sequence[Tool]) -> Any:
    import numpy as np

    return np.fromiter(map(id, tools), dtype=np.int64, count=len(tools))


class Snapshot:
    """One list of tools over a corpus: BM25 over both documents, cosine, profiles."""

    def __init__(self, storage: _Storage, slots: Any) -> None:
        import numpy as np

        size = len(storage.tools)
        alive = np.zeros(size, dtype=bool)
        alive[slots] = True
        self._storage = storage
        self._live = Live(slots, alive, size, len(slots) == size and _in_order(slots))
        self.profiles = _InOrder(storage.profiles, slots)
        """Each tool's profile, in the snapshot's order."""

    def bm25(self, document: str, k1: float, b: float) -> Bm25:
        """BM25 over the ``"fields"`` or ``"whole"`` documents of the snapshot's tools."""
        postings = self._storage.fields if document == "fields" else self._storage.whole
        return Bm25(postings, self._live, k1, b)

    @property
    def vectors(self) -> Any:
        """The embeddings in the snapshot's order (a copy unless the slots are in order)."""
        live = self._live
        rows = self._storage.vectors[: live.size]
        return rows if live.ordered else rows[live.slots]

    def similarity(self, vector: Any) -> Any:
        """Each tool's cosine similarity to ``vector`` (unit length), in the snapshot's order."""
        from forge.tools.search._embedding import similarity

        live = self._live
        cosine = similarity(self._storage.vectors[: live.size], vector)
        return cosine if live.ordered else cosine[live.slots]


class _InOrder(Sequence[Any]):
    """``items[slots[i]]`` as a read-only sequence, without copying."""

    def __init__(self, items: list[Any], slots: Any) -> None:
        self._items = items
        self._slots = slots

    def __len__(self) -> int:
        return len(self._slots)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self._items[i] for i in self._slots[index].tolist()]
        return self._items[self._slots[index]]


def _in_order(slots: Any) -> bool:
    return not len(slots) or bool(slots[0] == 0 and (slots[1:] > slots[:-1]).all())


class Corpus:
    """Every tool's `Parts`, computed once, and the snapshots taken over them (thread-safe).

    Args:
        spare: Dead slots kept beyond the live ones before the storage is compacted.
        dimensions: The embedding size (the search model's by default).
    """

    def __init__(self, *, spare: int = SPARE, dimensions: int | None = None) -> None:
        from forge.tools.search._embedding import DIMENSIONS

        self._lock = threading.Lock()
        self._spare = spare
        self._storage = _Storage(DIMENSIONS if dimensions is None else dimensions)
        self.embeddings: dict[str, Corpus] = {}
        """The corpora of optional embeddings kept beside this one (`corpus_for`)."""

    @property
    def slots(self) -> int:
        """Slots in use, live or not."""
        return len(self._storage.tools)

    def snapshot(
        self, tools: Sequence[Tool], parts: Callable[[list[Tool]], list[Parts]]
    ) -> Snapshot:
        """The snapshot of ``tools``; ``parts`` computes what the corpus has not seen yet."""
        import numpy as np

        with self._lock:
            storage = self._storage
            slots = storage.find(tools)
            new = np.flatnonzero(slots < 0).tolist()
            seen = np.zeros(len(storage.tools), dtype=bool)
            seen[slots[slots >= 0]] = True
            if np.count_nonzero(seen) + len(new) < len(slots):  # one tool listed twice
                new = _repeats(slots.tolist())
            if new:
                with _collection_paused():
                    fresh = [tools[i] for i in new]
                    slots[new] = storage.append(fresh, parts(fresh))
            if not tools:
                self._storage = storage = _Storage(storage.vectors.shape[1])
            elif len(storage.tools) > 2 * len(tools) + self._spare:
                storage, remap = storage.kept(slots)
                slots = remap[slots]
                self._storage = storage
            return Snapshot(storage, slots)


@contextmanager
def _collection_paused() -> Iterator[None]:
    """No cyclic garbage collection inside (if it was on).

    Indexing makes a few containers per term of every new tool and frees none: each
    collection they trigger would walk the whole heap again, for a quarter of the build.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _repeats(slots: list[int]) -> list[int]:
    """Positions whose slot is missing or already taken by an earlier position."""
    seen: set[int] = set()
    out = []
    for i, slot in enumerate(slots):
        if slot < 0 or slot in seen:
            out.append(i)
        seen.add(slot)
    return out


#: The owner's attribute holding its corpus: on the owner, so a tool whose handler refers to
#: its registry does not keep the registry alive (as a global table's value would).
_ATTRIBUTE = "_forge_search_corpus"
#: The corpora of owners without a ``__dict__``.
_corpora: weakref.WeakKeyDictionary[Any, Corpus] = weakref.WeakKeyDictionary()
_corpora_lock = threading.Lock()


def corpus_for(owner: object, embedding: str = "", dimensions: int | None = None) -> Corpus:
    """The corpus kept for ``owner`` (a registry or view) while it lives; another one for
    each optional ``embedding`` name (its vectors, of ``dimensions``)."""
    if embedding:
        kept = corpus_for(owner)
        with _corpora_lock:
            found = kept.embeddings.get(embedding)
            if found is None:
                found = kept.embeddings[embedding] = Corpus(dimensions=dimensions)
        return found
    found = getattr(owner, _ATTRIBUTE, None) or _corpora.get(owner)
    if found is None:
        with _corpora_lock:
            found = getattr(owner, _ATTRIBUTE, None) or _corpora.get(owner)
            if found is None:
                found = Corpus()
                try:
                    object.__setattr__(owner, _ATTRIBUTE, found)
                except AttributeError:
                    _corpora[owner] = found
    return found
