"""Optional sentence embeddings whose cosine joins the static one in the search ranking.

The default search embeds with static word vectors (``_embedding``): a query costs well under
a millisecond. An `Embedding` adds a second, stronger model for users who accept more latency
per query and a slower index build: its 20 nearest tools join the candidates and its cosine,
raw and relative to the other candidates, joins the features (``EMBEDDING_FEATURES``), scored
with a weight vector of its own (``Embedding.weights``); the default's weights and results do
not change. ``MINILM`` is the one shipped: all-MiniLM-L6-v2 as int8 ONNX (``_minilm``), from
the ``minilm`` extra.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["EMBEDDING_FEATURES", "MINILM", "MINILM_WEIGHTS", "Embedding", "resolve_embedding"]

#: The features an `Embedding` adds after ``forge.tools.search.FEATURES``.
EMBEDDING_FEATURES = ("embedding", "embedding_relative")
#: Weights of ``FEATURES + EMBEDDING_FEATURES`` with MiniLM, fitted by ``bench/fit_search.py
#: --embedding minilm`` on the development data only.
MINILM_WEIGHTS = (1.22, 1.58, 3.12, 0.85, 1.93, 0.53, 0.53, 0.97, 1.70, 1.53, 2.47)


@dataclass(frozen=True, kw_only=True)
class Embedding:
    """A sentence embedding for search, beside the static one (see the module docstring)."""

    name: str
    """Identifies the embedding: a registry keeps one index per name."""
    dimensions: int
    """The length of the vectors ``embed`` returns."""
    embed: Callable[[Sequence[str]], Any] = field(repr=False)
    """Texts to unit-length float32 vectors, one row per text (a 2-D numpy array)."""
    weights: tuple[float, ...] = MINILM_WEIGHTS
    """Weights of ``FEATURES + EMBEDDING_FEATURES``; MiniLM's unless fitted for this model."""
    require: Callable[[], None] = field(default=lambda: None, repr=False, compare=False)
    """Raises an `ImportError` (such as `MissingDependencyError`) when the model cannot load."""

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("an Embedding needs a non-empty name")
        if self.dimensions < 1:
            raise ValueError(f"Embedding {self.name!r}: dimensions must be at least 1")
        if len(self.weights) != len(MINILM_WEIGHTS):
            raise ValueError(
                f"Embedding {self.name!r}: weights must have {len(MINILM_WEIGHTS)} values "
                f"(FEATURES + EMBEDDING_FEATURES), got {len(self.weights)}"
            )

    def vectors(self, texts: Sequence[str]) -> Any:
        """``embed(texts)``, checked to be one row of ``dimensions`` per text."""
        import numpy as np

        rows = np.asarray(self.embed(texts), dtype=np.float32)
        if rows.shape != (len(texts), self.dimensions):
            raise ValueError(
                f"Embedding {self.name!r} returned shape {rows.shape} for {len(texts)} texts, "
                f"expected ({len(texts)}, {self.dimensions})"
            )
        return rows


def _minilm_embed(texts: Sequence[str]) -> Any:
    from forge.tools.search._minilm import embed

    return embed(texts)


def _minilm_require() -> None:
    from forge.tools.search._minilm import require

    require()


MINILM = Embedding(name="minilm", dimensions=384, embed=_minilm_embed, require=_minilm_require)
"""all-MiniLM-L6-v2 (int8 ONNX, the ``minilm`` extra): about 18 ms per query at 10,000 tools."""

_NAMED = {MINILM.name: MINILM}


def resolve_embedding(choice: str | Embedding | None) -> Embedding | None:
    """The `Embedding` a search option names (``None``: the static one alone), ready to load.

    Raises:
        ValueError: An unknown name.
        MissingDependencyError: The embedding's packages are not installed (names the extra).
    """
    if choice is None or choice == "static":
        return None
    if isinstance(choice, str):
        found = _NAMED.get(choice)
        if found is None:
            known = ", ".join(sorted(["static", *_NAMED]))
            raise ValueError(f"unknown search embedding {choice!r}; choose from {known}")
        choice = found
    elif not isinstance(choice, Embedding):
        raise TypeError(f"embedding must be a name or an Embedding, got {type(choice).__name__}")
    choice.require()
    return choice
