"""The search's MiniLM embedding with its vectors kept on disk between benchmark runs.

Embedding every tool of the BFCL and retrieval sets with all-MiniLM-L6-v2 takes minutes on two
cores, and fitting or evaluating needs them again on every run. `cached` wraps
``forge.tools.search.MINILM`` so that each distinct text is embedded once and kept in
``.cache/minilm-vectors.pkl`` (ignored by git). With ``queries=False`` only batches of several
texts (index builds) are kept: a single query is always embedded afresh, so the time per
question stays honest.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from forge.tools.search import MINILM, Embedding

CACHE = Path(__file__).resolve().parent.parent / ".cache" / "minilm-vectors.pkl"


@cache
def _kept() -> dict[str, Any]:
    """The vectors kept so far, by text (read from ``CACHE`` once)."""
    return pickle.loads(CACHE.read_bytes()) if CACHE.is_file() else {}


def save() -> None:
    """Write the kept vectors to ``CACHE``."""
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    # Through a file of its own, renamed: another run may be reading the cache meanwhile.
    part = CACHE.with_suffix(f".{os.getpid()}.part")
    part.write_bytes(pickle.dumps(_kept(), protocol=pickle.HIGHEST_PROTOCOL))
    part.replace(CACHE)


def cached(*, queries: bool = True) -> Embedding:
    """``MINILM`` (same name and weights) reading and keeping its vectors in ``CACHE``."""
    import numpy as np

    def embed(texts: Sequence[str]) -> Any:
        if len(texts) == 1 and not queries:
            return MINILM.embed(texts)
        kept = _kept()
        missing = list(dict.fromkeys(t for t in texts if t not in kept))
        if missing:
            kept.update(zip(missing, MINILM.embed(missing), strict=True))
            if len(missing) > 1:
                save()
        return np.stack([kept[t] for t in texts]) if texts else MINILM.embed(texts)

    return Embedding(name=MINILM.name, dimensions=MINILM.dimensions, embed=embed,
                     weights=MINILM.weights, require=MINILM.require)  # fmt: skip
