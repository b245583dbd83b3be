"""Timing, import-time, memory and reporting helpers shared by the benchmarks.

Every comparison is made inside one process run and reported as a ratio against a baseline
measured in that same run: the machines these run on are shared and noisy, so absolute numbers
move around while ratios of interleaved minimum-of-repeats timings stay stable.
"""

from __future__ import annotations

import asyncio
import gc
import json
import math
import os
import subprocess
import sys
import time
import timeit
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
#: The external data committed with the repository (see ``corpora/README.md``).
CORPORA = REPO_ROOT / "corpora"

#: The multiplication sign, written after ratios ("1.25" + TIMES).
TIMES = "\N{MULTIPLICATION SIGN}"

#: Wall-clock length aimed at for one timed repeat when the loop count is calibrated.
TARGET_REPEAT_S = 0.04


# --------------------------------------------------------------------------- timing


def calibrate(fn: Callable[[], Any], target_s: float = TARGET_REPEAT_S) -> int:
    """Return a loop count for which ``fn`` runs for roughly ``target_s`` seconds."""
    number = 1
    timer = timeit.Timer(fn)
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= target_s / 4 or number >= 1 << 24:
            break
        number *= 4
    return max(1, math.ceil(number * target_s / max(elapsed, 1e-9)))


def best_us(fn: Callable[[], Any], number: int | None = None, repeat: int = 7) -> float:
    """Minimum over ``repeat`` runs of the time per call of ``fn``, in microseconds."""
    number = number or calibrate(fn)
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def compare_us(
    cases: Mapping[str, Callable[[], Any]], repeat: int = 7, target_s: float = TARGET_REPEAT_S
) -> dict[str, float]:
    """Time several callables with interleaved repeats; return min µs per call for each.

    Repeats are taken round-robin (case A, case B, ..., case A, ...), so a burst of background
    load hits every case rather than one of them, and the minimum of each case is taken.
    """
    timers = {name: timeit.Timer(fn) for name, fn in cases.items()}
    numbers = {name: calibrate(fn, target_s) for name, fn in cases.items()}
    best = dict.fromkeys(cases, math.inf)
    for _ in range(repeat):
        for name, timer in timers.items():
            best[name] = min(best[name], timer.timeit(numbers[name]) / numbers[name])
    return {name: value * 1e6 for name, value in best.items()}


async def _await_loop(factory: Callable[[], Awaitable[Any]], number: int) -> float:
    """Await ``number`` fresh awaitables from ``factory`` back to back; return seconds taken."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            await factory()
        return time.perf_counter() - start
    finally:
        if gc_was_enabled:
            gc.enable()


async def _acalibrate(factory: Callable[[], Awaitable[Any]], target_s: float) -> int:
    """Async counterpart of :func:`calibrate`."""
    number = 1
    while True:
        elapsed = await _await_loop(factory, number)
        if elapsed >= target_s / 4 or number >= 1 << 22:
            break
        number *= 4
    return max(1, math.ceil(number * target_s / max(elapsed, 1e-9)))


async def acompare_us(
    cases: dict[str, Callable[[], Awaitable[Any]]],
    repeat: int = 7,
    target_s: float = TARGET_REPEAT_S,
) -> dict[str, float]:
    """Interleaved min-of-repeats µs per awaited call, all inside the running event loop."""
    numbers = {name: await _acalibrate(factory, target_s) for name, factory in cases.items()}
    best = dict.fromkeys(cases, math.inf)
    for _ in range(repeat):
        for name, factory in cases.items():
            elapsed = await _await_loop(factory, numbers[name])
            best[name] = min(best[name], elapsed / numbers[name])
    return {name: value * 1e6 for name, value in best.items()}


def abest_us(
    factory: Callable[[], Awaitable[Any]], number: int | None = None, repeat: int = 7
) -> float:
    """Min µs per awaited call of ``factory()``, timing ``number`` awaits inside one coroutine."""

    async def run() -> float:
        count = number or await _acalibrate(factory, TARGET_REPEAT_S)
        best = min([await _await_loop(factory, count) for _ in range(repeat)])
        return best / count * 1e6

    return asyncio.run(run())


@dataclass(frozen=True)
class BatchCase:
    """A batch workload: ``setup()`` builds fresh inputs (untimed), ``run(inputs)`` is timed."""

    setup: Callable[[], Any]
    run: Callable[[Any], Any]
    items: int
    repeat: int = 5


def compare_batch_us(cases: dict[str, BatchCase]) -> dict[str, float]:
    """Interleaved min-of-repeats of batch workloads; returns µs per item for each case."""
    best = dict.fromkeys(cases, math.inf)
    for round_no in range(max(case.repeat for case in cases.values())):
        for name, case in cases.items():
            if round_no >= case.repeat:
                continue
            inputs = case.setup()
            gc.collect()
            gc.disable()
            try:
                start = time.perf_counter()
                case.run(inputs)
                elapsed = time.perf_counter() - start
            finally:
                gc.enable()
            best[name] = min(best[name], elapsed / case.items)
            del inputs
    return {name: value * 1e6 for name, value in best.items()}


# --------------------------------------------------------------------------- subprocesses


def _run_python(code: str, *, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (this one's executable), from the repository root."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=check,
    )


def import_times_ms(statements: Sequence[str], runs: int = 15) -> dict[str, float | None]:
    """Best wall time of ``python -c <statement>`` minus best of ``python -c pass``, in ms.

    Runs are interleaved across statements and preceded by one warm-up run each (which also
    refreshes bytecode caches). A statement that fails to run maps to ``None``.
    """
    usable = [stmt for stmt in statements if _run_python(stmt, check=False).returncode == 0]
    _run_python("pass")
    best = dict.fromkeys(["pass", *usable], math.inf)
    for _ in range(runs):
        for stmt in best:
            start = time.perf_counter()
            _run_python(stmt)
            best[stmt] = min(best[stmt], time.perf_counter() - start)
    floor = best.pop("pass")
    return {stmt: ((best[stmt] - floor) * 1e3 if stmt in best else None) for stmt in statements}


_MEMORY_CHILD = """
import gc, json, sys, tracemalloc
sys.path.insert(0, {bench_dir!r})
mode = {mode!r}
{setup}
try:
    import ctypes
    _trim = ctypes.CDLL("libc.so.6").malloc_trim
except (ImportError, OSError, AttributeError):
    _trim = None
def _rss():
    if _trim is not None:
        _trim(0)  # hand freed heap pages back, so the next delta counts only retained memory
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * {page_size}
def _now():
    gc.collect()
    return tracemalloc.get_traced_memory()[0] if mode == "tracemalloc" else _rss()
if mode == "tracemalloc":
    tracemalloc.start()
_marks = [_now()]
for _stage in STAGES:
    _stage()
    _marks.append(_now())
print(json.dumps([b - a for a, b in zip(_marks, _marks[1:])]))
"""


def memory_deltas(setup: str, mode: str = "tracemalloc") -> list[int]:
    """Bytes retained by each stage of a workload, measured in a fresh interpreter.

    ``setup`` is Python source that prepares everything that should *not* be counted (imports,
    the functions to register, warm-up) and defines ``STAGES``: a list of zero-argument callables
    run in order after the baseline snapshot. Each stage must keep what it builds alive (e.g. in a
    module global). ``mode`` is ``"tracemalloc"`` (Python heap only) or ``"rss"`` (resident set,
    which also sees memory allocated by Rust extensions; Linux only).
    """
    if mode == "rss" and not Path("/proc/self/statm").exists():
        raise RuntimeError("RSS measurement needs /proc (Linux)")
    page_size = _page_size()
    code = _MEMORY_CHILD.format(
        bench_dir=str(BENCH_DIR), mode=mode, setup=setup, page_size=page_size
    )
    proc = _run_python(code, check=False)
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1:] or ["unknown error"]
        raise RuntimeError(last[0])
    return [int(value) for value in json.loads(proc.stdout.strip().splitlines()[-1])]


def _page_size() -> int:
    """The system page size in bytes (4096 when it cannot be determined)."""
    try:
        return os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 4096


# --------------------------------------------------------------------------- reporting


@dataclass
class Row:
    """One line of a results table.

    ``value`` is the measurement in ``unit``; ``ratio`` is value / baseline when there is a
    baseline. ``target`` is a human-readable bound and ``passed`` its verdict (``None`` for
    informational rows). ``status`` replaces the numbers when the case could not run.
    """

    label: str
    value: float | None = None
    unit: str = "µs"
    ratio: float | None = None
    baseline: str = ""
    target: str = ""
    passed: bool | None = None
    status: str = ""


def ratio_row(
    label: str,
    value: float | None,
    baseline_value: float | None,
    baseline: str,
    *,
    max_ratio: float | None = None,
    strict: bool = False,
    unit: str = "µs",
) -> Row:
    """Build a row whose ratio is ``value / baseline_value``, optionally checked against a bound.

    With ``strict`` the bound is exclusive (ratio must be < ``max_ratio``).
    """
    if value is None or baseline_value is None or baseline_value <= 0:
        return Row(label, value, unit, None, baseline, _target_text(max_ratio, strict))
    ratio = value / baseline_value
    passed = None
    if max_ratio is not None:
        passed = ratio < max_ratio if strict else ratio <= max_ratio
    return Row(label, value, unit, ratio, baseline, _target_text(max_ratio, strict), passed)


def _target_text(max_ratio: float | None, strict: bool) -> str:
    """Render a ratio bound such as ``≤ 1.5`` followed by the multiplication sign."""
    if max_ratio is None:
        return ""
    return f"{'<' if strict else '≤'} {max_ratio:g}{TIMES}"


def format_value(value: float, unit: str) -> str:
    """Format a measurement with a sensible number of significant digits."""
    if unit == "B":
        return f"{value / 1024:,.2f} KiB" if abs(value) >= 1024 else f"{value:,.0f} B"
    if value >= 100:
        return f"{value:,.0f} {unit}"
    if value >= 10:
        return f"{value:.1f} {unit}"
    if value >= 1:
        return f"{value:.2f} {unit}"
    return f"{value:.3f} {unit}"


def render_rows(title: str, rows: Iterable[Row]) -> str:
    """Render result rows as a Markdown table with ratio, target and pass columns."""
    header = ["Case", "Result", "Ratio", "vs (baseline)", "Target", "Pass"]
    body: list[list[str]] = []
    for row in rows:
        if row.status:
            body.append([row.label, row.status, "", row.baseline, row.target, ""])
            continue
        value = format_value(row.value, row.unit) if row.value is not None else "n/a"
        ratio = f"{row.ratio:.2f}{TIMES}" if row.ratio is not None else ""
        verdict = {True: "PASS", False: "**FAIL**", None: ""}[row.passed]
        body.append([row.label, value, ratio, row.baseline, row.target, verdict])
    return f"#### {title}\n\n{render_table(header, body)}"


def render_table(header: Sequence[str], body: Iterable[Sequence[str]]) -> str:
    """Render a plain Markdown table with columns padded for readability."""
    rows = [list(header), *[list(line) for line in body]]
    widths = [max(len(row[col]) for row in rows) for col in range(len(header))]
    lines = [
        "| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |"
        for row in rows
    ]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def print_tables(tables: Iterable[str]) -> None:
    """Print each rendered Markdown table as soon as it is measured."""
    for table in tables:
        print(table, end="\n\n", flush=True)
