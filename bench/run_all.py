"""Run every benchmark and print the Markdown tables (``make bench`` runs this file).

Usage: ``python bench/run_all.py`` from the repository root, in an environment with the
``bench`` extra installed (``pip install -e '.[bench]'``). Nothing is written to disk.
"""

from __future__ import annotations

import datetime
import logging
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_deferred
import bench_executor
import bench_first_export
import bench_formats
import bench_foundation
import bench_gateway
import bench_mcp
import bench_parsing
import bench_search
import bench_serve_start
import bench_validators


def header() -> str:
    """One line identifying the interpreter, platform, CPU count and date of the run."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.platform()}, {os.cpu_count()} CPUs, {now}"
    )


def main() -> None:
    """Print the header, then every benchmark's tables as they complete."""
    # Peers configure root logging at INFO (the mcp SDK installs a rich handler); per-request
    # log lines would drown the tables.
    logging.disable(logging.INFO)
    started = time.perf_counter()
    print(f"## forge-tools benchmarks\n\n{header()}\n", flush=True)
    modules = (bench_foundation, bench_validators, bench_formats, bench_first_export,
               bench_parsing, bench_executor, bench_mcp, bench_serve_start, bench_gateway,
               bench_search)  # fmt: skip
    for module in modules:
        for table in module.run():
            print(table, end="\n\n", flush=True)
    print("### Deferred loading on 527 real MCP tools\n", flush=True)
    bench_deferred.main([])  # prints its own tables (about 20 s)
    print(f"_Total benchmark time: {time.perf_counter() - started:.0f} s._")


if __name__ == "__main__":
    main()
