"""Keeping environment values out of the messages an HTTP tool returns.

The rule lives in `forge.core.redaction`, shared with the executor's error path.
"""

from __future__ import annotations

from forge.core.redaction import MIN_REDACTED, redact

__all__ = ["MIN_REDACTED", "redact"]
