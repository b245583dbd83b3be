"""Fit the search re-ranking weights (``forge.tools.search.WEIGHTS``) on the development sets.

Two sources, so that the weights do not learn one dataset's style:

* BFCL: the index holds every distinct BFCL definition, as in ``bench_search.py``, and the
  questions are those of the development categories only (the single-intent
  ``simple_python``, ``live_simple``, ``simple_java``, ``simple_javascript``, ``parallel`` and
  ``live_parallel``). The measured categories ``multiple`` and ``live_multiple`` are never read.
* the development sets of the retrieval collection (``_retrieval.DEVELOPMENT``), each indexed
  on its own tools. The held-out sets (``_retrieval.HELD_OUT``) are never read.

For each question the search's own candidates and feature rows are taken, and the weights
minimise the listwise softmax cross-entropy of the needed tools among the candidates (Adam, a
small L2 penalty). Each source weighs the same in the loss, however many questions it has,
except BFCL, which weighs ``BFCL_WEIGHT`` times as much. Of the factors tried (1, 3, 5, 12)
on the development data, 3 is the only one with which no development source does worse than
with the earlier 12 (each source's "all needed tools in the top 5" as high or higher).
BFCL's ``multiple`` / ``live_multiple`` targets (95 % / 91 % recall@5) were then checked to
hold with it, the one use of those two categories (they never enter the loss).
An ablation refits without the semantic features and counts the questions they decide.

Usage: ``python bench/fit_search.py``; paste the printed tuple into ``search.py``. With
``--embedding minilm`` the index also ranks with MiniLM (``forge.tools.search.MINILM``, the
``minilm`` extra; vectors kept by ``_embedding_cache``) and the fit gives ``MINILM_WEIGHTS``
over ``FEATURES + EMBEDDING_FEATURES`` (same data, same loss); the ablation then refits
without MiniLM's two features.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _retrieval import DEVELOPMENT as RETRIEVAL_DEVELOPMENT
from _retrieval import build_registry, load_set
from bench_search import BFCL, DEVELOPMENT, build_tools, distinct_definitions, questions

L2 = 1e-4
#: How many times an ordinary development source BFCL weighs in the loss.
BFCL_WEIGHT = 3.0
STEPS = 400
RATE = 0.05


def ground_truths(category: str) -> list[set[str]]:
    """Every ground-truth function name of each question (parallel ones have several)."""
    lines = (BFCL / "possible_answer" / f"BFCL_v4_{category}.json").read_text(encoding="utf-8")
    return [{next(iter(call)) for call in json.loads(line)["ground_truth"]}
            for line in lines.splitlines()]  # fmt: skip


Question = tuple[list[str], Any, set[str]]  # candidate names, feature rows, needed names


def bfcl_set(embedding: Any = None) -> list[Question]:
    """The candidates and feature rows of every BFCL development question (ranked with
    ``embedding`` as well, when given)."""
    from forge.tools.search import SearchIndex

    tools, original = build_tools(distinct_definitions())
    index = SearchIndex(tools, embedding=embedding)
    out: list[Question] = []
    for category in DEVELOPMENT:
        for (text, _), truths in zip(questions(category), ground_truths(category), strict=True):
            candidates, features = index.candidates(text)
            out.append(([original[index._tools[i].name] for i in candidates], features, truths))
    return out


def retrieval_set(name: str, embedding: Any = None) -> list[Question]:
    """The candidates and feature rows of every question of one development retrieval set."""
    from forge.tools.search import SearchIndex

    registry, original = build_registry(load_set(name))
    index = SearchIndex(list(registry), embedding=embedding)
    out: list[Question] = []
    for question in load_set(name).questions:
        candidates, features = index.candidates(question.query)
        names = [original[index._tools[i].name] for i in candidates]
        out.append((names, features, set(question.tools)))
    return out


def development_sets(embedding: Any = None) -> dict[str, list[Question]]:
    """Every development source: BFCL's categories together, then each retrieval set."""
    sets = {"bfcl": bfcl_set(embedding)}
    for name in RETRIEVAL_DEVELOPMENT:
        sets[name] = retrieval_set(name, embedding)
    return sets


def training_lists(development: dict[str, list[Question]]) -> tuple[Any, Any, Any, Any]:
    """Padded feature rows, padding mask, target distribution and weight of usable questions.

    A question's weight is one over its source's number of usable questions (times
    ``BFCL_WEIGHT`` for BFCL), so each source counts the same whatever its size.
    """
    import numpy as np

    lists: list[tuple[Any, Any, float]] = []
    for name, items in development.items():
        usable = []
        for names, features, truths in items:
            target = np.array([name in truths for name in names], dtype=float)
            if 0 < target.sum() < len(target):
                usable.append((features, target / target.sum()))
        share = (BFCL_WEIGHT if name == "bfcl" else 1.0) / len(usable)
        lists.extend((x, t, share) for x, t in usable)
    width = max(len(t) for _, t, _ in lists)
    rows = np.zeros((len(lists), width, lists[0][0].shape[1]))
    mask = np.full((len(lists), width), -1e9)
    target = np.zeros((len(lists), width))
    weight = np.array([w for _, _, w in lists])
    weight /= weight.sum()
    for k, (x, t, _) in enumerate(lists):
        rows[k, : len(t)], mask[k, : len(t)], target[k, : len(t)] = x, 0.0, t
    return rows, mask, target, weight


def fit(rows: Any, mask: Any, target: Any, weight: Any) -> Any:
    """Weights minimising the weighted softmax cross-entropy (Adam, L2)."""
    import numpy as np

    weights = np.zeros(rows.shape[2])
    weights[0] = 5.0
    first, second = np.zeros_like(weights), np.zeros_like(weights)
    for step in range(1, STEPS + 1):
        logits = rows @ weights + mask
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad = np.einsum("kld,kl,k->d", rows, p - target, weight) + 2 * L2 * weights
        first = 0.9 * first + 0.1 * grad
        second = 0.999 * second + 0.001 * grad * grad
        weights -= RATE * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    return weights


def hits_at_5(items: list[Question], weights: Any) -> list[bool]:
    """Whether each question's needed tools are all among the first five names (as searched)."""
    import numpy as np

    hits = []
    for names, features, truths in items:
        order = np.lexsort((np.arange(len(names)), -(features @ weights)))
        top = set(list(dict.fromkeys(names[i] for i in order))[:5])
        hits.append(truths <= top if len(truths) > 1 else bool(truths & top))
    return hits


def recall_at_5(items: list[Question], weights: Any) -> float:
    """Share of questions whose needed tools are among the first five names (as searched)."""
    return sum(hits_at_5(items, weights)) / len(items)


def without(development: dict[str, list[Question]], keep: list[int]) -> dict[str, list[Question]]:
    """The development sets with only the feature columns ``keep``."""
    return {name: [(names, features[:, keep], truths) for names, features, truths in items]
            for name, items in development.items()}  # fmt: skip


def main() -> None:
    """Fit and print the weights, the development recall they give, and an ablation."""
    from forge.tools.search import EMBEDDING_FEATURES, FEATURES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedding", choices=["minilm"], default=None)
    args = parser.parse_args()
    features: tuple[str, ...] = FEATURES
    embedding = None
    if args.embedding:
        from _embedding_cache import cached

        embedding = cached()
        features = FEATURES + EMBEDDING_FEATURES
    development = development_sets(embedding)
    if args.embedding:
        from _embedding_cache import save

        save()
    rows, mask, target, weight = training_lists(development)
    weights = fit(rows, mask, target, weight).round(2)
    print(f"{len(rows)} training questions")
    for name, w in zip(features, weights, strict=True):
        print(f"  {name:24s} {w:+.2f}")
    shares = []
    for name, items in development.items():
        share = recall_at_5(items, weights)
        shares.append(share)
        print(f"  all needed in top 5 {name:14s} {share:.3f}")
    print(f"  all needed in top 5 {'(macro)':14s} {sum(shares) / len(shares):.4f}")
    lexical = [k for k, name in enumerate(features) if not name.startswith("semantic")]
    if args.embedding:  # the ablation: the static ranking's features alone, refitted
        lexical = list(range(len(FEATURES)))
    ablated = without(development, lexical)
    ablated_weights = fit(*training_lists(ablated)).round(2)
    both: list[tuple[bool, bool]] = []
    for name, items in development.items():
        lexical_only = hits_at_5(ablated[name], ablated_weights)
        both.extend(zip(hits_at_5(items, weights), lexical_only, strict=True))
    total = len(both)
    dropped = "MiniLM's features" if args.embedding else "the semantic features"
    print(f"  without {dropped}, refitted: top 5 (micro) "
          f"{sum(b for _, b in both) / total:.4f}; with them "
          f"{sum(a and not b for a, b in both)} questions gained, "
          f"{sum(b and not a for a, b in both)} lost")  # fmt: skip
    label = "MINILM_WEIGHTS" if args.embedding else "WEIGHTS"
    print(f"{label} = (" + ", ".join(f"{w:.2f}" for w in weights) + ")")


if __name__ == "__main__":
    main()
