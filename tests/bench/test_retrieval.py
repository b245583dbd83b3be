"""The retrieval collection's loader and metrics (``bench/_retrieval.py``), and its data files."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import _retrieval  # noqa: E402
from _retrieval import (  # noqa: E402
    HELD_OUT,
    SPLIT,
    Question,
    RetrievalDataError,
    all_found,
    build_registry,
    load_set,
    registry_names,
    score,
    share_found,
)
from tests.conftest import corpus  # noqa: E402


def write_set(root: Path, tools: list[Any], queries: list[Any], name: str = "tiny") -> str:
    folder = root / name
    folder.mkdir(parents=True)
    lines = {"tools.jsonl": tools, "queries.jsonl": queries}
    for file, rows in lines.items():
        text = "".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows)
        (folder / file).write_text(text, encoding="utf-8")
    return name


TOOLS = [
    {"name": "weather.get", "description": "Current weather for a city",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                    "required": ["city"]}},
    {"name": "weather_get", "description": "Weather forecast, next days"},
    {"name": "翻译", "description": "把中文翻译成英文"},
    {"name": "9lives", "description": ""},
]  # fmt: skip
QUERIES = [
    {"id": "a", "query": "Is it raining in Paris?", "tools": ["weather.get"]},
    {"id": "b", "query": "Translate and forecast", "tools": ["翻译", "weather_get", "翻译"]},
]


def test_loader_reads_tools_and_questions(tmp_path: Path) -> None:
    """Names, descriptions and schemas as written; repeated needed tools kept once, in order."""
    data = load_set(write_set(tmp_path, TOOLS, QUERIES), tmp_path)
    assert [t.name for t in data.tools] == ["weather.get", "weather_get", "翻译", "9lives"]
    assert data.tools[0].parameters == TOOLS[0]["parameters"]
    assert data.tools[1].parameters is None
    assert data.questions[1] == Question("b", "Translate and forecast", ("翻译", "weather_get"))
    assert data.role == "held-out"  # a set SPLIT does not name is never a development set


def test_registry_keeps_every_tool_under_a_unique_valid_name(tmp_path: Path) -> None:
    """Invalid names are respelled (display name = dataset name); schema-less tools register."""
    data = load_set(write_set(tmp_path, TOOLS, QUERIES), tmp_path)
    registry, original = build_registry(data)
    assert len(registry) == 4
    assert sorted(original.values()) == sorted(t.name for t in data.tools)
    assert registry_names([t.name for t in data.tools]) == [
        "weather_get", "weather_get__2", "tool", "_9lives"
    ]  # fmt: skip
    assert registry.get("tool").metadata.display_name == "翻译"
    assert registry.get("weather_get__2").parameters == _retrieval.EMPTY_SCHEMA
    assert registry.get("_9lives").description == "9lives"
    assert registry.get("weather_get").parameters["required"] == ["city"]


@pytest.mark.parametrize(
    ("tools", "queries", "message"),
    [
        (TOOLS[:1] * 2, QUERIES[:1], "defined twice"),
        (TOOLS, [{"id": "x", "query": "q", "tools": ["nope"]}], "'nope', which tools.jsonl"),
        (TOOLS, [{"id": "x", "query": " ", "tools": ["翻译"]}], "'query' must be a non-empty"),
        (TOOLS, [{"id": "x", "query": "q", "tools": []}], "'tools' must be a non-empty list"),
        (TOOLS, ["{not json"], "queries.jsonl:1: not JSON"),
        (TOOLS, ["[1]"], "expected an object"),
        ([{"name": "a", "description": 3}], QUERIES, "'description' must be a string"),
        ([{"name": "a", "description": "", "parameters": []}], QUERIES, "must be an object"),
        (TOOLS, [], "at least one tool and one question"),
    ],
)
def test_loader_names_what_is_wrong(
    tmp_path: Path, tools: list[Any], queries: list[Any], message: str
) -> None:
    """Malformed sets fail with the file, line and problem."""
    name = write_set(tmp_path, tools, queries)
    with pytest.raises(RetrievalDataError, match=message):
        load_set(name, tmp_path)


def test_missing_set_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(RetrievalDataError, match=r"tools\.jsonl: missing"):
        load_set("absent", tmp_path)


def test_metrics_by_hand() -> None:
    """Recall over single-tool questions; share and all-found at 10 over multi-tool ones."""
    questions = [
        Question("1", "q", ("a",)),
        Question("2", "q", ("b",)),
        Question("3", "q", ("c",)),
        Question("4", "q", ("a", "b")),
        Question("5", "q", ("a", "b", "z")),
    ]
    ranked = [
        ["a", "x"],
        ["x", "y", "b"],
        [],
        ["b", "a"],
        ["a", *"0123456789", "b", "z"],
    ]
    scores = score(questions, ranked, [0.001, 0.003, 0.002, 0.004, 0.005])
    assert (scores.single, scores.multi, scores.empty) == (3, 2, 1)
    assert scores.recall == {1: 1 / 3, 5: 2 / 3, 10: 2 / 3}
    assert scores.multi_share == pytest.approx((1 + 1 / 3) / 2)
    # every question, share of its tools in the top 5: 1, 1, 0, 1, 1/3
    assert scores.share_at_5 == pytest.approx((3 + 1 / 3) / 5)
    assert scores.multi_all == 0.5
    assert scores.median_ms == pytest.approx(3.0)
    assert all_found(["a", "b"], ["b", "a"], 2)
    assert not all_found(["a", "b"], ["b"], 1)
    assert share_found(["a"], ["a", "b"], 10) == 0.5
    only_multi = score(questions[3:], ranked[3:], [0.1, 0.1])
    assert only_multi.recall == {1: None, 5: None, 10: None}
    with pytest.raises(ValueError, match="one ranked list and one time per question"):
        score(questions, ranked[:2], [0.1, 0.1])


def test_split_holds_out_at_least_three_sets() -> None:
    assert len(HELD_OUT) >= 3
    assert set(SPLIT.values()) <= {"development", "held-out"}


@pytest.mark.parametrize("name", list(SPLIT))
def test_vendored_set_is_complete_and_unmodified(name: str) -> None:
    """Every file in the set's SHA256SUMS has its checksum; the set loads and is within bounds."""
    folder = corpus("retrieval", name)
    sums = {}
    for line in (folder / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, file = line.split()
        sums[file.removeprefix("./")] = digest
    actual = {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.iterdir())
        if path.name not in {"SHA256SUMS", "README.md"}
    }
    assert actual == sums
    assert set(sums) == {"LICENSE", "tools.jsonl", "queries.jsonl"}
    data = load_set(name)
    assert len(data.questions) <= 500
    assert len(data.tools) <= 4000
    registry, original = build_registry(data)  # every schema is one a registry accepts
    assert len(registry) == len(original) == len(data.tools)


def test_baseline_answers_are_kept_in_the_cache_and_ours_never_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached baseline is not run again; ``ours`` is always run and never stored."""
    import eval_retrieval

    data = load_set(write_set(tmp_path, TOOLS, QUERIES), tmp_path)
    cache = tmp_path / "baselines.json"
    ranked, seconds = eval_retrieval._cached(cache, data, "bm25")
    assert len(ranked) == len(seconds) == 2
    assert "weather_get" in ranked[1]  # "forecast"

    def never(dataset: Any) -> Any:
        raise AssertionError("a cached baseline ran again")

    monkeypatch.setitem(eval_retrieval.RANKERS, "bm25", never)
    assert eval_retrieval._cached(cache, data, "bm25") == (ranked, seconds)
    eval_retrieval._cached(cache, data, "ours")
    assert list(json.loads(cache.read_text(encoding="utf-8"))) == ["tiny/bm25"]
