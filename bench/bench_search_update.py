"""What one registry change costs the next search, against bm25s rebuilding its own index.

A registry of 1,000 or 10,000 tools (BFCL's distinct definitions, repeated under new names, as
in ``bench_search.py``) is searched once so its index exists. Then each round makes one change
and runs one search: registering a new tool, replacing a tool (``register(..., replace=True)``)
and removing one (``deregister``). The time of the change plus the search is reported (median
of the rounds), with the time of the first search of a fresh registry (the whole index built;
median of ``BUILDS``) and of a search with no change before it.

The reference is bm25s (default parameters), which cannot change an index in place: after any
change it indexes the whole corpus again. It is given the tools' field documents already split
into terms (``forge.tools.search._document``), so only its own index build is timed. Each ratio
is against that rebuild at the same size, measured in the same run.

Usage: ``python bench/bench_search_update.py`` (reads ``corpora/bfcl/``).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import TIMES, Row, render_rows
from bench_search import MEASURED, build_tools, distinct_definitions, questions

SIZES = (1_000, 10_000)
ROUNDS = 15
#: Fresh registries whose first search (the whole index built) is timed, at each size.
BUILDS = 3


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


def _timed(fn: Callable[..., object], *args: Any, **options: Any) -> float:
    started = time.perf_counter()
    fn(*args, **options)
    return time.perf_counter() - started


def _then_search(registry: Any, change: Callable[..., object], argument: Any, query: str,
                 **options: Any) -> None:  # fmt: skip
    """One registry change, then one search."""
    change(argument, **options)
    registry.search(query)


def _bm25s_rebuild_ms(tools: list[Any], rounds: int) -> float:
    """Median time for bm25s to index the tools' field documents again."""
    import bm25s

    from forge.tools.search import _document

    documents = [_document(t) or ["_"] for t in tools]
    return _median_ms([_timed(lambda: bm25s.BM25().index(documents, show_progress=False))
                       for _ in range(max(3, rounds // 3))])  # fmt: skip


#: The targets, at the largest size: a whole build against bm25s', one change and a search.
BUILD_RATIO = 2.0
CHANGE_MS = 10.0


def _target(key: str, size: int, ms: float, ratio: float) -> tuple[str, bool | None]:
    """The target of a row and whether it holds (none below the largest size)."""
    if size != max(SIZES):
        return "", None
    if key == "build":
        return f"≤ {BUILD_RATIO:.0f}{TIMES}", ratio <= BUILD_RATIO
    if key == "register":
        return f"≤ {CHANGE_MS:.0f} ms", ms <= CHANGE_MS
    return "", None


def _rounds(size: int, tools: list[Any], spare: list[Any], texts: list[str]) -> dict[str, float]:
    """Median ms of each kind of change followed by one search, at ``size`` tools."""
    from forge.tools import ToolRegistry

    builds = [_timed(lambda: ToolRegistry(tools[:size]).search(texts[0])) for _ in range(BUILDS)]
    registry = ToolRegistry(tools[:size])
    registry.search(texts[0])
    out = {"build": _median_ms(builds)}
    same = [_timed(registry.search, q) for q in texts[1 : ROUNDS + 1]]
    out["none"] = _median_ms(same)
    added, replaced, removed = [], [], []
    for n in range(ROUNDS):
        query = texts[(n * 7) % len(texts)]
        old = tools[n * 37 % size]
        twin = old.replace(description=f"{old.description} ({n})")
        gone = tools[(n * 53 + 11) % size].name
        added.append(_timed(_then_search, registry, registry.register, spare[n], query))
        replaced.append(_timed(_then_search, registry, registry.register, twin, query,
                               replace=True))  # fmt: skip
        removed.append(_timed(_then_search, registry, registry.deregister, gone, query))
    out["register"] = _median_ms(added)
    out["replace"] = _median_ms(replaced)
    out["deregister"] = _median_ms(removed)
    return out


def run() -> Iterator[str]:
    """Measure each size, yielding the rendered Markdown table."""
    from forge.tools import ToolRegistry

    definitions = distinct_definitions()
    copies = -(-(max(SIZES) + ROUNDS) // len(definitions))
    tools, _ = build_tools(definitions, copies)
    spare = tools[max(SIZES) : max(SIZES) + ROUNDS]
    texts = [text for category in MEASURED for text, _ in questions(category)]
    ToolRegistry(tools[:2]).search("warm up the embedding model")
    rows = []
    for size in SIZES:
        ours = _rounds(size, tools, spare, texts)
        rebuild = _bm25s_rebuild_ms(tools[:size], ROUNDS)
        rows.append(Row(f"bm25s `index()` again over {size:,} tools", rebuild, "ms", 1.0,
                        "bm25s rebuild"))  # fmt: skip
        for key, label in (
            ("register", "`register(new)` + `search(q)`"),
            ("replace", "`register(changed, replace=True)` + `search(q)`"),
            ("deregister", "`deregister(name)` + `search(q)`"),
            ("none", "`search(q)` with no change (info)"),
            ("build", "first `search(q)` of a new registry: whole index built"),
        ):
            target, passed = _target(key, size, ours[key], ours[key] / rebuild)
            rows.append(Row(f"**ours** {label}, {size:,} tools", ours[key], "ms",
                            ours[key] / rebuild, "bm25s rebuild", target, passed))  # fmt: skip
    yield render_rows(f"One registry change and one search (median of {ROUNDS} rounds)", rows)


def main() -> None:
    """Print the table."""
    for table in run():
        print(table, end="\n\n", flush=True)


if __name__ == "__main__":
    main()
