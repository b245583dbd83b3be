"""Reversible, collision-free tool names across providers.

MCP and Gemini accept dots and 128 characters; OpenAI, Anthropic and Bedrock
do not. A `NameMap` gives each outside name a name that matches a target
rule, remembers both directions, and never gives two names the same mapping,
so a call for the mapped name reaches the right tool.

>>> names = NameMap()
>>> names.add("math.factorial")
'math_factorial'
>>> names.original("math_factorial")
'math.factorial'
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable

from forge.tools.formats.limits import LIMITS
from forge.tools.schema import MAX_NAME_LENGTH, NAME_PATTERN

__all__ = ["NAME_RULES", "NameMap"]

#: The tool-name rule of each provider (from `forge.tools.formats.limits.LIMITS`).
NAME_RULES: dict[str, tuple[str, int]] = {
    "canonical": (NAME_PATTERN, MAX_NAME_LENGTH),
    **{provider: (f"^(?:{limits.name_pattern})$", limits.max_name)
       for provider, limits in LIMITS.items() if limits.name_pattern is not None},
    "ollama": (r"^.{1,}$", 1 << 16),
}  # fmt: skip
_BAD = re.compile(r"[^A-Za-z0-9_-]")


class NameMap:
    """A two-way map between outside names and names that match a rule.

    Args:
        rule: A key of `NAME_RULES` (default: the canonical tool-name rule,
            which every provider accepts).
    """

    def __init__(self, rule: str = "canonical") -> None:
        pattern, self._max = NAME_RULES[rule]
        self._ok = re.compile(pattern)
        self._to: dict[str, str] = {}
        self._from: dict[str, str] = {}
        self._lock = threading.Lock()

    def add(self, name: str) -> str:
        """Return the mapped name of ``name``, assigning one on first sight.

        A name that already matches the rule keeps itself unless an earlier
        name took it; others get ``[^A-Za-z0-9_-]`` replaced by ``_``, a
        leading ``_`` if they start with a digit or ``-``, and, when that is
        taken or too long, a short hash of the original.
        """
        with self._lock:
            found = self._to.get(name)
            if found is not None:
                return found
            mapped = self._assign(name)
            self._to[name], self._from[mapped] = mapped, name
            return mapped

    def add_all(self, names: Iterable[str]) -> dict[str, str]:
        """Map a whole set of names at once; return ``{name: mapped}``.

        Unlike a sequence of `add` calls, the result does not depend on the
        order: every name that matches the rule keeps itself, even one that an
        earlier mapping of another name had taken (that name is mapped again,
        with a suffix), and the other names are mapped in sorted order.

        >>> NameMap().add_all(["math.factorial", "math_factorial"])
        {'math.factorial': 'math_factorial_2f2114b7', 'math_factorial': 'math_factorial'}
        """
        wanted = list(dict.fromkeys(names))
        with self._lock:
            for name in wanted:
                if name in self._to or not self._valid(name):
                    continue
                holder = self._from.pop(name, None)
                if holder is not None:
                    del self._to[holder]
                self._to[name] = self._from[name] = name
        for name in sorted(wanted):
            self.add(name)
        return {name: self._to[name] for name in wanted}

    def _valid(self, name: str) -> bool:
        return bool(self._ok.match(name)) and "\n" not in name

    def _assign(self, name: str) -> str:
        if self._valid(name) and name not in self._from:
            return name
        base = _BAD.sub("_", name) or "_"
        if not re.match(r"[A-Za-z_]", base):
            base = "_" + base
        if len(base) <= self._max and base not in self._from and self._ok.match(base):
            return base
        digest = hashlib.sha256(name.encode()).hexdigest()
        for size in range(8, 65, 4):
            suffix = "_" + digest[:size]
            candidate = base[: self._max - len(suffix)] + suffix
            if candidate not in self._from:
                return candidate
        raise ValueError(f"cannot find a free name for {name!r}")  # 2**256 collisions

    def mapped(self, name: str) -> str | None:
        """Return the mapped name of an outside name already added, or ``None``."""
        return self._to.get(name)

    def original(self, mapped: str) -> str:
        """Return the outside name behind a mapped name (itself if never mapped)."""
        return self._from.get(mapped, mapped)

    def changed(self) -> dict[str, str]:
        """Return ``{original: mapped}`` for every name that had to change."""
        return {k: v for k, v in self._to.items() if k != v}

    def __len__(self) -> int:
        return len(self._to)

    def __contains__(self, name: object) -> bool:
        return name in self._to
