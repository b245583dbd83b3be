"""The tool-retrieval collection in ``corpora/retrieval/``: loading, the split, the metrics.

Each set is a folder with ``tools.jsonl`` (``name``, ``description``, optional ``parameters``
JSON Schema) and ``queries.jsonl`` (``id``, ``query``, ``tools``: the names of every tool the
question needs); ``corpora/retrieval/README.md`` says where each comes from.

`SPLIT` is the one place that says which sets may be used for fitting or tuning anything
(``"development"``) and which never may (``"held-out"``): the held-out ones differ in style
from each other and from the development ones, so a ranking that only learnt one style shows.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from _harness import CORPORA

#: Where the sets live.
RETRIEVAL = CORPORA / "retrieval"

#: Every set and its role. Development sets may be fitted and tuned on; held-out sets may only
#: be measured, never used to choose anything (a weight, a feature, a threshold, a model).
SPLIT: dict[str, Literal["development", "held-out"]] = {
    "sealtools": "development",  # self-instructed APIs with parameters, multi-step requests
    "metatool": "development",  # ChatGPT plugins, one-line descriptions, paired intents
    "toolbench": "development",  # an API marketplace (RapidAPI): terse endpoints, multi-intent
    "hammerbench-zh": "development",  # Chinese mobile-app requests, English dotted names
    "bfcl-zhtw": "development",  # BFCL parallel_multiple, requests in Traditional Chinese
    "nestools": "development",  # nested calls: later calls take earlier results
    "nestful": "development",  # RapidAPI/SGD call chains whose lookups the request leaves out
    "apibench-hf": "held-out",  # an ML model hub: task descriptions against model cards
    "restbench": "held-out",  # REST endpoints; requests need a lookup step they do not name
    "acebench-zh": "held-out",  # Chinese requests and descriptions, English function names
}
DEVELOPMENT = tuple(name for name, role in SPLIT.items() if role == "development")
HELD_OUT = tuple(name for name, role in SPLIT.items() if role == "held-out")

#: The most results a ranker is asked for; every metric reads at most this far.
DEPTH = 10


class RetrievalDataError(ValueError):
    """A retrieval set's files are missing or malformed; the message names file and line."""


@dataclass(frozen=True)
class RetrievalTool:
    """One tool of a set, as the dataset defines it (``parameters`` ``None``: none given)."""

    name: str
    description: str
    parameters: dict[str, Any] | None


@dataclass(frozen=True)
class Question:
    """One question and the names of every tool it needs."""

    id: str
    query: str
    tools: tuple[str, ...]


@dataclass(frozen=True)
class RetrievalSet:
    """A loaded set: its tools (names unique) and its questions (tools all defined)."""

    name: str
    tools: tuple[RetrievalTool, ...]
    questions: tuple[Question, ...]

    @property
    def role(self) -> str:
        """``"development"`` or ``"held-out"`` (from `SPLIT`)."""
        return SPLIT.get(self.name, "held-out")


def _lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise RetrievalDataError(f"{path}: missing (corpora/ is part of the repository)")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RetrievalDataError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise RetrievalDataError(f"{path}:{number}: expected an object, got {row!r:.60}")
        rows.append((number, row))
    return rows


def _text(path: Path, number: int, row: dict[str, Any], key: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RetrievalDataError(f"{path}:{number}: '{key}' must be a non-empty string")
    return value


def load_set(name: str, root: Path = RETRIEVAL) -> RetrievalSet:
    """Read set ``name`` from ``root/name/``.

    Raises:
        RetrievalDataError: A file is missing, a line is not a JSON object, a field is missing
            or empty, a tool name repeats, or a question names a tool the set does not define.
    """
    folder = root / name
    tools_path, queries_path = folder / "tools.jsonl", folder / "queries.jsonl"
    tools: dict[str, RetrievalTool] = {}
    for number, row in _lines(tools_path):
        tool_name = _text(tools_path, number, row, "name")
        if tool_name in tools:
            raise RetrievalDataError(f"{tools_path}:{number}: tool {tool_name!r} defined twice")
        parameters = row.get("parameters")
        if parameters is not None and not isinstance(parameters, dict):
            raise RetrievalDataError(f"{tools_path}:{number}: 'parameters' must be an object")
        description = row.get("description")
        if not isinstance(description, str):
            raise RetrievalDataError(f"{tools_path}:{number}: 'description' must be a string")
        tools[tool_name] = RetrievalTool(tool_name, description, parameters)
    questions = []
    for number, row in _lines(queries_path):
        needed = row.get("tools")
        if not isinstance(needed, list) or not needed:
            raise RetrievalDataError(f"{queries_path}:{number}: 'tools' must be a non-empty list")
        unknown = [tool for tool in needed if tool not in tools]
        if unknown:
            raise RetrievalDataError(
                f"{queries_path}:{number}: needs {unknown[0]!r}, which tools.jsonl does not define"
            )
        questions.append(
            Question(
                str(row.get("id", number)),
                _text(queries_path, number, row, "query"),
                tuple(dict.fromkeys(needed)),
            )
        )
    if not tools or not questions:
        raise RetrievalDataError(f"{folder}: a set needs at least one tool and one question")
    return RetrievalSet(name, tuple(tools.values()), tuple(questions))


def available_sets(root: Path = RETRIEVAL) -> list[str]:
    """The sets of `SPLIT`, development first, that have a folder under ``root``."""
    return [name for name in (*DEVELOPMENT, *HELD_OUT) if (root / name).is_dir()]


# --------------------------------------------------------------------------- registry

_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]+")
#: The parameters of a tool whose dataset defines none: an object without properties.
EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def registry_names(names: Sequence[str]) -> list[str]:
    """A valid, unique tool name for each dataset name, in order.

    Characters a tool name cannot hold become ``_``, the result is cut to 56 characters,
    starts with a letter or ``_`` and gets ``__2``, ``__3``... when an earlier one took it.
    """
    used: set[str] = set()
    out = []
    for name in names:
        base = _NOT_IN_NAME.sub("_", name).strip("_")[:56] or "tool"
        base = base if re.match(r"[A-Za-z_]", base) else "_" + base
        candidate, number = base, 1
        while candidate in used:
            number += 1
            candidate = f"{base}__{number}"
        used.add(candidate)
        out.append(candidate)
    return out


def build_registry(dataset: RetrievalSet) -> tuple[Any, dict[str, str]]:
    """A `ToolRegistry` of the set's tools, and each registered name's dataset name.

    A tool keeps its dataset name when that is a valid tool name; otherwise it is registered
    under `registry_names`' spelling with the dataset name as its display name. Tools without
    parameters are schema-only tools with `EMPTY_SCHEMA`.
    """
    from forge.tools import ToolRegistry, from_record

    names = registry_names([tool.name for tool in dataset.tools])
    records = []
    for name, tool in zip(names, dataset.tools, strict=True):
        record: dict[str, Any] = {
            "name": name,
            "description": tool.description.strip() or tool.name,
            "parameters": tool.parameters if tool.parameters is not None else EMPTY_SCHEMA,
            "handler": _echo,
        }
        if name != tool.name:
            record["display_name"] = tool.name
        records.append(from_record(record))
    original = {name: tool.name for name, tool in zip(names, dataset.tools, strict=True)}
    return ToolRegistry(records), original


def _echo(arguments: dict[str, Any]) -> dict[str, Any]:
    return arguments


# --------------------------------------------------------------------------- metrics


def all_found(ranked: Sequence[str], needed: Sequence[str], k: int) -> bool:
    """Whether every needed tool is among the first ``k`` results."""
    top = set(ranked[:k])
    return all(tool in top for tool in needed)


def share_found(ranked: Sequence[str], needed: Sequence[str], k: int) -> float:
    """The share of the needed tools that are among the first ``k`` results."""
    top = set(ranked[:k])
    return sum(tool in top for tool in needed) / len(needed)


@dataclass(frozen=True)
class Scores:
    """One ranker on one set.

    ``recall`` maps k to the share of single-tool questions whose tool is in the top k
    (``None`` without single-tool questions); ``share_at_5`` is the mean share of needed tools
    in the top 5 over every question (standard IR recall@5: a question that needs three tools
    and finds two counts 2/3); ``multi_share`` is the mean share of needed tools
    in the top `DEPTH` over multi-tool questions and ``multi_all`` the share of those with all
    of them there (``None`` without multi-tool questions). ``empty`` counts questions that got
    no result at all; ``median_ms`` is the median time per question.
    """

    single: int
    multi: int
    recall: dict[int, float | None]
    share_at_5: float
    multi_share: float | None
    multi_all: float | None
    empty: int
    median_ms: float


RECALL_AT = (1, 5, DEPTH)


def score(
    questions: Sequence[Question], ranked: Sequence[Sequence[str]], seconds: Sequence[float]
) -> Scores:
    """Score ranked name lists (one per question, same order) and their times."""
    if not (len(questions) == len(ranked) == len(seconds)) or not questions:
        raise ValueError("score() needs one ranked list and one time per question, at least one")
    single = [(q, r) for q, r in zip(questions, ranked, strict=True) if len(q.tools) == 1]
    multi = [(q, r) for q, r in zip(questions, ranked, strict=True) if len(q.tools) > 1]

    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    return Scores(
        single=len(single),
        multi=len(multi),
        recall={k: mean([float(all_found(r, q.tools, k)) for q, r in single]) for k in RECALL_AT},
        share_at_5=sum(share_found(r, q.tools, 5) for q, r in zip(questions, ranked, strict=True))
        / len(questions),
        multi_share=mean([share_found(r, q.tools, DEPTH) for q, r in multi]),
        multi_all=mean([float(all_found(r, q.tools, DEPTH)) for q, r in multi]),
        empty=sum(not r for r in ranked),
        median_ms=statistics.median(seconds) * 1e3,
    )


Ranker = Callable[[str], list[str]]
