"""The numpy pieces of the all-MiniLM-L6-v2 baseline (``bench/_minilm.py``) that need no model."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

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
