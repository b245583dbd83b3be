"""Command lines for the MCP servers nobody here wrote, as the acceptance tests start them.

The PyPI servers ``mcp-server-time``, ``-git`` and ``-fetch`` are test dependencies (the
``dev`` extra) and run from this environment. ``mcp-server-sqlite`` (its last release,
2025.4.25) is written against the 1.x SDK and crashes at start-up under ``mcp>=2``, so it
gets a virtual environment of its own under ``.cache/`` with ``mcp<2``, made by pip on first
use. The npm servers run with ``npx -y``, their packages cached under ``.cache/npm``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

from filelock import FileLock

ROOT = Path(__file__).resolve().parents[4]
CACHE = ROOT / ".cache"
BIN = Path(sys.executable).parent
SQLITE_REQUIREMENTS = ("mcp-server-sqlite==2025.4.25", "mcp>=1.6,<2")
NPM_SERVERS = {
    "everything": "@modelcontextprotocol/server-everything@2026.8.31",
    "filesystem": "@modelcontextprotocol/server-filesystem@2026.8.31",
    "memory": "@modelcontextprotocol/server-memory@2026.8.31",
}
NODE_MISSING = "Node.js (node and npx) is not installed, so the npm MCP servers cannot run"


def time_server() -> list[str]:
    """``mcp-server-time`` with a fixed local time zone."""
    return [str(BIN / "mcp-server-time"), "--local-timezone", "UTC"]


def git_server(repository: Path) -> list[str]:
    """``mcp-server-git`` confined to ``repository``."""
    return [str(BIN / "mcp-server-git"), "--repository", str(repository)]


def fetch_server() -> list[str]:
    """``mcp-server-fetch`` allowed to reach 127.0.0.1 (the tests' only web server)."""
    return [str(BIN / "mcp-server-fetch"), "--allow-private-ips", "--ignore-robots-txt"]


def sqlite_server(database: Path) -> list[str]:
    """``mcp-server-sqlite`` on ``database``, from its own environment (made if missing)."""
    return [str(_sqlite_env() / "bin" / "mcp-server-sqlite"), "--db-path", str(database)]


def _sqlite_env() -> Path:
    home = CACHE / "pypi-servers" / "sqlite"
    stamp = home / "installed.txt"
    wanted = "\n".join(SQLITE_REQUIREMENTS)
    if stamp.is_file() and stamp.read_text() == wanted:
        return home
    home.parent.mkdir(parents=True, exist_ok=True)
    # Test workers running side by side wait for one install instead of racing pip.
    with FileLock(home.parent / "sqlite.lock"):
        if stamp.is_file() and stamp.read_text() == wanted:
            return home
        shutil.rmtree(home, ignore_errors=True)
        venv.create(home, with_pip=True)
        subprocess.run(
            [str(home / "bin" / "python"), "-m", "pip", "install", "--quiet",
             *SQLITE_REQUIREMENTS],
            check=True, timeout=600,
        )  # fmt: skip
        stamp.write_text(wanted)
    return home


def git_repository(path: Path) -> Path:
    """Make a git repository at ``path`` with one commit and one untracked file."""
    path.mkdir(parents=True, exist_ok=True)

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True, timeout=30)

    git("init", "--quiet", "--initial-branch", "main")
    (path / "README.md").write_text("# forge\n")
    git("add", "README.md")
    git("-c", "user.name=Forge Test", "-c", "user.email=forge@example.invalid",
        "commit", "--quiet", "-m", "first commit of the acceptance test")  # fmt: skip
    (path / "notes.txt").write_text("not yet added\n")
    return path


def node_available() -> bool:
    """Whether ``node`` and ``npx`` are on the ``PATH``."""
    return shutil.which("node") is not None and shutil.which("npx") is not None


def npm_env() -> dict[str, str]:
    """Variables that keep npm's cache in ``.cache/npm`` and its output quiet."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "npm_config_cache": str(CACHE / "npm"),
        "npm_config_update_notifier": "false",
        "npm_config_fund": "false",
        "npm_config_audit": "false",
    }


def npx_server(name: str, *args: str) -> list[str]:
    """The ``npx -y`` command line that starts the npm server ``name``."""
    npx = shutil.which("npx")
    assert npx is not None, NODE_MISSING
    return [npx, "-y", NPM_SERVERS[name], *args]
