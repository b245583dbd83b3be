"""The bearer-token check shared by every HTTP endpoint (``/mcp`` and the web catalog)."""

from __future__ import annotations

import hmac
from collections.abc import Iterable

__all__ = ["bearer_matches"]


def bearer_matches(headers: Iterable[tuple[bytes, bytes]], token: bytes) -> bool:
    """Whether the first ``Authorization`` header is ``Bearer <token>`` (constant time).

    The scheme matches in any case; ``headers`` are ASGI's (lowercase names).
    """
    for key, value in headers:
        if key == b"authorization":
            scheme, _, credentials = value.strip().partition(b" ")
            matches = hmac.compare_digest(credentials.lstrip(b" "), token)
            return scheme.lower() == b"bearer" and matches
    return False
