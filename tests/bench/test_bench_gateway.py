"""``bench/bench_gateway.py``: its table, and one short run over stdio against real processes."""

from __future__ import annotations

import asyncio

import pytest

from tests.bench._load import bench_module


def test_the_table_gives_ratios_against_the_direct_call() -> None:
    """Each transport has latency and CPU rows with ratios, and the gateway's own CPU."""
    bench = bench_module("bench_gateway")
    found = {"direct": (2.0, 4.0, None), "gateway": (5.0, 10.0, 3.0),
             "search-only": (6.0, 12.0, 3.5)}  # fmt: skip
    text = bench.table({"stdio": found})
    assert "| stdio     | latency " in text
    assert "2.50x" in text  # 5.0 / 2.0, and 10.0 / 4.0
    assert "3.00x" in text  # 6.0 / 2.0, and 12.0 / 4.0
    assert "| 3.50 " in text  # the search-only gateway's own CPU


@pytest.mark.slow  # starts a direct server and two gateways, each with its upstream
def test_a_short_run_over_stdio_measures_every_target(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every target answers 3 before it is timed; each gets a latency and a CPU figure."""
    bench = bench_module("bench_gateway")
    monkeypatch.setattr(bench, "ROUNDS", 1)
    monkeypatch.setattr(bench, "BATCH", 3)
    found = asyncio.run(bench.measure("stdio"))
    assert set(found) == {"direct", "gateway", "search-only"}
    for latency, cpu, _own in found.values():
        assert latency > 0
        assert cpu >= 0
    assert found["direct"][2] is None
