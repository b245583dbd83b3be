"""Run the official MCP conformance suite against forge-tools' MCP server and client.

Usage: ``python bench/conformance.py [--json] [--scenario NAME ...]`` from the repository
root, with forge-tools installed (``pip install -e '.[dev]'``) and npm on the ``PATH``.

The suite (``@modelcontextprotocol/conformance``) needs Node.js 22 or newer; both are
installed with npm into ``.cache/conformance`` on first use (Node from the npm package
``node-<os>-<arch>``), so only npm itself is required. Server scenarios run against
``forge-tools serve --transport http`` serving ``_conformance_tools.py``; client scenarios
run ``_conformance_client.py`` (forge-tools' ``import_tools``) against the suite's servers.
Each scenario runs on its own and is reported as pass (with the suite's warnings), fail,
not applicable, or not yet, with the reason. The exit code is 1 if a scenario
failed that this file does not list as not applicable or not yet.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from filelock import FileLock

BENCH = Path(__file__).resolve().parent
HOME = BENCH.parent / ".cache" / "conformance"
SUITE = "@modelcontextprotocol/conformance@0.1.16"
NODE_MAJOR = 22
URL_RE = re.compile(r"(http://\S+/mcp)")

NOT_YET: dict[str, str] = {}
_TOOLS_ONLY = "forge-tools serves tools only, no {}"
NOT_APPLICABLE = {
    "completion-complete": _TOOLS_ONLY.format("prompts or resource templates to complete"),
    "resources-*": _TOOLS_ONLY.format("resources"),
    "prompts-*": _TOOLS_ONLY.format("prompts"),
    "elicitation-sep1034-client-defaults": (
        "the client imports tools for a model; it declares no elicitation capability"
    ),
    "auth/*": "the client sends a fixed bearer token (token=...); it runs no OAuth flow",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """One scenario's result."""

    side: str
    """``server`` (forge-tools serve under test) or ``client`` (import_tools under test)."""
    scenario: str
    """The suite's scenario name."""
    verdict: str
    """``pass``, ``fail``, ``not applicable`` or ``not yet``."""
    why: str
    """The warnings of a pass, the first failed check, or why the scenario does not apply."""


def main(argv: Sequence[str] | None = None) -> int:
    """Install what is missing, run the scenarios and print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", action="append", help="Only this scenario (repeatable).")
    parser.add_argument("--json", action="store_true", help="Print JSON instead of Markdown.")
    parser.add_argument("--jobs", type=int, default=2, help="Client scenarios run at once.")
    args = parser.parse_args(argv)
    node, cli = install()
    chosen = set(args.scenario or ())
    outcomes = run_all(node, cli, chosen, jobs=args.jobs)
    if args.json:
        print(json.dumps([asdict(o) for o in outcomes], indent=2))
    else:
        print(table(outcomes))
    return 1 if any(o.verdict == "fail" for o in outcomes) else 0


# -- installing Node.js 22 and the suite with npm ---------------------------------------------


def install() -> tuple[Path, Path]:
    """Return (node, the suite's CLI script), installing them under ``.cache/`` if missing."""
    package = _node_package()
    node = HOME / "node_modules" / package / "bin" / "node"
    cli = HOME / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
    stamp = HOME / "installed.txt"
    wanted = f"{package}@{NODE_MAJOR} {SUITE}"

    def ready() -> bool:
        return stamp.is_file() and stamp.read_text() == wanted and node.is_file() and cli.is_file()

    if ready():
        return node, cli
    HOME.mkdir(parents=True, exist_ok=True)
    # Test workers running side by side wait for one install instead of racing npm.
    with FileLock(HOME.parent / "conformance.lock"):
        if ready():
            return node, cli
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit(
                "npm is not installed: it is needed to install Node.js 22 and the suite"
            )
        subprocess.run(
            [npm, "install", "--prefix", str(HOME), "--no-audit", "--no-fund",
             "--loglevel=error", f"{package}@{NODE_MAJOR}", SUITE],
            check=True, timeout=600, env=_npm_env(), stdout=sys.stderr,
        )  # fmt: skip
        stamp.write_text(wanted)
    return node, cli


def _node_package() -> str:
    system = {"linux": "linux", "darwin": "darwin", "win32": "win"}.get(sys.platform, sys.platform)
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(machine, machine)
    return f"node-{system}-{arch}"


def _npm_env() -> dict[str, str]:
    return {**os.environ, "npm_config_cache": str(HOME.parent / "npm"),
            "npm_config_update_notifier": "false"}  # fmt: skip


# -- running the scenarios --------------------------------------------------------------------


def run_all(node: Path, cli: Path, chosen: set[str], *, jobs: int = 2) -> list[Outcome]:
    """Run every (chosen) server scenario, then every (chosen) client scenario.

    Client scenarios check reconnection timing (``sse-retry``), so ``jobs`` of them run at
    once; on a loaded machine use 1.
    """
    servers = [s for s in scenarios(node, cli, "server") if not chosen or s in chosen]
    clients = [s for s in scenarios(node, cli, "client") if not chosen or s in chosen]
    unknown = chosen - set(servers) - set(clients)
    if unknown:
        raise SystemExit(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="forge-conformance-") as out:
        if servers:
            with forge_server() as url:
                outcomes += _each(servers, lambda s: run_server(node, cli, url, s, Path(out)), 4)
        client = shlex.join([sys.executable, str(BENCH / "_conformance_client.py")])
        outcomes += _each(clients, lambda s: run_client(node, cli, client, s, Path(out)), jobs)
    return outcomes


def _each(names: list[str], run: Callable[[str], Outcome], workers: int) -> list[Outcome]:
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(run, names))


def scenarios(node: Path, cli: Path, side: str) -> list[str]:
    """The suite's scenario names for ``side``, in its order."""
    listed = _suite(node, cli, "list", f"--{side}").stdout
    return re.findall(r"^\s+- (\S+)", listed, flags=re.MULTILINE)


def run_server(node: Path, cli: Path, url: str, scenario: str, out: Path) -> Outcome:
    """Run one server scenario against ``url``."""
    where = out / "server" / scenario
    done = _suite(node, cli, "server", "--url", url, "--scenario", scenario, "-o", str(where))
    return judge("server", scenario, where, done)


def run_client(node: Path, cli: Path, command: str, scenario: str, out: Path) -> Outcome:
    """Run one client scenario with ``command`` as the client."""
    where = out / "client" / scenario
    done = _suite(node, cli, "client", "--command", command, "--scenario", scenario,
                  "--timeout", "20000", "-o", str(where))  # fmt: skip
    return judge("client", scenario, where, done)


def _suite(node: Path, cli: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{node.parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": _pythonpath(), "NO_COLOR": "1"}  # fmt: skip
    return subprocess.run(
        [str(node), str(cli), *args], capture_output=True, text=True, timeout=300, env=env,
        check=False,
    )  # fmt: skip


def _pythonpath() -> str:
    parts = [str(BENCH), os.environ.get("PYTHONPATH", "")]
    return os.pathsep.join(p for p in parts if p)


@contextmanager
def forge_server() -> Iterator[str]:
    """``forge-tools serve --transport http`` on a free port, serving the conformance tools."""
    process = subprocess.Popen(
        [sys.executable, "-m", "forge.cli", "serve", "--transport", "http", "--port", "0",
         "--tools", "_conformance_tools:registry"],
        env={**os.environ, "PYTHONPATH": _pythonpath()},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        yield _read_url(process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
        if process.stderr is not None:
            process.stderr.close()


def _read_url(process: subprocess.Popen[str]) -> str:
    assert process.stderr is not None
    lines = []
    for _ in range(50):  # the URL is the first line; a crash prints a few more
        line = process.stderr.readline()
        if not line:
            break
        lines.append(line)
        found = URL_RE.search(line)
        if found:
            return found.group(1)
    raise SystemExit("forge-tools serve did not start:\n" + "".join(lines))


# -- judging and printing ---------------------------------------------------------------------


def judge(side: str, scenario: str, where: Path, done: subprocess.CompletedProcess[str]) -> Outcome:
    """Read a scenario's ``checks.json`` and decide its verdict."""
    found = sorted(where.rglob("checks.json"))
    if not found:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return _failed(side, scenario, f"the suite wrote no results ({tail[0][:150]})")
    checks = json.loads(found[0].read_text())
    failures = [c for c in checks if c.get("status") == "FAILURE"]
    warnings = [c for c in checks if c.get("status") == "WARNING"]
    if failures:
        return _failed(side, scenario, _message(failures[0]))
    why = "; ".join(_message(w) for w in warnings)
    return Outcome(side=side, scenario=scenario, verdict="pass",
                   why=f"{len(warnings)} warning(s): {why}" if warnings else "")  # fmt: skip


def _failed(side: str, scenario: str, message: str) -> Outcome:
    if scenario in NOT_YET:
        return Outcome(side=side, scenario=scenario, verdict="not yet",
                       why=NOT_YET[scenario])  # fmt: skip
    reason = _not_applicable(scenario)
    if reason is not None:
        return Outcome(side=side, scenario=scenario, verdict="not applicable", why=reason)
    return Outcome(side=side, scenario=scenario, verdict="fail", why=message)


def _not_applicable(scenario: str) -> str | None:
    for pattern, reason in NOT_APPLICABLE.items():
        if scenario == pattern or (pattern.endswith("*") and scenario.startswith(pattern[:-1])):
            return reason
    return None


def _message(check: dict[str, object]) -> str:
    text = str(check.get("errorMessage") or check.get("description") or check.get("id"))
    return " ".join(text.split())[:200]


def table(outcomes: Sequence[Outcome]) -> str:
    """The outcomes as a Markdown table."""
    rows = ["| side | scenario | result | why |", "|---|---|---|---|"]
    rows += [f"| {o.side} | `{o.scenario}` | {o.verdict} | {o.why.replace('|', '/')} |"
             for o in outcomes]  # fmt: skip
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
