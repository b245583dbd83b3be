"""A small run of the executor soak in ``bench/soak_executor.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[4]


@pytest.mark.slow
def test_2000_mixed_calls_lose_no_result() -> None:
    """Good, bad, failing, slow and timing-out calls on every entry point: all answered."""
    path = os.pathsep.join(p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "soak_executor.py"), "--calls", "2000",
         "--batch", "250", "--no-memory-check"],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": path},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| lost results | 0 |" in done.stdout
    assert "| wrong or misrouted results | 0 |" in done.stdout
    assert "| calls | 2,000 |" in done.stdout
