"""Reversible, collision-free mapping of foreign tool names to valid ones (TM-2, PV-3b).

MCP allows names such as ``math.factorial`` or 128-character names that our
rule (and OpenAI, Anthropic, Bedrock) rejects. `NameMap` gives each such name
a valid local name (every other character becomes ``_``, long names are cut
and given a short hash suffix) and remembers the original, so a call for the
local name reaches the right remote tool.
"""

from __future__ import annotations

import hashlib
import re

from forge.tools._names import MAX_NAME_LENGTH, is_valid_name

__all__ = ["NameMap"]

_BAD = re.compile(r"[^A-Za-z0-9_-]")


class NameMap:
    """Remote name ↔ local name, in both directions.

    Args:
        prefix: Put before every local name (e.g. ``"github_"``).
    """

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix
        self._local: dict[str, str] = {}
        self._remote: dict[str, str] = {}

    def local(self, remote: str) -> str:
        """Return the local name for ``remote``, assigning one on first use."""
        found = self._local.get(remote)
        if found is not None:
            return found
        candidate = self.prefix + remote
        if not is_valid_name(candidate) or candidate in self._remote:
            candidate = self._sanitized(remote)
        self._local[remote] = candidate
        self._remote[candidate] = remote
        return candidate

    def remote(self, local: str) -> str | None:
        """Return the remote name behind ``local``, or ``None`` if it is not mapped."""
        return self._remote.get(local)

    def forget(self, remote: str) -> None:
        """Drop the mapping of ``remote`` (its tool is gone)."""
        local = self._local.pop(remote, None)
        if local is not None:
            self._remote.pop(local, None)

    def items(self) -> list[tuple[str, str]]:
        """Return every ``(remote, local)`` pair."""
        return list(self._local.items())

    def _sanitized(self, remote: str) -> str:
        digest = hashlib.sha1(remote.encode(), usedforsecurity=False).hexdigest()
        base = _BAD.sub("_", self.prefix + remote)
        if not base or not (base[0].isalpha() or base[0] == "_"):
            base = "_" + base
        if is_valid_name(base) and base not in self._remote:
            return base
        for size in range(6, len(digest) + 1):
            candidate = f"{base[: MAX_NAME_LENGTH - size - 1]}_{digest[:size]}"
            if candidate not in self._remote:
                return candidate
        raise ValueError(f"cannot find a free local name for {remote!r}")
