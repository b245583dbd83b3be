"""The Ray backend against local execution: 10,000 CPU-bound calls, 10,000 I/O-bound calls.

Run directly: ``python bench/bench_ray.py [--calls N]`` (it starts a local Ray instance
with 2 CPUs; about 6 minutes on 2 CPUs). Every row of a table is measured in this one
process run, one after another, each on warm workers (start-up is reported apart).

* CPU-bound: a sync tool that spins for about 5 ms (a fixed loop, calibrated here).
  Local threads (the executor's default placement, 2 worker threads), a bare
  ``concurrent.futures.ProcessPoolExecutor(2)``, the executor with ``RayBackend``
  and, for scale, bare Ray tasks.
* I/O-bound: a sync tool that sleeps 10 ms, 16 at a time in each case (16 threads,
  16 processes, Ray tasks that reserve 1/8 CPU each).

Per-call overhead is ``(wall time x slots - calls x work) / calls``: the time a slot
spends per call on anything but the work. Memory is the proportional set size (PSS)
of this process and every process it started (pool workers; Ray's GCS, raylet and
workers), as Linux reports it, so shared pages are not counted twice.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import TIMES, render_table

CALLS = 10_000
CPU_MS = 5.0
IO_S = 0.010
CPU_SLOTS = 2
IO_SLOTS = 16


def spin(n: int) -> int:
    """CPU-bound work: ``n`` rounds of integer arithmetic."""
    x = 0
    for i in range(n):
        x += i * i
    return n


def nap(seconds: float) -> float:
    """I/O-bound work: sleep."""
    time.sleep(seconds)
    return seconds


def _rounds_for(ms: float) -> int:
    """The ``spin`` rounds that take about ``ms`` milliseconds here (best of 7 timings)."""
    n = 10_000
    while True:
        took = min(_took_ms(n) for _ in range(7))
        if took > 20:
            return max(1, int(n * ms / took))
        n *= 2


def _took_ms(n: int) -> float:
    started = time.perf_counter()
    spin(n)
    return (time.perf_counter() - started) * 1e3


# --------------------------------------------------------------------------- memory


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(parent, []).append(int(entry))
    return kids


def _pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_mib() -> float:
    """PSS of this process and all its descendants, in MiB."""
    kids, total, todo = _children(), 0, [os.getpid()]
    while todo:
        pid = todo.pop()
        total += _pss_kib(pid)
        todo.extend(kids.get(pid, ()))
    return total / 1024


# --------------------------------------------------------------------------- cases


def _executor(tool_fn: Callable[..., Any], **options: Any) -> Any:
    from forge.tools import ToolExecutor, ToolRegistry, tool

    return ToolExecutor(ToolRegistry([tool(tool_fn)]), **options)


def _calls(name: str, arguments: dict[str, Any], count: int) -> list[Any]:
    from forge.tools import ToolCall

    return [ToolCall(f"c{i}", name, arguments) for i in range(count)]


def _timed(run: Callable[[], list[Any]], count: int) -> tuple[float, float]:
    """Wall seconds of one run, and the memory of the process tree right after it."""
    started = time.perf_counter()
    results = run()
    wall = time.perf_counter() - started
    assert len(results) == count, "every call must come back"
    return wall, tree_mib()


def _mapper(pool: ProcessPoolExecutor, fn: Callable[[Any], Any], arg: Any, count: int) -> Any:
    return lambda: list(pool.map(fn, [arg] * count))


def _ok(results: list[Any]) -> list[Any]:
    failed = [r for r in results if not r.success]
    assert not failed, f"{len(failed)} calls failed, e.g. {failed[0].error}"
    return results


def run_cases(count: int) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
    """Measure every case; answer rows by workload and the start-up costs."""
    import ray

    from forge.tools.integrations.ray import RayBackend

    rounds = _rounds_for(CPU_MS)
    cpu_args, io_args = {"n": rounds}, {"seconds": IO_S}
    rows: dict[str, dict[str, Any]] = {"cpu": {}, "io": {}}
    startup: dict[str, float] = {}
    base = tree_mib()

    def record(workload: str, label: str, run: Callable[[], list[Any]], slots: int) -> None:
        wall, mib = _timed(run, count)
        work = CPU_MS / 1e3 if workload == "cpu" else IO_S
        rows[workload][label] = {
            "wall": wall,
            "throughput": count / wall,
            "overhead_us": (wall * slots - count * work) / count * 1e6,
            "memory": mib - base,
        }

    # Local threads: the executor's default placement (a worker thread per sync call).
    cpu_threads = _executor(spin, max_threads=CPU_SLOTS)
    cpu_threads.execute_all_sync(_calls("spin", cpu_args, 10))
    record("cpu", "local threads: executor, 2 threads", lambda: _ok(
        cpu_threads.execute_all_sync(_calls("spin", cpu_args, count))), CPU_SLOTS)  # fmt: skip
    cpu_threads.close()
    io_threads = _executor(nap, max_threads=IO_SLOTS)
    io_threads.execute_all_sync(_calls("nap", io_args, IO_SLOTS))
    record("io", "local threads: executor, 16 threads", lambda: _ok(
        io_threads.execute_all_sync(_calls("nap", io_args, count))), IO_SLOTS)  # fmt: skip
    io_threads.close()

    # A bare local process pool (no validation, no results: the floor for one machine).
    for workload, fn, arg, slots in (("cpu", spin, rounds, CPU_SLOTS), ("io", nap, IO_S, IO_SLOTS)):
        started = time.perf_counter()
        with ProcessPoolExecutor(slots) as pool:
            list(pool.map(fn, [arg] * slots))
            startup[f"process pool ({slots} workers)"] = time.perf_counter() - started
            label = f"local process pool: ProcessPoolExecutor({slots}), bare"
            record(workload, label, _mapper(pool, fn, arg, count), slots)

    # Ray: the executor with RayBackend, and bare Ray tasks for scale.
    started = time.perf_counter()
    backend = RayBackend(
        num_cpus=CPU_SLOTS, include_dashboard=False, log_to_driver=False, max_in_flight=32
    )
    backend.connect()
    startup["ray.init (local, 2 CPUs)"] = time.perf_counter() - started
    from forge.tools import ToolExecutor, ToolRegistry, tool

    registry = ToolRegistry([tool(spin), tool(nap, resources={"num_cpus": CPU_SLOTS / IO_SLOTS})])
    remote = ToolExecutor(registry, backend=backend)
    bare_spin = ray.remote(num_cpus=1)(spin)
    bare_nap = ray.remote(num_cpus=CPU_SLOTS / IO_SLOTS)(nap)
    remote.execute_all_sync(_calls("spin", cpu_args, 4 * CPU_SLOTS))
    record("cpu", "Ray: executor + RayBackend (2 CPUs)", lambda: _ok(
        remote.execute_all_sync(_calls("spin", cpu_args, count))), CPU_SLOTS)  # fmt: skip
    record("cpu", "Ray: bare tasks, ray.get([spin.remote(...)]) (info)", lambda: ray.get(
        [bare_spin.remote(rounds) for _ in range(count)]), CPU_SLOTS)  # fmt: skip
    # Ray starts the 16 workers of the fractional-CPU tool slowly (a couple at a time):
    # warm them up right before, as Ray stops idle workers beyond one per CPU.
    started = time.perf_counter()
    for _ in range(3):
        remote.execute_all_sync(_calls("nap", io_args, 25 * IO_SLOTS))
    startup["Ray: warming 16 workers for the I/O tool"] = time.perf_counter() - started
    record("io", "Ray: executor + RayBackend (16 x 1/8 CPU)", lambda: _ok(
        remote.execute_all_sync(_calls("nap", io_args, count))), IO_SLOTS)  # fmt: skip
    record("io", "Ray: bare tasks, ray.get([nap.remote(...)]) (info)", lambda: ray.get(
        [bare_nap.remote(IO_S) for _ in range(count)]), IO_SLOTS)  # fmt: skip
    backend.close()
    return rows, startup


def render(rows: dict[str, dict[str, Any]], startup: dict[str, float], count: int) -> list[str]:
    """The Markdown tables."""
    titles = {
        "cpu": f"#### {count:,} calls of a CPU-bound tool (about {CPU_MS:g} ms each), 2 slots",
        "io": f"#### {count:,} calls of an I/O-bound tool ({IO_S * 1e3:g} ms sleep), 16 at a time",
    }
    tables = []
    for workload, cases in rows.items():
        ideal = (
            count
            * (CPU_MS / 1e3 if workload == "cpu" else IO_S)
            / (CPU_SLOTS if workload == "cpu" else IO_SLOTS)
        )
        body = [
            [
                label,
                f"{m['wall']:.2f} s",
                f"{m['throughput']:,.0f}/s",
                f"{m['wall'] / ideal:.2f}{TIMES}",
                f"{m['overhead_us']:,.0f} µs",
                f"{m['memory']:,.0f} MiB",
            ]
            for label, m in cases.items()
        ]
        header = ["Case", "Wall time", "Throughput", "vs ideal", "Overhead per call", "Memory"]
        tables.append(f"{titles[workload]} (ideal {ideal:.1f} s)\n\n{render_table(header, body)}")
    lines = [f"| {what} | {seconds:.2f} s |" for what, seconds in startup.items()]
    tables.append("#### Start-up (not in the tables above)\n\n| What | Time |\n|---|---|\n" + (
        "\n".join(lines)))  # fmt: skip
    return tables


def run(count: int = CALLS) -> list[str]:
    """Measure and render (``bench/run_all.py`` does not run this: it needs minutes)."""
    rows, startup = run_cases(count)
    return render(rows, startup, count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=CALLS, help="calls per case (10,000)")
    args = parser.parse_args()
    import platform

    print(
        f"Python {platform.python_version()}, {platform.platform()}, {os.cpu_count()} CPUs, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n",
        flush=True,
    )
    for table in run(args.calls):
        print(table, end="\n\n", flush=True)


if __name__ == "__main__":
    main()
