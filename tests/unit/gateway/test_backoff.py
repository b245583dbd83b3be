"""The gateway's reconnect backoff: exponential, capped, jittered."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.gateway import Backoff


@settings(deadline=None)
@given(
    st.floats(0.01, 10),
    st.floats(1, 10),
    st.floats(10, 100),
    st.floats(0, 0.99),
    st.integers(0, 10_000),
    st.integers(0, 2**32),
)
def test_every_delay_is_within_the_jitter_of_its_capped_ceiling(
    first: float, factor: float, cap: float, jitter: float, attempt: int, seed: int
) -> None:
    """0 < (1 - jitter) * ceiling <= delay <= ceiling <= cap, even after 10,000 attempts."""
    backoff = Backoff(first=first, factor=factor, cap=cap, jitter=jitter, rng=random.Random(seed))
    ceiling = backoff.ceiling(attempt)
    assert ceiling <= cap
    if attempt < 50:
        assert ceiling == min(cap, first * factor**attempt)
    delay = backoff.delay(attempt)
    assert delay <= ceiling
    assert delay >= (1 - jitter) * ceiling * (1 - 1e-12) > 0  # float rounding aside


def test_the_ceiling_doubles_then_stays_at_the_cap() -> None:
    """0.5, 1, 2, 4, ... up to 30 s by default."""
    backoff = Backoff()
    assert [backoff.ceiling(n) for n in range(8)] == [0.5, 1, 2, 4, 8, 16, 30, 30]


def test_the_jitter_spreads_delays() -> None:
    """Two gateways with different random sources do not retry in step."""
    delays = {Backoff(rng=random.Random(seed)).delay(5) for seed in range(20)}
    assert len(delays) == 20


@pytest.mark.parametrize(
    "options",
    [{"first": 0}, {"first": 5, "cap": 1}, {"factor": 0.5}, {"jitter": 1}, {"jitter": -0.1}],
)
def test_bad_settings_are_refused(options: dict[str, float]) -> None:
    """Settings that would give no wait, shrinking waits or no jitter bound raise ValueError."""
    with pytest.raises(ValueError):
        Backoff(**options)


def test_a_negative_attempt_is_refused() -> None:
    """Attempts count from 0."""
    with pytest.raises(ValueError, match="attempt"):
        Backoff().ceiling(-1)
