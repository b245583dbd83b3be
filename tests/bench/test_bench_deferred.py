"""``bench/bench_deferred.py``: its query splitting, and one whole run on the real catalogue."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forge.tools import ToolRegistry, tool
from tests.bench._load import REPO, bench_module

PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini", "mcp")


def test_clauses_split_at_punctuation_and_joining_words() -> None:
    """A question's clauses: sentence and clause punctuation, "and", "then", "also"."""
    bench = bench_module("bench_deferred")
    question = "Find trains to Shanghai, then book a hotel near the station and save it to a file."
    assert bench.clauses(question) == [
        "Find trains to Shanghai",
        "book a hotel near the station",
        "save it to a file",
    ]
    assert bench.clauses("Weather?") == ["Weather?"]


@given(st.text(max_size=300))
def test_every_clause_is_part_of_the_question(question: str) -> None:
    """Clauses are never empty and each is a piece of the question's own text."""
    bench = bench_module("bench_deferred")
    parts = bench.clauses(question)
    assert parts
    for part in parts:
        assert part in question


def test_words_split_identifiers_as_the_search_reads_them() -> None:
    """Names split at ``_``, ``-`` and camel case, lower-cased."""
    bench = bench_module("bench_deferred")
    assert bench.words("getBaziDetail search-papers write_file 八字") == [
        "get", "bazi", "detail", "search", "papers", "write", "file", "八字",
    ]  # fmt: skip


def test_the_residual_leaves_the_words_the_revealed_tools_cover() -> None:
    """Search 2's query: the question's words minus stop words and the revealed tools' words."""
    bench = bench_module("bench_deferred")
    registry = ToolRegistry([tool(lambda path: path, name="write_file",
                                  description="Write text to a file.")])  # fmt: skip
    left = bench.residual("Please write the report to a file and plot a chart", list(registry))
    assert left == "report plot chart"


@pytest.mark.slow
def test_a_whole_run_prints_every_table_and_cuts_tokens_by_90_percent() -> None:
    """It runs on the committed catalogue; the token budget holds every turn under 10 %."""
    path = os.pathsep.join(p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "bench_deferred.py"), "--k", "10"],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": path},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "527 tools from 70 MCP servers; 21 development tasks" in done.stdout
    for provider in PROVIDERS:
        row = re.search(rf"^\| {re.escape(provider)} +\|(.*)\|$", done.stdout, re.MULTILINE)
        assert row is not None, provider
        cells = [c.strip() for c in row.group(1).split("|")]
        # The mean and the largest turn: the session's max_tokens bounds every turn.
        assert float(cells[-3].rstrip(" %")) >= 90, row.group(0)
        assert float(cells[-2].rstrip(" %")) >= 90, row.group(0)
        assert cells[-1] == "PASS", row.group(0)
    assert "within 1 call" in done.stdout
    assert "no toolkits, no pins" in done.stdout
