"""Tools used together before: pair counts shared by the sessions of one process.

A question rarely names every tool its answer needs ("book the cheapest flight" needs the
search, the fare rules and the booking), but the calls of past conversations do: tools run
in the same turn, or one shortly after the other in the same session, tend to be needed
together again. `CoUse` counts those pairs; a `DeferredSession` given one (``co_use=``)
feeds it the calls it runs and, when a search finds a tool, also reveals the tools most
often used with it (``partners=``, counted at least ``min_co_use`` times).

**Together** means: run by one session within ``window`` consecutive calls. The calls of one
batch (a model turn, one ``execute_all``) are all together with each other and with the
session's ``window`` calls before the batch; each pair counts at most once per batch, and a
tool is never its own partner. Only calls that ran count (not searches, not unknown or
denied tools).

**Bounded**: past ``max_pairs`` pairs every count is halved and the pairs left at zero are
forgotten, so the store stays small whatever the traffic and recent use weighs more.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence

__all__ = ["CoUse", "CoUseTrail", "partners_of"]


class CoUse:
    """How many times each pair of tools was used together (thread-safe, bounded).

    Share one between the sessions of a process (an MCP server's client sessions, a
    gateway's) so that each learns from the others; see the module docstring for what
    "together" means.

    Args:
        window: How many of a session's previous calls a call is together with.
        max_pairs: The most pairs kept; past it every count is halved (pairs at zero go).

    Raises:
        ValueError: ``window`` or ``max_pairs`` is not a whole number >= 1.
    """

    def __init__(self, *, window: int = 5, max_pairs: int = 20_000) -> None:
        for label, value in (("window", window), ("max_pairs", max_pairs)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"CoUse {label} must be a whole number >= 1, got {value!r}")
        self.window = window
        self.max_pairs = max_pairs
        self._lock = threading.Lock()
        self._with: dict[str, dict[str, int]] = {}
        self._pairs = 0

    def record(self, names: Iterable[str], *, earlier: Iterable[str] = ()) -> None:
        """Count one batch: its tools together, and each with the ``earlier`` calls.

        Raises:
            TypeError: A name is not a string.
        """
        batch = _names(names)
        before = [n for n in _names(earlier) if n not in batch]
        pairs = [(a, b) for i, a in enumerate(batch) for b in batch[i + 1 :]]
        pairs += [(a, b) for a in batch for b in before]
        if not pairs:
            return
        with self._lock:
            for a, b in pairs:
                self._add(a, b)
                self._add(b, a)
            while self._pairs > self.max_pairs:
                self._halve()

    def count(self, a: str, b: str) -> int:
        """How many times tools ``a`` and ``b`` were used together (the pair's count)."""
        with self._lock:
            return self._with.get(a, {}).get(b, 0)

    def partners(self, name: str, *, least: int = 1) -> list[tuple[str, int]]:
        """The tools used together with ``name`` at least ``least`` times, most first
        (a tie: the pair seen first first), with their counts."""
        with self._lock:
            mates = list(self._with.get(name, {}).items())
        return sorted(((n, c) for n, c in mates if c >= least), key=lambda item: -item[1])

    def __len__(self) -> int:
        """The pairs counted."""
        with self._lock:
            return self._pairs

    def clear(self) -> None:
        """Forget every pair."""
        with self._lock:
            self._with.clear()
            self._pairs = 0

    def trail(self) -> CoUseTrail:
        """A new session's record of its recent calls, feeding this store."""
        return CoUseTrail(self)

    def _add(self, a: str, b: str) -> None:
        mates = self._with.setdefault(a, {})
        count = mates.get(b, 0)
        if not count and a < b:
            self._pairs += 1
        mates[b] = count + 1

    def _halve(self) -> None:
        """Halve every count; forget the pairs left at zero (under the lock)."""
        pairs = 0
        for name in list(self._with):
            mates = {b: c // 2 for b, c in self._with[name].items() if c > 1}
            if mates:
                self._with[name] = mates
                pairs += sum(1 for b in mates if name < b)
            else:
                del self._with[name]
        self._pairs = pairs


class CoUseTrail:
    """One session's last ``window`` calls, so that each batch it runs counts with them."""

    def __init__(self, store: CoUse) -> None:
        self.store = store
        self._recent: deque[str] = deque(maxlen=store.window)
        self._lock = threading.Lock()

    def ran(self, names: Sequence[str]) -> None:
        """Count a batch of calls that ran (in call order) with this session's recent ones."""
        with self._lock:
            earlier = list(self._recent)
            self._recent.extend(names)
        self.store.record(names, earlier=earlier)


def partners_of(
    hits: Sequence[str],
    store: CoUse,
    *,
    partners: int,
    least: int,
    skip: Iterable[str],
    known: Callable[[str], bool],
) -> list[str]:
    """The tools a search reveals for being used with its ``hits``, best first.

    Up to ``partners`` per hit, each at least ``least`` times with it, none in ``skip`` and
    each ``known`` (still a tool): every hit's best partner (best hit first), then every
    hit's second, and so on.
    """
    taken = set(skip) | set(hits)
    ranked = []
    for hit in hits:
        mates = [n for n, _ in store.partners(hit, least=least) if n not in taken and known(n)]
        ranked.append(mates[:partners])
    out: list[str] = []
    for place in range(partners):
        for mates in ranked:
            if place < len(mates) and mates[place] not in taken:
                taken.add(mates[place])
                out.append(mates[place])
    return out


def _names(names: Iterable[str]) -> list[str]:
    """``names`` once each, in order.

    Raises:
        TypeError: One is not a string.
    """
    listed = [names] if isinstance(names, str) else list(names)
    for name in listed:
        if not isinstance(name, str):
            raise TypeError(f"CoUse records tool names (strings), got {type(name).__name__}")
    return list(dict.fromkeys(listed))
