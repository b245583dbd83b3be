"""The measuring pieces of ``bench/bench_embeddings.py``, on a toy embedding."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_embeddings

WORDS = ("weather", "money", "mail", "file")


def toy_embed(texts: Sequence[str]) -> np.ndarray:
    """One dimension per known word: a text's vector counts them, normalised."""
    rows = np.array([[text.lower().count(w) for w in WORDS] for text in texts], dtype=np.float32)
    return bench_embeddings._unit(rows)


def test_recall_counts_single_and_multi_tool_questions_apart() -> None:
    """A single-tool question hits in the top five; a multi-tool one needs all in the top ten."""
    tools = [("forecast", "weather"), ("convert", "money"), ("send", "mail"), ("save", "file")]
    tools += [(f"filler{i}", "nothing") for i in range(10)]
    task = bench_embeddings.Task("toy", tools, [
        ("weather today", frozenset({"forecast"})),
        ("money please", frozenset({"convert"})),
        ("mail the file", frozenset({"send", "save"})),
        ("mail the weather", frozenset({"send", "filler9"})),
    ])  # fmt: skip
    single, multi = bench_embeddings.recall(toy_embed, task)
    assert single == 1.0
    # "filler9" ties with the other zero-similarity tools and comes 14th of 14 in stable order.
    assert multi == 0.5


def test_repeated_names_count_once_in_the_top_five() -> None:
    """BFCL repeats a name with other parameters; the five best distinct names are read."""
    tools = [("weather", "weather")] * 6 + [("mailer", "weather mail")]
    task = bench_embeddings.Task("toy", tools, [("weather mail", frozenset({"mailer"}))])
    assert bench_embeddings.recall(toy_embed, task) == (1.0, None)


def test_blank_rows_stay_zero() -> None:
    assert not toy_embed(["nothing here"]).any()


def test_index_build_scales_a_sample_for_transformers() -> None:
    """A static model embeds every text; a transformer a sample, scaled to the full count."""
    texts = ["weather"] * 2_000
    _, vectors, scaled = bench_embeddings.index_build_s(toy_embed, texts, static=True)
    assert vectors.shape == (2_000, len(WORDS))
    assert not scaled
    _, vectors, scaled = bench_embeddings.index_build_s(toy_embed, texts, static=False)
    assert vectors.shape == (2_000, len(WORDS))
    assert scaled


def test_every_candidate_names_its_packages_and_licence() -> None:
    keys = [c.key for c in bench_embeddings.CANDIDATES]
    assert len(set(keys)) == len(keys)
    assert bench_embeddings.BY_KEY["wordllama"].static
    assert bench_embeddings.installed(bench_embeddings.BY_KEY["wordllama"])
    assert all(c.packages and c.licence for c in bench_embeddings.CANDIDATES)
