"""Search recall on the BFCL corpus: a regression guard for the ranking.

The full measurement, with its targets and the reference BM25, is ``bench/bench_search.py``;
this test keeps the ranking from silently getting worse.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import pytest

from forge.tools import ToolRegistry, from_record
from forge.tools.importers.normalize import normalize_schema
from tests.conftest import corpus

pytestmark = pytest.mark.slow  # the whole BFCL corpus


@cache
def indexed() -> tuple[ToolRegistry, dict[str, str]]:
    """One registry holding every distinct BFCL definition, and tool name -> BFCL name."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(corpus("bfcl").glob("BFCL_v4_*.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            for fn in json.loads(line).get("function", []):
                seen.setdefault((fn["name"], json.dumps(fn["parameters"], sort_keys=True)), fn)
    tools, original = [], {}
    for i, fn in enumerate(seen.values()):
        name = f"f{i}_" + re.sub(r"[^A-Za-z0-9_-]", "_", fn["name"])[:50]
        original[name] = fn["name"]
        tools.append(from_record({"name": name, "description": fn["description"],
                                  "parameters": normalize_schema(fn["parameters"], fn["name"])[0],
                                  "handler": lambda args: args}))  # fmt: skip
    return ToolRegistry(tools), original


def recall_at_5(category: str) -> float:
    """Share of questions whose ground-truth function is among the first five names found."""
    registry, original = indexed()
    answers = corpus("bfcl", "possible_answer", f"BFCL_v4_{category}.json")
    truth = {}
    for line in answers.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        truth[item["id"]] = next(iter(item["ground_truth"][0]))
    hits = total = 0
    questions = corpus("bfcl", f"BFCL_v4_{category}.json")
    for line in questions.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        text = " ".join(m["content"] for turn in item["question"] for m in turn
                        if m["role"] == "user")  # fmt: skip
        names = list(dict.fromkeys(original[t.name] for t in registry.search(text, limit=50)))
        hits += truth[item["id"]] in names[:5]
        total += 1
    return hits / total


def test_index_holds_every_distinct_definition() -> None:
    """All 3,205 distinct (name, parameters) definitions are registered and searchable."""
    registry, original = indexed()
    assert len(registry) == 3205
    assert len(set(original.values())) == 1853


@pytest.mark.parametrize(("category", "floor"), [("multiple", 0.95), ("live_multiple", 0.91)])
def test_recall_does_not_regress(category: str, floor: float) -> None:
    """Recall@5 stays at or above the level measured when the ranking was tuned."""
    assert recall_at_5(category) >= floor
