"""How well ``relevant_only`` tells "nothing relevant" from a real match, per retrieval set.

For each set of ``corpora/retrieval/``, on a registry of its tools:

* **gold kept**: of the needed tools the plain ranking puts in the top 10, the share still
  returned with ``relevant_only=True`` (a question the gate judges unrelated loses them all);
* **unrelated empty**: the share of other sets' questions (the first ``--unrelated`` of each)
  that find nothing. Some of them do match a tool of this set (a weather question against a
  marketplace that has a weather API), so this share is a lower bound. It is counted apart
  for the questions in Chinese: a Chinese question against tools described in English is
  searched with its English glosses, so it finds what it is about rather than nothing.

The thresholds (``RELEVANT_COVERAGE``, ``RELEVANT_COSINE`` in ``forge.tools.search``) were set
on the development sets only; the held-out rows measure them.

Usage: ``python bench/eval_relevance.py [--unrelated 80]``
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import render_table
from _retrieval import DEPTH, available_sets, build_registry, load_set

_CHINESE = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _share(counts: list[int]) -> str:
    empty, asked = counts
    return f"{empty}/{asked} ({empty / asked:.0%})" if asked else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--unrelated", type=int, default=80, help="Questions taken per other set.")
    args = parser.parse_args()
    from forge.tools.search import RELEVANT_COSINE, RELEVANT_COVERAGE

    names = available_sets()
    sets = {name: load_set(name) for name in names}
    body = []
    for name in names:
        dataset = sets[name]
        registry, original = build_registry(dataset)
        ranked = kept = 0
        for question in dataset.questions:
            gold = set(question.tools)
            top = {original[t.name] for t in registry.search(question.query, limit=DEPTH)}
            hits = len(gold & top)
            ranked += hits
            if hits and registry.search(question.query, limit=DEPTH, relevant_only=True):
                kept += hits
        unrelated = {False: [0, 0], True: [0, 0]}  # Chinese or not: [empty, asked]
        for other in names:
            if other == name:
                continue
            for question in sets[other].questions[: args.unrelated]:
                counts = unrelated[bool(_CHINESE.search(question.query))]
                counts[1] += 1
                counts[0] += not registry.search(question.query, limit=DEPTH, relevant_only=True)
        body.append([
            name, dataset.role, f"{kept}/{ranked} ({kept / max(ranked, 1):.1%})",
            _share(unrelated[False]), _share(unrelated[True]),
        ])  # fmt: skip
        print(f"{name}: done", file=sys.stderr, flush=True)
    print(f"RELEVANT_COVERAGE = {RELEVANT_COVERAGE}, RELEVANT_COSINE = {RELEVANT_COSINE}\n")
    header = ["set", "role", "gold kept (top 10)", "unrelated empty", "unrelated empty, Chinese"]
    print(render_table(header, body))


if __name__ == "__main__":
    main()
