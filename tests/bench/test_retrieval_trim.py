"""The fixed selection rule of ``corpora/retrieval/trim.py`` (questions and tools kept)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "corpora" / "retrieval" / "trim.py"


@pytest.fixture(scope="module")
def trim() -> ModuleType:
    spec = importlib.util.spec_from_file_location("retrieval_trim", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def question(number: int, tools: list[str], text: str = "") -> dict[str, Any]:
    return {"id": str(number), "query": text or f"question {number}", "tools": tools}


def test_questions_capped_by_kind_in_hash_order(trim: ModuleType) -> None:
    """At most 250 single-tool and 250 multi-tool; the other kind fills up; repeats dropped."""
    tools = [{"name": "a"}, {"name": "b"}]
    many_single = [question(n, ["a"]) for n in range(600)]
    few_multi = [question(1000 + n, ["a", "b"]) for n in range(100)]
    duplicate = question(5000, ["a"], text="question  7")  # same text as question 7
    unknown = question(5001, ["zzz"])
    kept = trim.choose("s", tools, [*many_single, *few_multi, duplicate, unknown])
    assert len(kept) == 500
    assert sum(len(q["tools"]) > 1 for q in kept) == 100
    ids = [q["id"] for q in kept]
    assert "5000" not in ids
    assert "5001" not in ids
    assert ids == sorted(ids, key=lambda i: trim.digest(f"s:{i}"))
    assert trim.choose("s", tools, [*many_single, *few_multi]) == kept  # deterministic


def test_tools_capped_keeping_every_needed_one(trim: ModuleType, monkeypatch: Any) -> None:
    monkeypatch.setattr(trim, "MAX_TOOLS", 5)
    tools = [{"name": f"t{n}"} for n in range(20)]
    kept = trim.cap_tools("s", tools, [question(1, ["t19", "t3"])])
    names = [tool["name"] for tool in kept]
    assert len(names) == 5
    assert {"t19", "t3"} <= set(names)
    assert names == sorted(names, key=lambda n: int(n[1:]))  # original order


def test_type_names_become_json_schema_types(trim: ModuleType) -> None:
    schema = {"type": "dict", "properties": {"x": {"type": "list", "items": {"type": "str"}}}}
    assert trim.json_types(schema) == {
        "type": "object", "properties": {"x": {"type": "array", "items": {"type": "string"}}}
    }  # fmt: skip
    loose = {"type": "dict", "properties": {"p": {"type": "tuple"}, "v": {"type": "any"}}}
    assert trim.json_types(loose) == {
        "type": "object",
        "properties": {"p": {"type": "array"}, "v": {}},
    }
    assert trim.parameter("STRING", " the id ") == {"type": "string", "description": "the id"}
    assert trim.parameter("DATE (YYYY-MM-DD)", None) == {}


def test_rebuilds_a_set_from_a_checkout(trim: ModuleType, tmp_path: Path) -> None:
    """The MetaTool reader on a tiny checkout of the same layout writes the common form."""
    root = tmp_path / "checkout"
    (root / "dataset" / "data").mkdir(parents=True)
    (root / "LICENSE").write_text("MIT\n", encoding="utf-8")
    (root / "dataset" / "plugin_des.json").write_text(
        json.dumps({"NewsTool": "Latest news.", "FinanceTool": "Stock  prices."}), "utf-8"
    )
    (root / "dataset" / "data" / "all_clean_data.csv").write_text(
        "Query,Tool\nWhat happened today?,NewsTool\n", encoding="utf-8"
    )
    (root / "dataset" / "data" / "multi_tool_query_golden.json").write_text(
        json.dumps([{"query": "News on Apple stock", "tool": ["FinanceTool", "NewsTool"]}]), "utf-8"
    )
    dest = tmp_path / "metatool"
    assert trim.trim("metatool", root, dest) == (2, 2)
    rows = [json.loads(line) for line in (dest / "queries.jsonl").read_text("utf-8").splitlines()]
    assert {row["id"]: row["tools"] for row in rows} == {
        "single-0": ["NewsTool"], "multi-0": ["FinanceTool", "NewsTool"]
    }  # fmt: skip
    assert (dest / "tools.jsonl").read_text("utf-8").splitlines()[1] == json.dumps(
        {"name": "FinanceTool", "description": "Stock prices."}
    )
    assert len((dest / "SHA256SUMS").read_text("utf-8").splitlines()) == 3


def test_bfcl_zhtw_reader_counts_repeated_calls_once(trim: ModuleType, tmp_path: Path) -> None:
    """Gold calls ``name_1``, ``name_2`` are one tool; an answer naming no function drops out."""
    root = tmp_path / "checkout"
    for folder in ("zhtw", "possible_answer"):
        (root / "data" / folder).mkdir(parents=True)
    (root / "LICENSE.txt").write_text("Apache\n", encoding="utf-8")
    area = {"name": "area", "description": "Area  of a shape.",
            "parameters": {"type": "dict", "properties": {"r": {"type": "float"}}}}  # fmt: skip
    time = {"name": "clock.now", "description": "The time.", "parameters": {"type": "dict"}}
    items = [
        {"id": "pm_0", "question": "算面積\n再看時間。", "function": [area, time]},
        {"id": "pm_1", "question": "兩個面積", "function": [time, {**area, "description": "x"}]},
        {"id": "pm_2", "question": "找牌", "function": [area]},
    ]
    answers = [
        {"id": "pm_0", "ground_truth": {"clock.now": {}, "area_1": {"r": [1]}, "area_2": {}}},
        {"id": "pm_1", "ground_truth": {"area_1": {"r": [1]}, "area_2": {"r": [2]}}},
        {"id": "pm_2", "ground_truth": {"area": {}, "deck": [[]]}},
    ]
    file = trim._BFCL_PARALLEL_MULTIPLE
    for folder, rows in (("zhtw", items), ("possible_answer", answers)):
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        (root / "data" / folder / file).write_text(text, encoding="utf-8")
    dest = tmp_path / "bfcl-zhtw"
    assert trim.trim("bfcl-zhtw", root, dest) == (2, 2)
    rows = [json.loads(line) for line in (dest / "queries.jsonl").read_text("utf-8").splitlines()]
    assert {row["id"]: (row["query"], row["tools"]) for row in rows} == {
        "pm_0": ("算面積 再看時間。", ["clock.now", "area"]), "pm_1": ("兩個面積", ["area"])
    }  # fmt: skip
    first = json.loads((dest / "tools.jsonl").read_text("utf-8").splitlines()[0])
    assert first == {"name": "area", "description": "Area of a shape.", "parameters": {
        "type": "object", "properties": {"r": {"type": "number"}}}}  # fmt: skip
    assert (dest / "LICENSE").read_text("utf-8") == "Apache\n"


def test_nestools_reader_keeps_call_order_and_drops_redefined_tools(
    trim: ModuleType, tmp_path: Path
) -> None:
    """Tools in call order, once each; an item defining a pooled name differently drops out."""
    root = tmp_path / "checkout"
    (root / "data").mkdir(parents=True)
    (root / "LICENSE").write_text("Apache\n", encoding="utf-8")
    find = {"api_name": "find_movie", "api_description": "Find a  movie.",
            "parameters": {"title": {"type": "str", "description": "its title"}},
            "required": ["title"], "responses": {"movie_id": {"type": "int"}}}  # fmt: skip
    cast = {"api_name": "get_cast", "api_description": "A movie's cast.",
            "parameters": {"movie_id": {"type": "int", "description": "the movie"}},
            "required": ["movie_id"], "responses": {}}  # fmt: skip
    other_find = {**find, "api_description": "Find a film festival."}
    items = [
        {"test_id": 1, "task": "Who plays in\n Alien?", "api": [find, cast], "call": [
            {"api_name": "get_cast", "parameters": {"movie_id": "API_call_0"}},
            {"api_name": "find_movie", "parameters": {"title": "Alien"}},
            {"api_name": "get_cast", "parameters": {"movie_id": "API_call_0"}}]},
        {"test_id": 2, "task": "Cast of the festival film", "api": [other_find, cast], "call": [
            {"api_name": "find_movie", "parameters": {}},
            {"api_name": "get_cast", "parameters": {"movie_id": "API_call_0"}}]},
    ]  # fmt: skip
    text = "".join(json.dumps(row) + "\n" for row in items)
    (root / "data" / "test_data.jsonl").write_text(text, encoding="utf-8")
    dest = tmp_path / "nestools"
    assert trim.trim("nestools", root, dest) == (2, 1)
    rows = [json.loads(line) for line in (dest / "queries.jsonl").read_text("utf-8").splitlines()]
    assert rows == [
        {"id": "test-1", "query": "Who plays in Alien?", "tools": ["get_cast", "find_movie"]}
    ]
    first = json.loads((dest / "tools.jsonl").read_text("utf-8").splitlines()[0])
    assert first == {"name": "find_movie", "description": "Find a movie.", "parameters": {
        "type": "object", "properties": {"title": {"type": "string", "description": "its title"}},
        "required": ["title"]}}  # fmt: skip


def test_nestful_reader_merges_parameter_groups_and_leaves_out_glaive_and_spotify(
    trim: ModuleType, tmp_path: Path
) -> None:
    """Every part's functions pool; Glaive questions and Spotify-calling ones drop out."""
    root = tmp_path / "checkout"
    for part in ("executable", "non-executable"):
        (root / "data" / part).mkdir(parents=True)
    (root / "LICENSE").write_text("Apache\n", encoding="utf-8")
    search = {"name": "SkySearchAirport", "description": "Find an  airport.", "method": "GET",
              "query_parameters": {"query": {"type": "string", "description": "a city",
                                             "required": True}},
              "output_parameters": {"skyId": {"type": "string"}}}  # fmt: skip
    flights = {"name": "SkyFlights", "description": "Flights on a route.",
               "path_parameters": {"origin": {"type": "string", "required": True}},
               "query_parameters": {"date": {"type": "string", "required": False}}}  # fmt: skip
    artist = {"name": "Spotify_Artist", "description": "An artist.", "query_parameters": {}}
    reserve = {"name": "Hotels.Reserve", "description": "Reserve a hotel",
               "arguments": {"hotel": {"description": "its name", "required": True}}}  # fmt: skip
    square = {"name": "square", "description": "Square a number.",
              "parameters": {"x": {"type": "number", "description": "the number"}}}  # fmt: skip
    data = {
        "executable/executable": ([search, flights, artist], [
            {"input": "Flights from\n Oslo", "output": [
                {"name": "SkySearchAirport", "arguments": {"query": "Oslo"}, "label": "var1"},
                {"name": "SkyFlights", "arguments": {"origin": "$var1.skyId$"}, "label": "var2"},
                {"name": "SkySearchAirport", "arguments": {"query": "Rome"}, "label": "var3"},
                {"name": "var_result", "arguments": {"flights": "$var2$"}}]},
            {"input": "Albums of Queen", "output": [
                {"name": "Spotify_Artist", "arguments": {}, "label": "var1"},
                {"name": "var_result", "arguments": {"artist": "$var1$"}}]}]),
        "non-executable/non-executable-sgd": ([reserve], [
            {"input": "Book a hotel", "output": [
                {"name": "Hotels.Reserve", "arguments": {"hotel": "Ritz"}, "label": "var1"}]}]),
        "non-executable/non-executable-glaive": ([square, square], [
            {"input": "Square 3", "output": [{"name": "square", "arguments": {"x": 3}}]}]),
    }  # fmt: skip
    for part, (specs, items) in data.items():
        (root / "data" / f"{part}-spec.json").write_text(json.dumps(specs), encoding="utf-8")
        (root / "data" / f"{part}-data.json").write_text(json.dumps(items), encoding="utf-8")
    dest = tmp_path / "nestful"
    assert trim.trim("nestful", root, dest) == (4, 2)
    rows = [json.loads(line) for line in (dest / "queries.jsonl").read_text("utf-8").splitlines()]
    assert sorted((row["id"], row["query"], row["tools"]) for row in rows) == [
        ("executable-0", "Flights from Oslo", ["SkySearchAirport", "SkyFlights"]),
        ("sgd-0", "Book a hotel", ["Hotels.Reserve"]),
    ]
    tools = [json.loads(line) for line in (dest / "tools.jsonl").read_text("utf-8").splitlines()]
    assert [tool["name"] for tool in tools] == ["SkySearchAirport", "SkyFlights",
                                                "Hotels.Reserve", "square"]  # fmt: skip
    query = {"type": "string", "description": "a city"}
    assert tools[0] == {"name": "SkySearchAirport", "description": "Find an airport.",
                        "parameters": {"type": "object", "properties": {"query": query},
                                       "required": ["query"]}}  # fmt: skip
    origin_date = {"origin": {"type": "string"}, "date": {"type": "string"}}
    assert tools[1]["parameters"] == {"type": "object", "properties": origin_date,
                                      "required": ["origin"]}  # fmt: skip
    assert tools[2]["parameters"]["required"] == ["hotel"]


def test_nestful_reader_refuses_a_function_defined_twice_differently(
    trim: ModuleType, tmp_path: Path
) -> None:
    root = tmp_path / "checkout"
    for part in ("executable", "non-executable"):
        (root / "data" / part).mkdir(parents=True)
    square = {"name": "square", "description": "Square a number."}
    other = {"name": "square", "description": "A square room."}
    for part in ("executable/executable", "non-executable/non-executable-sgd",
                 "non-executable/non-executable-glaive"):  # fmt: skip
        specs = [square, other] if part.endswith("glaive") else []
        (root / "data" / f"{part}-spec.json").write_text(json.dumps(specs), encoding="utf-8")
        (root / "data" / f"{part}-data.json").write_text("[]", encoding="utf-8")
    with pytest.raises(SystemExit, match="square is defined twice, differently"):
        trim.trim("nestful", root, tmp_path / "nestful")
