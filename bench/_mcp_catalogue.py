"""The LiveMCPBench catalogue in ``corpora/mcp-tools/``: 527 real MCP tools, 90 labelled tasks.

Each tool is registered as a schema-only tool named ``<server>__<tool>`` (characters a tool
name cannot hold become ``_``; a name starting with a digit gets a leading ``_``), the way a
gateway prefixes each server's tools (the 19 tools without a description get their name as one,
as a tool must have one). A task is labelled with tool *names* as the annotators
wrote them, without the server (``write_file`` is on two servers), so a needed tool counts as
revealed when any tool of that name is.

The tasks are split by their category, a fixed and named rule: `DEVELOPMENT` (the only tasks
any choice of the benchmark may look at) and `HELD_OUT` (reported; never used for a choice).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

#: The catalogue's folder (see its README.md for the source and how it was trimmed).
FOLDER = Path(__file__).resolve().parent.parent / "corpora" / "mcp-tools"
#: Task categories whose questions may be used to choose k (and nothing else).
DEVELOPMENT = ("travel", "shopping")
#: Task categories that are only ever measured.
HELD_OUT = ("work", "daily", "entertainment", "financing")

_BAD = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class Question:
    """One annotated task: its text and the tool names the annotators said it needs."""

    id: str
    text: str
    category: str
    needed: frozenset[str]
    #: The annotators' plan, one line per step (written knowing the tools: never a query of
    #: the measured searches, only of the reference row that shows what better queries give).
    steps: tuple[str, ...]


@dataclass(frozen=True)
class Catalogue:
    """The tools (as records), the original tool name of each, and the labelled tasks."""

    tools: tuple[dict[str, Any], ...]
    original: dict[str, str]
    questions: tuple[Question, ...]

    def part(self, categories: tuple[str, ...]) -> list[Question]:
        """The questions of these categories, in file order."""
        return [q for q in self.questions if q.category in categories]


def _read_jsonl(name: str) -> list[dict[str, Any]]:
    path = FOLDER / name
    if not path.is_file():
        raise SystemExit(f"{path} is missing: corpora/ is part of the repository")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def tool_name(server: str, tool: str) -> str:
    """The registry name of a server's tool: ``<server>__<tool>``, cut to 64 characters."""
    name = f"{_BAD.sub('_', server)}__{_BAD.sub('_', tool)}"
    return ("_" + name if name[0].isdigit() else name)[:64]


@cache
def load() -> Catalogue:
    """Read the catalogue; raise when a name repeats or a label names no tool."""
    tools, original = [], {}
    for line in _read_jsonl("tools.jsonl"):
        name = tool_name(line["server"], line["name"])
        if name in original:
            raise ValueError(f"two tools of the catalogue are both named {name!r}")
        original[name] = line["name"]
        tools.append({**line, "registry_name": name})
    known = set(original.values())
    questions = []
    for line in _read_jsonl("questions.jsonl"):
        unknown = sorted(set(line["tools"]) - known)
        if unknown:
            raise ValueError(f"task {line['id']} needs {unknown}, which no catalogue tool is")
        questions.append(
            Question(line["id"], line["question"], line["category"],
                     frozenset(line["tools"]), tuple(line["steps"]))
        )  # fmt: skip
    return Catalogue(tuple(tools), original, tuple(questions))


def _no_server(arguments: dict[str, Any]) -> str:
    """The handler of every catalogue tool: the measurement lists tools, it never calls them."""
    return f"no MCP server is connected to this catalogue entry (arguments: {arguments})"


def registry(catalogue: Catalogue) -> Any:
    """A `ToolRegistry` holding every catalogue tool as a schema-only tool."""
    from forge.tools import ToolRegistry, from_record
    from forge.tools.importers.normalize import normalize_schema

    out = []
    for tool in catalogue.tools:
        schema, _notes = normalize_schema(tool["inputSchema"], tool["name"])
        record = {"name": tool["registry_name"], "description": tool["description"] or tool["name"],
                  "parameters": schema, "handler": _no_server}  # fmt: skip
        out.append(from_record(record))
    return ToolRegistry(out)
