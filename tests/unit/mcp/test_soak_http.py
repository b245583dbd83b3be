"""A small run of ``bench/soak_http.py``: slow sockets and an initialize flood lock nobody out."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "bench" / "soak_http.py"


@pytest.mark.slow
def test_an_authenticated_client_is_served_under_slow_sockets_and_a_session_flood() -> None:
    """200 stalled half-requests and 500 initializes: the authenticated client always succeeds."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("FORGE_TOOLS_TOKEN", None)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--slow-sockets", "200", "--initializes", "500", "--check"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAILED" not in done.stdout
    assert "500 x 200" in done.stdout  # no initialize was refused
