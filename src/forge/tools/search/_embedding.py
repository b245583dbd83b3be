"""Static word embeddings for search: WordLlama's bundled model, loaded without any download.

A text's vector is the normalised mean of its tokens' vectors (256 dimensions), so embedding a
query costs tens of microseconds and needs no model at run time beyond one lookup table.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["DIMENSIONS", "embed", "similarity"]

DIMENSIONS = 256


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


def embed(texts: Sequence[str]) -> Any:
    """Unit-length float32 vectors, one row per text (a text without tokens gives zeros)."""
    import numpy as np

    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    vectors = np.asarray(_model().embed(list(texts), norm=False), dtype=np.float32)
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
