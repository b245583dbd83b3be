"""``bench/bench_import_scale.py``: its table, and one small run against a real server."""

from __future__ import annotations

import pytest

from tests.bench._load import bench_module


def test_the_table_gives_seconds_and_microseconds_per_tool() -> None:
    """Each size is a row with its four times and the per-tool cost of import and close."""
    bench = bench_module("bench_import_scale")
    text = bench.table([(20_000, 0.05, 0.04, 9.0, 0.5)])
    assert "| 20,000 | 0.050 s  | 0.040 s    | 9.00 s | 0.50 s |" in text
    assert "| 450 " in text
    assert "| 25 " in text


@pytest.mark.slow  # starts the many-tools server
def test_a_small_run_imports_and_closes_every_tool() -> None:
    """200 tools: both steps of both measurements report a time."""
    bench = bench_module("bench_import_scale")
    assert all(s >= 0 for s in bench.registry_seconds(200))
    assert all(s > 0 for s in bench.import_seconds(200))
