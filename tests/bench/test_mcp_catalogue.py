"""The MCP tool catalogue in ``corpora/mcp-tools/`` (LiveMCPBench): intact, loadable, consistent."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from forge.tools.formats import PROVIDERS, to_provider
from tests.bench._load import bench_module, module_at
from tests.conftest import corpus

FILES = {"LICENSE", "README.md", "SHA256SUMS", "questions.jsonl", "tools.jsonl", "trim.py"}


def read_jsonl(name: str) -> list[dict[str, Any]]:
    text = corpus("mcp-tools", name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_files_match_their_checksums_and_nothing_else_is_there() -> None:
    """Both data files match SHA256SUMS; the folder holds the documented files only."""
    folder = corpus("mcp-tools")
    sums = dict(
        reversed(line.split("  ", 1))
        for line in (folder / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    )
    assert sums.keys() == {"questions.jsonl", "tools.jsonl"}
    for name, digest in sums.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
    assert {p.name for p in folder.iterdir()} == FILES
    assert "Apache License" in (folder / "LICENSE").read_text(encoding="utf-8")


def test_every_labelled_tool_is_a_tool_of_the_catalogue() -> None:
    """Each task's annotated tool names are names of catalogue tools (read from the files)."""
    names = {t["name"] for t in read_jsonl("tools.jsonl")}
    questions = read_jsonl("questions.jsonl")
    assert len(questions) == 90
    for q in questions:
        assert q["tools"], q["id"]
        assert set(q["tools"]) <= names, (q["id"], set(q["tools"]) - names)
        assert q["question"].strip(), q["id"]


def test_the_loader_gives_527_uniquely_named_tools_from_70_servers() -> None:
    """The benchmark's loader: 527 tools, 70 servers, unique names mapped back to the originals."""
    data = bench_module("_mcp_catalogue")
    catalogue = data.load()
    assert len(catalogue.tools) == 527
    assert len({t["server"] for t in catalogue.tools}) == 70
    assert len(catalogue.original) == 527
    assert sorted(catalogue.original.values()) == sorted(
        t["name"] for t in read_jsonl("tools.jsonl")
    )
    development, held_out = catalogue.part(data.DEVELOPMENT), catalogue.part(data.HELD_OUT)
    assert (len(development), len(held_out)) == (21, 69)
    assert not set(data.DEVELOPMENT) & set(data.HELD_OUT)
    assert {q.id for q in development} | {q.id for q in held_out} == {
        q.id for q in catalogue.questions
    }


def test_every_tool_registers_and_converts_for_every_provider() -> None:
    """All 527 real schemas register as tools and convert for each provider, none left out."""
    data = bench_module("_mcp_catalogue")
    registry = data.registry(data.load())
    assert len(registry) == 527
    for provider in PROVIDERS:
        if provider == "langchain":
            continue  # StructuredTool objects: covered by the format tests
        definitions = to_provider(list(registry), provider)
        count = (
            len(definitions[0]["functionDeclarations"])
            if provider == "gemini"
            else len(definitions)
        )
        assert count == 527, provider


def test_the_loader_refuses_a_label_that_names_no_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task labelled with a name no tool has is an error naming the task and the name."""
    data = bench_module("_mcp_catalogue")
    (tmp_path / "tools.jsonl").write_bytes(corpus("mcp-tools", "tools.jsonl").read_bytes())
    bad = {"id": "t1", "question": "q", "category": "work", "tools": ["no_such_tool"], "steps": []}
    (tmp_path / "questions.jsonl").write_text(json.dumps(bad) + "\n", encoding="utf-8")
    monkeypatch.setattr(data, "FOLDER", tmp_path)
    with pytest.raises(ValueError, match=r"task t1 needs \['no_such_tool'\]"):
        data.load.__wrapped__()


def test_trim_reads_numbered_annotation_lines() -> None:
    """The trim script's reading of the annotators' numbered ``Tools`` field."""
    trim = module_at("forge_corpus_mcp_tools_trim", corpus("mcp-tools", "trim.py"))
    text = "1. geocode_address\n2. find_parking_facilities\n\n 3.  reverse_geocode "
    assert trim.annotated_tools(text) == [
        "geocode_address",
        "find_parking_facilities",
        "reverse_geocode",
    ]
