"""Run the fuzz targets for a while: ``python -m tests.fuzz.run --minutes 5 --target parse``.

Targets are picked by name prefix (``parse`` runs every ``parse-*``); each runs in
batches of fresh random examples, round robin, until the time is up. A broken
contract prints the smallest failing input hypothesis finds and exits 1.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections.abc import Sequence

from hypothesis import HealthCheck, Phase, given, settings

from tests.fuzz.targets import TARGETS, Target


def run_target(target: Target, examples: int) -> int:
    """Run ``examples`` fresh examples of ``target``; return how many ran.

    Raises:
        Exception: The first input that breaks the target's contract (shrunk).
    """
    ran = 0

    @settings(
        max_examples=examples, deadline=None, database=None, derandomize=False,
        suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink],
    )  # fmt: skip
    @given(target.strategy)
    def fuzz(value: object) -> None:
        nonlocal ran
        ran += 1
        target.check(value)

    fuzz()
    return ran


def select(prefixes: Sequence[str]) -> list[Target]:
    """The targets whose names start with one of ``prefixes`` (all when none are given)."""
    chosen = [t for name, t in TARGETS.items() if not prefixes or name.startswith(tuple(prefixes))]
    if not chosen:
        raise SystemExit(f"no target matches {list(prefixes)}; targets: {', '.join(TARGETS)}")
    return chosen


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments, run the targets until the time is up and print a summary."""
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.run", description=__doc__)
    parser.add_argument("--minutes", type=float, default=1.0, help="how long to run in all")
    parser.add_argument("--target", action="append", default=[], help="a name prefix (repeat)")
    parser.add_argument("--batch", type=int, default=200, help="examples per batch")
    parser.add_argument("--list", action="store_true", help="list the targets and exit")
    args = parser.parse_args(argv)
    if args.list:
        for target in TARGETS.values():
            print(f"{target.name:<26} {target.doc}")
        return 0
    targets = select(args.target)
    end = time.monotonic() + args.minutes * 60
    counts = dict.fromkeys((t.name for t in targets), 0)
    while time.monotonic() < end:
        for target in targets:
            try:
                counts[target.name] += run_target(target, args.batch)
            except Exception as exc:  # the contract broke: report and stop
                traceback.print_exception(exc, file=sys.stderr)  # with the failing inputs
                print(f"FAILED {target.name}: {type(exc).__name__}: {exc}", file=sys.stderr)
                return 1
            if time.monotonic() >= end:
                break
    for name, count in counts.items():
        print(f"{name:<26} {count:>9,} inputs held")
    print(f"{sum(counts.values()):,} inputs in {args.minutes:g} minute(s), no contract broken")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
