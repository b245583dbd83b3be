"""Exponential backoff, capped and jittered, for reconnecting to a server that went away."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

__all__ = ["Backoff"]


@dataclass(frozen=True, kw_only=True)
class Backoff:
    """Delays ``first * factor**attempt``, capped at ``cap``, each cut by up to ``jitter``.

    The jitter spreads reconnects of many gateways (or servers) that lost the same
    peer at the same moment; the cap bounds how long a server that came back waits.
    """

    first: float = 0.5
    """Seconds before the first retry (before jitter)."""
    factor: float = 2.0
    """How much each failed attempt multiplies the delay."""
    cap: float = 30.0
    """The longest delay, in seconds."""
    jitter: float = 0.5
    """The share of each delay that may be cut at random (0: none, 1: all of it)."""
    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)
    """Where the jitter comes from."""

    def __post_init__(self) -> None:
        if not 0 < self.first <= self.cap:
            raise ValueError(f"need 0 < first <= cap, got first={self.first}, cap={self.cap}")
        if self.factor < 1:
            raise ValueError(f"factor must be at least 1, got {self.factor}")
        if not 0 <= self.jitter < 1:
            raise ValueError(f"jitter must be in [0, 1), got {self.jitter}")

    def ceiling(self, attempt: int) -> float:
        """The delay before jitter of retry number ``attempt`` (0 for the first)."""
        if attempt < 0:
            raise ValueError(f"attempt must not be negative, got {attempt}")
        try:
            grown = self.first * float(self.factor) ** attempt
        except OverflowError:
            return self.cap
        return min(self.cap, grown)

    def delay(self, attempt: int) -> float:
        """The seconds to wait before retry number ``attempt``, jitter included."""
        ceiling = self.ceiling(attempt)
        return ceiling * (1 - self.jitter * self.rng.random())
