"""The bound on a configured timeout, shared by tools and HTTP requests (internal)."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["MAX_TIMEOUT", "shown_number", "timeout_problem"]

MAX_TIMEOUT = 31_536_000.0
"""The longest timeout a tool or an HTTP request may set: 365 days, in seconds.

Past it a deadline no longer fits the clocks the executor waits on.
"""


def timeout_problem(value: Any) -> str | None:
    """Why ``value`` is not a usable timeout in seconds, or ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"must be a positive number of seconds, got {shown_number(value)}"
    try:
        seconds = float(value)
    except OverflowError:
        seconds = math.inf
    if math.isnan(seconds) or not 0 < seconds <= MAX_TIMEOUT:
        return (
            f"must be a positive number of seconds, at most {MAX_TIMEOUT:.0f} (365 days), "
            f"got {shown_number(value)}"
        )
    return None


def shown_number(value: Any) -> str:
    """``repr(value)``, or its length for an integer too long to quote (or to turn into text)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    return repr(value)
