"""Static word embeddings for search: WordLlama's bundled model, loaded without any download.

A text's vector is the normalised mean of its tokens' vectors (256 dimensions), so embedding a
query costs tens of microseconds and needs no model at run time beyond one lookup table.

`embed` gives exactly (bit for bit) the vectors of WordLlama's own ``embed`` followed by the
normalisation, faster on many texts: WordLlama pads each batch of 64 texts to its longest one,
turns the padded token lists into arrays in Python and multiplies every token row by a mask
before summing. Here each distinct text is tokenized once, in one batch and without padding, and
its token rows are added in the same order (first to last, in float32), so each sum rounds as
WordLlama's does; only real tokens are read. A text's tokens are those of its space-separated
pieces end to end (`_pieces`), and each distinct piece is encoded once and kept: a registry's
texts share most of their words. `embed_joined` takes texts as a head and a tail (a tool's name,
then its description and parameters): the ids of each distinct tail are gathered once.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["DIMENSIONS", "embed", "embed_joined", "similarity"]

DIMENSIONS = 256
#: Text the tokenizer must see whole: its space marker or a special token written out.
_UNCUT = re.compile("▁|<unk>|<s>|</s>")
#: Each piece's token ids (`_token_ids`); emptied when it would hold more than this many.
_PIECES_KEPT = 1 << 16
_PIECES: dict[str, tuple[int, ...]] = {}
#: Up to this many of the longest texts of a batch are summed one by one, the others position
#: by position; this bounds the Python loop over positions by the length of the 17th longest.
_SINGLES = 16
#: The other texts are summed this many at a time: their sums (256 KB) stay in the CPU cache.
_BLOCK = 256


def _import_wordllama() -> Any:
    """Import wordllama, undoing the root-logger set-up its modules do on import."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
    return wordllama


@lru_cache(maxsize=1)
def _model() -> Any:
    wordllama = _import_wordllama()
    # The wheel carries its weights and tokenizer. Naming the package itself as the cache makes
    # the loader find both there instead of trying to download the tokenizer.
    package = Path(wordllama.__file__).parent
    return wordllama.WordLlama.load(cache_dir=package, dim=DIMENSIONS, disable_download=True)


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    """The model's tokenizer without padding: each text gives its own tokens only."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(_model().tokenizer.to_str())
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def _token_ids(texts: Sequence[str | tuple[str, str]]) -> tuple[Any, Any]:
    """Every text's token ids end to end (clamped to the table as WordLlama does), and the
    number of tokens of each text; a pair is its head and its tail joined by a space.

    The ids of a text are its pieces' ids, one after the other (`_pieces`); each distinct
    piece is encoded once and kept, so a registry's texts, which share most of their words,
    are not all encoded again. A pair whose pieces are its head's then its tail's
    (`_joinable`) takes its tail's ids whole, found once per distinct tail: tools that differ
    only by name share the rest of their text.
    """
    from itertools import chain

    import numpy as np

    heads: list[list[str]] = []
    tail_rows: dict[str, int] = {}  # each distinct tail's row (-1: not to be cut off, `_joinable`)
    tails: list[str] = []
    tail_of: list[int] = []  # each text's tail row (-1: none)
    for text in texts:
        if isinstance(text, str):
            heads.append(_pieces(text))
            tail_of.append(-1)
            continue
        head, tail = text
        row = tail_rows.get(tail)
        if row is None:
            row = tail_rows[tail] = len(tails) if _joinable("-", tail) else -1
            if row >= 0:
                tails.append(tail)
        if row >= 0 and _joinable(head, "-"):
            heads.append(_pieces(head))
            tail_of.append(row)
        else:
            heads.append(_pieces(f"{head} {tail}"))
            tail_of.append(-1)
    tail_pieces = list(map(_pieces, tails))
    groups = [*heads, *tail_pieces]
    found = _piece_ids(list(chain.from_iterable(groups)))
    # Every head's ids, then every distinct tail's: each text is two segments of them, its
    # head's then its tail's (empty without a tail), all gathered in one pass.
    source, group_sizes = _flat(found, groups)
    head_sizes, tail_sizes = group_sizes[: len(heads)], group_sizes[len(heads) :]
    rows = np.array(tail_of, dtype=np.int64)
    tail_starts = np.concatenate((np.cumsum(tail_sizes) - tail_sizes, [0])) + head_sizes.sum()
    tail_sizes = np.concatenate((tail_sizes, [0]))  # row -1: no tail
    starts = np.empty(2 * len(texts), dtype=np.int64)
    starts[0::2] = np.cumsum(head_sizes) - head_sizes
    starts[1::2] = tail_starts[rows]
    sizes = np.empty(2 * len(texts), dtype=np.int64)
    sizes[0::2] = head_sizes
    sizes[1::2] = tail_sizes[rows]
    ids = source[_ragged(starts, sizes)]
    np.clip(ids, 0, len(_model().embedding) - 1, out=ids)
    return ids, sizes[0::2] + sizes[1::2]


def _flat(found: list[tuple[int, ...]], groups: Sequence[Sequence[str]]) -> tuple[Any, Any]:
    """The ids of pieces (``found``: each one's) end to end, and the number of ids of each
    group of pieces (``groups``, whose pieces are ``found``'s, in order)."""
    from itertools import chain

    import numpy as np

    sizes = np.zeros(len(found) + 1, dtype=np.int64)
    sizes[1:] = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
    ends = np.cumsum(sizes)  # ids before each piece, and in all
    counts = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
    bounds = ends[np.concatenate(([0], np.cumsum(counts)))]
    ids = np.fromiter(chain.from_iterable(found), dtype=np.int64, count=int(ends[-1]))
    return ids, np.diff(bounds)


def _ragged(starts: Any, sizes: Any) -> Any:
    """The positions ``starts[i], ..., starts[i] + sizes[i] - 1`` of every segment, in order."""
    import numpy as np

    total = int(sizes.sum())
    offsets = np.cumsum(sizes) - sizes
    return np.arange(total, dtype=np.int64) + np.repeat(starts - offsets, sizes)


def _piece_ids(pieces: list[str]) -> list[tuple[int, ...]]:
    """The token ids of each piece: kept ones looked up, the others encoded in one batch and
    kept (`_PIECES`)."""
    # Looked up once: another thread may empty the kept pieces meanwhile.
    found: list[tuple[int, ...] | None] = list(map(_PIECES.get, pieces))
    if None in found:
        missing = list(
            dict.fromkeys(p for p, ids in zip(pieces, found, strict=True) if ids is None)
        )
        encoded = dict(zip(missing, _encode(missing), strict=True))
        found = [encoded[p] if ids is None else ids for p, ids in zip(pieces, found, strict=True)]
        kept = _PIECES
        if len(kept) + len(encoded) > _PIECES_KEPT:
            kept.clear()
        kept.update(encoded)
    return found  # type: ignore[return-value]  # no None left


def _joinable(head: str, tail: str) -> bool:
    """Whether the pieces of ``head``, a space and ``tail`` are ``head``'s then ``tail``'s.

    They are when the space between them is a single one with text on both sides (a piece
    ends before it and the next starts after it, `_pieces`) and neither is to be kept whole.
    """
    return (
        bool(head)
        and bool(tail)
        and head[-1] != " "
        and tail[0] != " "
        and not _uncut(head)
        and not _uncut(tail)
    )


def _uncut(text: str) -> bool:
    """Whether ``text`` must be encoded whole (`_UNCUT`)."""
    return ("▁" in text or "<" in text) and _UNCUT.search(text) is not None


def _pieces(text: str) -> list[str]:
    """The texts whose encodings, end to end, are the encoding of ``text``.

    The tokenizer turns each space into "▁", puts one before the text, and runs BPE
    over the whole; no merge joins a token ending in anything but "▁" to one starting
    with it. So the text can be cut before every space that follows another character, each
    piece after the first losing the space the tokenizer puts back (a last piece of one
    space, which would encode as nothing, stays with the one before). A text holding "▁"
    or a special token is not cut.
    """
    if _uncut(text):
        return [text]
    words = text.split(" ")
    if "  " not in text and text[:1] != " " and text[-1:] != " ":
        return words  # the common case: no piece but the words
    out: list[str] = []
    spaces = 0
    for word in words:
        if word:
            out.append(" " * spaces + word if spaces else word)
            spaces = 0
        else:
            spaces += 1
    if spaces > 1 or (spaces and not out):
        out.append(" " * (spaces - 1))
    elif spaces:
        out[-1] += " "
    return out


def _encode(texts: list[str]) -> list[tuple[int, ...]]:
    """Each text's token ids, without special tokens."""
    tokenizer = _tokenizer()
    encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
    try:
        encodings = encode(texts, add_special_tokens=False)
    except TypeError:  # a lone surrogate (not UTF-8): it becomes "?"
        texts = [t.encode("utf-8", "replace").decode("utf-8") for t in texts]
        encodings = encode(texts, add_special_tokens=False)
    return [tuple(e.ids) for e in encodings]


def _means(texts: Sequence[str | tuple[str, str]]) -> Any:
    """Each text's mean token vector, as WordLlama's ``embed(texts, norm=False)`` computes it.

    WordLlama sums a text's token rows in order, one position after the other (numpy's
    reduction over a middle axis); padding adds zeros, which change no sum. The longest texts
    are summed alone by the same reduction; the others are sorted by length and summed one
    position at a time, each position adding one row to every text that long, in blocks of
    ``_BLOCK`` texts.
    """
    import numpy as np

    table = _model().embedding
    ids, lengths = _token_ids(texts)
    starts = np.cumsum(lengths) - lengths
    order = np.argsort(-lengths, kind="stable")
    sums = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
    limit = int(lengths[order[_SINGLES]]) if len(texts) > _SINGLES else 0
    singles = int(np.count_nonzero(lengths > limit))
    for row in order[:singles].tolist():
        start = int(starts[row])
        sums[row] = np.add.reduce(table[ids[start : start + lengths[row]]], axis=0)
    rest = order[singles:]
    for first in range(0, len(rest), _BLOCK):
        block = rest[first : first + _BLOCK]
        sums[block] = _position_sums(table, ids, starts[block], lengths[block])
    return sums / np.maximum(lengths, 1).astype(np.float32)[:, None]


def _position_sums(table: Any, ids: Any, starts: Any, lengths: Any) -> Any:
    """The token rows of texts sorted longest first, summed one position at a time."""
    import numpy as np

    # How many of the texts have a token at each position.
    counts = len(lengths) - np.searchsorted(lengths[::-1], np.arange(lengths[0]), side="right")
    block = np.zeros((len(lengths), table.shape[1]), dtype=np.float32)
    for position, count in enumerate(counts.tolist()):
        rows = table[ids[starts[:count] + position]]
        if position:
            block[:count] += rows
        else:
            block[:count] = rows
    return block


def embed(texts: Sequence[str]) -> Any:
    """Unit-length float32 vectors, one row per text (a text without tokens gives zeros)."""
    return embed_joined(texts)


def embed_joined(texts: Sequence[str | tuple[str, str]]) -> Any:
    """`embed` of texts some of which are given as a head and a tail to join with a space:
    the same vectors, bit for bit, with each distinct tail split and looked up once."""
    import numpy as np

    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    distinct = dict.fromkeys(texts)
    vectors = _means(list(distinct))
    if len(distinct) < len(texts):
        row = {text: i for i, text in enumerate(distinct)}
        vectors = vectors[[row[text] for text in texts]]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def similarity(vectors: Any, vector: Any) -> Any:
    """Cosine similarity of each row of ``vectors`` with ``vector`` (all unit length), as float32.

    This is ``vectors @ vector`` computed on one thread: a matrix-vector product of 10,000 rows
    of 256 is large enough for OpenBLAS to split it over threads, and on a busy machine with few
    cores waking them costs tens of milliseconds per query instead of a fraction of one.
    """
    import numpy as np

    return np.einsum("ij,j->i", vectors, vector, dtype=np.float32)
