"""Fit the search re-ranking weights (``forge.tools.search.WEIGHTS``) on BFCL's development set.

The index holds every distinct BFCL definition, as in ``bench_search.py``. For each question of
the development categories only (the single-intent ``simple_python``, ``live_simple``,
``simple_java``, ``simple_javascript``, ``parallel`` and ``live_parallel``), the search's own
candidates and feature rows are taken, and the weights minimise the listwise softmax
cross-entropy of the ground-truth functions among the candidates (plain gradient descent with
Adam, a small L2 penalty). The measured categories ``multiple`` and ``live_multiple`` are never
read. An ablation refits without the semantic features and counts the questions they decide.

Usage: ``python bench/fit_search.py``; paste the printed tuple into ``search.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_search import BFCL, DEVELOPMENT, build_tools, distinct_definitions, questions

L2 = 1e-4
STEPS = 400
RATE = 0.05


def ground_truths(category: str) -> list[set[str]]:
    """Every ground-truth function name of each question (parallel ones have several)."""
    lines = (BFCL / "possible_answer" / f"BFCL_v4_{category}.json").read_text(encoding="utf-8")
    return [{next(iter(call)) for call in json.loads(line)["ground_truth"]}
            for line in lines.splitlines()]  # fmt: skip


Question = tuple[list[str], Any, str]  # candidate names, feature rows, first ground truth


def development_set(index: Any, original: dict[str, str]) -> dict[str, list[Question]]:
    """The candidates and feature rows of every development question, by category."""
    out: dict[str, list[Question]] = {}
    for category in DEVELOPMENT:
        out[category] = []
        for text, truth in questions(category):
            candidates, features = index.candidates(text)
            names = [original[index._tools[i].name] for i in candidates]
            out[category].append((names, features, truth))
    return out


def training_lists(development: dict[str, list[Question]]) -> tuple[Any, Any, Any]:
    """Padded feature rows, padding mask and target distribution for every usable question."""
    import numpy as np

    lists = []
    for category, items in development.items():
        for (names, features, _), truths in zip(items, ground_truths(category), strict=True):
            target = np.array([name in truths for name in names], dtype=float)
            if 0 < target.sum() < len(target):
                lists.append((features, target / target.sum()))
    width = max(len(t) for _, t in lists)
    rows = np.zeros((len(lists), width, lists[0][0].shape[1]))
    mask = np.full((len(lists), width), -1e9)
    target = np.zeros((len(lists), width))
    for k, (x, t) in enumerate(lists):
        rows[k, : len(t)], mask[k, : len(t)], target[k, : len(t)] = x, 0.0, t
    return rows, mask, target


def fit(rows: Any, mask: Any, target: Any) -> Any:
    """Weights minimising the mean softmax cross-entropy (Adam, L2)."""
    import numpy as np

    weights = np.zeros(rows.shape[2])
    weights[0] = 5.0
    first, second = np.zeros_like(weights), np.zeros_like(weights)
    for step in range(1, STEPS + 1):
        logits = rows @ weights + mask
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad = np.einsum("kld,kl->d", rows, p - target) / len(rows) + 2 * L2 * weights
        first = 0.9 * first + 0.1 * grad
        second = 0.999 * second + 0.001 * grad * grad
        weights -= RATE * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    return weights


def hits_at_5(items: list[Question], weights: Any) -> list[bool]:
    """Whether each question's first ground truth is among the first five names (as searched)."""
    import numpy as np

    hits = []
    for names, features, truth in items:
        order = np.lexsort((np.arange(len(names)), -(features @ weights)))
        hits.append(truth in list(dict.fromkeys(names[i] for i in order))[:5])
    return hits


def recall_at_5(items: list[Question], weights: Any) -> float:
    """Share of questions whose first ground truth is among the first five names (as searched)."""
    return sum(hits_at_5(items, weights)) / len(items)


def without(development: dict[str, list[Question]], keep: list[int]) -> dict[str, list[Question]]:
    """The development set with only the feature columns ``keep``."""
    return {category: [(names, features[:, keep], truth) for names, features, truth in items]
            for category, items in development.items()}  # fmt: skip


def main() -> None:
    """Fit and print the weights, the development recall they give, and an ablation."""
    from forge.tools.search import FEATURES, SearchIndex

    tools, original = build_tools(distinct_definitions())
    development = development_set(SearchIndex(tools), original)
    rows, mask, target = training_lists(development)
    weights = fit(rows, mask, target).round(2)
    print(f"{len(rows)} training questions")
    for name, w in zip(FEATURES, weights, strict=True):
        print(f"  {name:24s} {w:+.2f}")
    total = sum(len(items) for items in development.values())
    hits = 0.0
    for category, items in development.items():
        share = recall_at_5(items, weights)
        hits += share * len(items)
        print(f"  recall@5 {category:24s} {share:.3f}")
    print(f"  recall@5 {'development (micro)':24s} {hits / total:.4f}")
    lexical = [k for k, name in enumerate(FEATURES) if not name.startswith("semantic")]
    ablated = without(development, lexical)
    ablated_weights = fit(*training_lists(ablated)).round(2)
    both = []
    for category, items in development.items():
        lexical_only = hits_at_5(ablated[category], ablated_weights)
        both.extend(zip(hits_at_5(items, weights), lexical_only, strict=True))
    print(f"  without the semantic features, refitted: recall@5 (micro) "
          f"{sum(b for _, b in both) / total:.4f}; with them "
          f"{sum(a and not b for a, b in both)} questions gained, "
          f"{sum(b and not a for a, b in both)} lost")  # fmt: skip
    print("WEIGHTS = (" + ", ".join(f"{w:.2f}" for w in weights) + ")")


if __name__ == "__main__":
    main()
