"""Rebuild ``corpora/mcp-tools/`` from a checkout of LiveMCPBench (see ``README.md`` here).

Usage::

    python corpora/mcp-tools/trim.py PATH/TO/LiveMCPBench [DEST]

``DEST`` defaults to this script's folder. Two upstream files are read:

* ``tools/LiveMCPTool/tools.json``: 70 MCP servers and the tool list each answered to
  ``tools/list``. Written as ``tools.jsonl``, one tool a line in upstream order, keeping the
  server's key (its ``mcpServers`` entry), the server's title and category, and the tool's
  ``name``, ``description`` and ``inputSchema`` verbatim; the servers' launch configuration, web
  links and the tools' (all empty) ``annotations`` are dropped.
* ``baseline/annotation/claude-sonnet-4-20250514_Qwen3-Embedding-0.6B.json``: the 95 tasks with
  their human annotation. Written as ``questions.jsonl``, keeping the task id, the question, its
  category, the annotated tools and the annotated steps (the ``Tools`` and ``Steps`` fields
  split into lines, the ``1.`` numbering removed); the answers and the recorded model
  conversation are dropped.
  A task is left out when one of its annotated tools names no tool of the catalogue (the names
  are printed).

``SHA256SUMS`` is written for the two files produced.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

TOOLS = Path("tools/LiveMCPTool/tools.json")
TASKS = Path("baseline/annotation/claude-sonnet-4-20250514_Qwen3-Embedding-0.6B.json")
_NUMBERING = re.compile(r"^\s*\d+\.\s*")


def catalogue(servers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per tool, in upstream order."""
    out = []
    for server in servers:
        for key, listing in server["tools"].items():
            for tool in listing["tools"]:
                out.append({
                    "server": key,
                    "server_title": server["name"],
                    "category": server["category"],
                    "name": tool["name"],
                    "description": tool.get("description") or "",
                    "inputSchema": tool["inputSchema"],
                })  # fmt: skip
    return out


def annotated_tools(text: str) -> list[str]:
    """The lines of an annotation's ``Tools`` or ``Steps`` field, in order, unnumbered."""
    return [_NUMBERING.sub("", line).strip() for line in text.splitlines() if line.strip()]


def questions(tasks: list[dict[str, Any]], known: set[str]) -> list[dict[str, Any]]:
    """One record per task whose every annotated tool is in the catalogue."""
    out = []
    for task in tasks:
        needed = annotated_tools(task["Annotator Metadata"]["Tools"])
        unknown = [name for name in needed if name not in known]
        if unknown:
            print(f"left out {task['task_id']}: no tool named {', '.join(unknown)}")
            continue
        out.append({
            "id": task["task_id"],
            "question": task["Question"],
            "category": task["category"],
            "tools": needed,
            "steps": annotated_tools(task["Annotator Metadata"]["Steps"]),
        })  # fmt: skip
    return out


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    """One compact JSON object a line, non-ASCII text kept as it is."""
    lines = (json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in records)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def main(source: Path, dest: Path) -> None:
    """Write ``tools.jsonl``, ``questions.jsonl`` and ``SHA256SUMS`` into ``dest``."""
    tools = catalogue(json.loads((source / TOOLS).read_text(encoding="utf-8")))
    tasks = json.loads((source / TASKS).read_text(encoding="utf-8"))
    kept = questions(tasks, {t["name"] for t in tools})
    write_jsonl(dest / "tools.jsonl", tools)
    write_jsonl(dest / "questions.jsonl", kept)
    sums = [
        f"{hashlib.sha256((dest / name).read_bytes()).hexdigest()}  {name}\n"
        for name in ("questions.jsonl", "tools.jsonl")
    ]
    (dest / "SHA256SUMS").write_text("".join(sums), encoding="utf-8")
    print(f"{len(tools)} tools, {len(kept)} of {len(tasks)} questions")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) == 3 else Path(__file__).parent)
