"""Rebuild one folder of ``corpora/retrieval/`` from a checkout of its dataset's repository.

Usage::

    python corpora/retrieval/trim.py SET PATH/TO/CHECKOUT [DEST]

``SET`` is a folder name below (``metatool``, ``sealtools``, ...), ``CHECKOUT`` the root of a
checkout of that dataset's repository at the commit named in ``SET/README.md``, and ``DEST``
defaults to ``corpora/retrieval/SET/`` beside this script. Every set is written in one form:

* ``tools.jsonl``: one tool a line, ``{"name", "description"}`` plus ``"parameters"`` (a JSON
  Schema object) when the dataset defines parameters; names are the dataset's own, unique;
* ``queries.jsonl``: one question a line, ``{"id", "query", "tools"}``, ``tools`` being the
  names of every tool the question needs, in the order the dataset lists them;
* ``LICENSE``: the repository's licence, copied verbatim;
* ``SHA256SUMS`` over the three files above (check with ``sha256sum -c SHA256SUMS``).

Questions are chosen by one fixed rule for every set (`choose`): drop questions whose text
repeats an earlier one or that name a tool the set does not define, order the rest by the
SHA-256 of ``"<set>:<id>"``, and keep the first ``MAX_SINGLE`` that need one tool and the first
``MAX_MULTI`` that need several; when one kind falls short, the other fills up to
``MAX_QUESTIONS``. A set with more than ``MAX_TOOLS`` tools keeps every tool its kept questions
need, then the others in the order of the SHA-256 of ``"<set>:<name>"`` up to ``MAX_TOOLS``.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

MAX_QUESTIONS = 500
MAX_SINGLE = 250
MAX_MULTI = 250
MAX_TOOLS = 2000

Tool = dict[str, Any]
Question = dict[str, Any]


# --------------------------------------------------------------------------- helpers


def read_jsonl(path: Path) -> list[Any]:
    """The JSON value of each non-blank line of ``path``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def unique(names: Iterable[str]) -> list[str]:
    """``names`` without repeats, first occurrence kept."""
    return list(dict.fromkeys(names))


def object_schema(
    properties: dict[str, dict[str, Any]], required: Iterable[str] = ()
) -> dict[str, Any]:
    """A JSON Schema object with these properties and required names (those that exist)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    needed = [name for name in required if name in properties]
    if needed:
        schema["required"] = needed
    return schema


#: The type names datasets write for parameters, as JSON Schema types.
TYPES = {
    "str": "string", "string": "string", "int": "integer", "integer": "integer",
    "float": "number", "number": "number", "double": "number", "bool": "boolean",
    "boolean": "boolean", "list": "array", "array": "array", "tuple": "array",
    "dict": "object", "object": "object",
}  # fmt: skip

#: Type names that allow any value: JSON Schema says that by giving no type at all.
UNTYPED = frozenset({"any"})


def parameter(type_name: Any, description: Any) -> dict[str, Any]:
    """One property: its JSON Schema type when the dataset's type name has one, its text."""
    prop: dict[str, Any] = {}
    json_type = TYPES.get(str(type_name).strip().lower()) if type_name else None
    if json_type:
        prop["type"] = json_type
    if isinstance(description, str) and description.strip():
        prop["description"] = description.strip()
    return prop


def json_types(node: Any) -> Any:
    """A copy of a schema with the dataset's type names (``dict``, ``list``...) as JSON types."""
    if isinstance(node, list):
        return [json_types(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: json_types(value) for key, value in node.items()}
    if isinstance(node.get("type"), str):
        type_name = node["type"].strip().lower()
        if type_name in UNTYPED:
            del out["type"]
        else:
            out["type"] = TYPES.get(type_name, node["type"])
    return out


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def choose(name: str, tools: list[Tool], questions: list[Question]) -> list[Question]:
    """The kept questions, by the rule in the module docstring, in the order of their hashes."""
    known = {tool["name"] for tool in tools}
    seen: set[str] = set()
    usable = []
    for question in questions:
        text = " ".join(question["query"].split())
        if not text or text in seen or not question["tools"]:
            continue
        if not set(question["tools"]) <= known:
            continue
        seen.add(text)
        usable.append(question)
    usable.sort(key=lambda q: digest(f"{name}:{q['id']}"))
    single = [q for q in usable if len(q["tools"]) == 1]
    multi = [q for q in usable if len(q["tools"]) > 1]
    n_single = min(len(single), max(MAX_SINGLE, MAX_QUESTIONS - len(multi)))
    n_multi = min(len(multi), MAX_QUESTIONS - n_single)
    kept = {id(q) for q in single[:n_single] + multi[:n_multi]}
    return [q for q in usable if id(q) in kept]


def cap_tools(name: str, tools: list[Tool], questions: list[Question]) -> list[Tool]:
    """At most ``MAX_TOOLS`` tools: the needed ones, then the others by hash; original order."""
    if len(tools) <= MAX_TOOLS:
        return tools
    needed = {tool for question in questions for tool in question["tools"]}
    others = sorted(
        (tool["name"] for tool in tools if tool["name"] not in needed),
        key=lambda tool: digest(f"{name}:{tool}"),
    )
    keep = needed | set(others[: MAX_TOOLS - len(needed)])
    return [tool for tool in tools if tool["name"] in keep]


# --------------------------------------------------------------------------- the sets


def metatool(root: Path) -> tuple[list[Tool], list[Question]]:
    """MetaTool (ToolE): ChatGPT plugins, single-tool and multi-tool questions."""
    data = root / "dataset"
    described = json.loads((data / "plugin_des.json").read_text(encoding="utf-8"))
    tools = [{"name": n, "description": " ".join(d.split())} for n, d in described.items()]
    questions = []
    with (data / "data" / "all_clean_data.csv").open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle)):
            questions.append({"id": f"single-{number}", "query": row["Query"],
                              "tools": [row["Tool"]]})  # fmt: skip
    multi = json.loads((data / "data" / "multi_tool_query_golden.json").read_text("utf-8"))
    for number, item in enumerate(multi):
        questions.append({"id": f"multi-{number}", "query": item["query"],
                          "tools": unique(item["tool"])})  # fmt: skip
    return tools, questions


def sealtools(root: Path) -> tuple[list[Tool], list[Question]]:
    """Seal-Tools: self-instructed APIs across many fields, single- and multi-tool questions."""
    data = root / "Seal-Tools_Dataset"
    tools = []
    for item in read_jsonl(data / "tool.jsonl"):
        properties = {
            key: parameter(value.get("type"), value.get("description"))
            for key, value in item["parameters"].items()
        }
        schema = object_schema(properties, item.get("required", ()))
        tools.append(
            {"name": item["api_name"], "description": item["api_description"], "parameters": schema}
        )
    questions = []
    for split in ("dev", "test_in_domain", "test_out_domain"):
        for item in read_jsonl(data / f"{split}.jsonl"):
            needed = unique(call["api"] for call in item["calling"])
            questions.append({"id": item["id"], "query": item["query"], "tools": needed})
    return tools, questions


_INSTRUCTION = re.compile(r"###Instruction:(.*?)###Output", re.S)


def apibench_hf(root: Path) -> tuple[list[Tool], list[Question]]:
    """Gorilla APIBench, Hugging Face part: model-hub entries and task descriptions."""
    tools: dict[str, Tool] = {}
    for item in read_jsonl(root / "data" / "api" / "huggingface_api.jsonl"):
        text = " ".join(str(item.get("description") or item.get("functionality") or "").split())
        description = f"{item['domain']}: {text}" if item.get("domain") else text
        tools.setdefault(item["api_name"], {"name": item["api_name"], "description": description})
    questions = []
    for number, item in enumerate(read_jsonl(root / "data/apibench/huggingface_eval.json")):
        found = _INSTRUCTION.search(item["code"])
        query = found.group(1) if found else item["code"]
        questions.append({"id": f"eval-{number}", "query": " ".join(query.split()),
                          "tools": [item["api_data"]["api_name"]]})  # fmt: skip
    return list(tools.values()), questions


_HTTP_METHODS = ("get", "post", "put", "patch", "delete")


def _resolve(spec: dict[str, Any], node: Any) -> Any:
    """Follow a local ``$ref`` (``#/components/...``) once; other nodes come back as they are."""
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        target: Any = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        return target
    return node


def restbench(root: Path) -> tuple[list[Tool], list[Question]]:
    """RestBench (RestGPT): TMDB and Spotify REST endpoints, multi-step requests."""
    tools, questions = [], []
    for api, label in (("tmdb", "TMDB"), ("spotify", "Spotify")):
        spec = json.loads((root / "specs" / f"{api}_oas.json").read_text(encoding="utf-8"))
        for path, item in spec["paths"].items():
            for method in _HTTP_METHODS:
                if method not in item:
                    continue
                operation = item[method]
                summary = " ".join(str(operation.get("summary") or "").split())
                detail = " ".join(str(operation.get("description") or "").split())
                text = f"{summary}. {detail}" if summary and detail else summary or detail
                properties, required = {}, []
                for raw in [*item.get("parameters", []), *operation.get("parameters", [])]:
                    param = _resolve(spec, raw)
                    schema = _resolve(spec, param.get("schema") or {})
                    properties[param["name"]] = parameter(schema.get("type"),
                                                          param.get("description"))  # fmt: skip
                    if param.get("required"):
                        required.append(param["name"])
                tools.append({"name": f"{label} {method.upper()} {path}", "description": text,
                              "parameters": object_schema(properties, required)})  # fmt: skip
        tasks = json.loads((root / "datasets" / f"{api}.json").read_text(encoding="utf-8"))
        for number, task in enumerate(tasks):
            needed = unique(f"{label} {' '.join(step.split())}" for step in task["solution"])
            questions.append({"id": f"{api}-{number}", "query": task["query"], "tools": needed})
    return tools, questions


#: ACEBench categories whose ground truth names the functions to call (the agent ones record
#: end states instead, and ``special_irrelevant`` expects no call).
_ACEBENCH_LABELLED = (
    "normal_atom_bool", "normal_atom_enum", "normal_atom_list", "normal_atom_number",
    "normal_atom_object_deep", "normal_atom_object_short", "normal_multi_turn_user_adjust",
    "normal_multi_turn_user_switch", "normal_preference", "normal_similar_api",
    "normal_single_turn_parallel_function", "normal_single_turn_single_function",
    "special_error_param", "special_incomplete",
)  # fmt: skip
_ACEBENCH_ALL = (*_ACEBENCH_LABELLED, "agent_multi_step", "agent_multi_turn", "special_irrelevant")
_CALL_SUFFIX = re.compile(r"_\d+$")


def acebench_zh(root: Path) -> tuple[list[Tool], list[Question]]:
    """ACEBench, Chinese part: every distinct function of its question files, Chinese requests."""
    data = root / "data_all" / "data_zh"
    pool: dict[str, Tool] = {}
    for category in sorted(_ACEBENCH_ALL):
        for item in read_jsonl(data / f"data_{category}.json"):
            for function in item.get("function") or []:
                text = " ".join(str(function.get("description") or "").split())
                schema = json_types(function.get("parameters") or object_schema({}))
                pool.setdefault(
                    function["name"],
                    {"name": function["name"], "description": text, "parameters": schema},
                )
    questions = []
    for category in _ACEBENCH_LABELLED:
        answers = {
            row["id"]: row["ground_truth"]
            for row in read_jsonl(data / "possible_answer" / f"data_{category}.json")
        }
        for item in read_jsonl(data / f"data_{category}.json"):
            truth = answers.get(item["id"])
            calls = truth[0] if isinstance(truth, list) and truth else truth
            if not isinstance(calls, dict):
                continue
            names = [key if key in pool else _CALL_SUFFIX.sub("", key) for key in calls]
            turns = re.split(r"(?m)^(user|system):", item["question"])
            said = [
                text.strip()
                for who, text in zip(turns[1::2], turns[2::2], strict=True)
                if who == "user"
            ]
            query = " ".join(said) if said else item["question"]
            questions.append({"id": item["id"], "query": " ".join(query.split()),
                              "tools": unique(names)})  # fmt: skip
    return list(pool.values()), questions


#: HammerBench's Chinese dialogue files that hold the whole data at the commit used; each
#: turns one of the same requests (``id``: its index in the base file) into a dialogue.
_HAMMERBENCH_FILES = ("sQmA", "mQsA", "mQmA", "SO_case2", "External")


def hammerbench_zh(root: Path) -> tuple[list[Tool], list[Question]]:
    """HammerBench, Chinese part: mobile-app functions; a request is a dialogue's first turn.

    The later turns answer the assistant's questions about missing arguments, so the first
    user turn is the request itself; the dialogue files share their requests, so each request
    is kept once, from the first file that has it.
    """
    data = root / "data" / "zh" / "multi-turn"
    pool: dict[str, Tool] = {}
    questions: dict[int, Question] = {}
    for variant in _HAMMERBENCH_FILES:
        path = data / f"HammerBench_{variant}.json"
        for item in json.loads(path.read_text(encoding="utf-8")):
            for function in [*item["multiple_tools"], *item["single_tool"]]:
                text = " ".join(str(function.get("description") or "").split())
                schema = json_types(function.get("parameters") or object_schema({}))
                pool.setdefault(
                    function["name"],
                    {"name": function["name"], "description": text, "parameters": schema},
                )
            said = [m["content"] for m in item["messages"] if m["role"] == "user"]
            if said and item["id"] not in questions:
                questions[item["id"]] = {
                    "id": f"base-{item['id']}",
                    "query": " ".join(str(said[0]).split()),
                    "tools": unique(function["name"] for function in item["single_tool"]),
                }
    return list(pool.values()), list(questions.values())


#: BFCL v1's ``parallel_multiple`` category: questions (here translated) and gold answers.
_BFCL_PARALLEL_MULTIPLE = "gorilla_openfunctions_v1_test_parallel_multiple_function.json"


def bfcl_zhtw(root: Path) -> tuple[list[Tool], list[Question]]:
    """BFCL v1 ``parallel_multiple`` with its requests in Traditional Chinese.

    Only the requests are translated; the functions are BFCL's, English. Each item offers a
    few candidates, so the pool is every distinct function of the items (the first definition
    of a name); a question's tools are the functions its gold answer calls.
    """
    data = root / "data"
    items = read_jsonl(data / "zhtw" / _BFCL_PARALLEL_MULTIPLE)
    pool: dict[str, Tool] = {}
    for item in items:
        for function in item["function"]:
            text = " ".join(str(function.get("description") or "").split())
            schema = json_types(function.get("parameters") or object_schema({}))
            pool.setdefault(
                function["name"],
                {"name": function["name"], "description": text, "parameters": schema},
            )
    answers = {
        row["id"]: row["ground_truth"]
        for row in read_jsonl(data / "possible_answer" / _BFCL_PARALLEL_MULTIPLE)
    }
    questions = []
    for item in items:
        if not isinstance(item["question"], str):
            raise SystemExit(f"bfcl-zhtw: {item['id']}: the question is not one text")
        truth = answers.get(item["id"])
        calls = truth if isinstance(truth, list) else [truth]  # BFCL writes both forms
        keys = [key for call in calls if isinstance(call, dict) for key in call]
        # a function called more than once is written with a suffix: name_1, name_2...
        names = [key if key in pool else _CALL_SUFFIX.sub("", key) for key in keys]
        questions.append({"id": item["id"], "query": " ".join(item["question"].split()),
                          "tools": unique(names)})  # fmt: skip
    return list(pool.values()), questions


def toolbench(root: Path) -> tuple[list[Tool], list[Question]]:
    """ToolBench's solvable test queries (StableToolBench): RapidAPI marketplace endpoints."""
    tools: dict[str, Tool] = {}
    questions = []
    for group in ("G1_category", "G1_instruction", "G1_tool", "G2_category", "G2_instruction",
                  "G3_instruction"):  # fmt: skip
        path = root / "solvable_queries" / "test_instruction" / f"{group}.json"
        for item in json.loads(path.read_text(encoding="utf-8")):
            for api in item["api_list"]:
                name = f"{api['tool_name']} / {api['api_name']}"
                properties, required = {}, []
                for kind in ("required_parameters", "optional_parameters"):
                    for param in api.get(kind) or []:
                        properties[param["name"]] = parameter(param.get("type"),
                                                              param.get("description"))  # fmt: skip
                        if kind == "required_parameters":
                            required.append(param["name"])
                text = " ".join(str(api.get("api_description") or "").split())
                schema = object_schema(properties, required)
                tools.setdefault(name, {"name": name, "description": text, "parameters": schema})
            needed = unique(f"{tool} / {api}" for tool, api in item["relevant APIs"])
            questions.append({"id": f"{group}-{item['query_id']}", "query": item["query"],
                              "tools": needed})  # fmt: skip
    return list(tools.values()), questions


def _nestools_tool(api: dict[str, Any]) -> Tool:
    properties = {
        key: parameter(value.get("type"), value.get("description"))
        for key, value in api["parameters"].items()
    }
    text = " ".join(str(api.get("api_description") or "").split())
    schema = object_schema(properties, api.get("required", ()))
    return {"name": api["api_name"], "description": text, "parameters": schema}


def nestools(root: Path) -> tuple[list[Tool], list[Question]]:
    """NesTools: nested calls, where a later call's arguments are an earlier call's results.

    Each item defines the few functions it calls; the pool is every distinct name (its first
    definition). Some names are defined differently by different items (``clean_up``: a
    schedule in one, a kitchen in another); an item that calls a function as it defines it
    differently from the pool asks for a tool the set does not have, so its question is left
    out. A question's tools are the functions its gold calls make, in call order.
    """
    items = read_jsonl(root / "data" / "test_data.jsonl")
    pool: dict[str, Tool] = {}
    for item in items:
        for api in item["api"]:
            pool.setdefault(api["api_name"], _nestools_tool(api))
    questions = []
    for item in items:
        own = {api["api_name"]: _nestools_tool(api) for api in item["api"]}
        names = unique(call["api_name"] for call in item["call"])
        if any(own.get(name) != pool.get(name) for name in names):
            continue
        questions.append({"id": f"test-{item['test_id']}", "query": " ".join(item["task"].split()),
                          "tools": names})  # fmt: skip
    return list(pool.values()), questions


#: NESTFUL's parts whose requests keep to their goal, and the files of every part's functions.
NESTFUL_QUESTIONS = ("executable/executable", "non-executable/non-executable-sgd")
NESTFUL_SPECS = (*NESTFUL_QUESTIONS, "non-executable/non-executable-glaive")
#: Endpoints of a held-out set's service (RestBench's Spotify), left out with their questions.
NESTFUL_LEFT_OUT = ("Spotify",)
#: The parameter groups a NESTFUL function may define (RapidAPI endpoints split them by place).
_NESTFUL_PARAMETERS = ("parameters", "arguments", "path_parameters", "query_parameters")


def _nestful_tool(spec: dict[str, Any]) -> Tool:
    properties, required = {}, []
    for group in _NESTFUL_PARAMETERS:
        for key, value in (spec.get(group) or {}).items():
            properties[key] = parameter(value.get("type"), value.get("description"))
            if value.get("required"):
                required.append(key)
    text = " ".join(str(spec.get("description") or "").split())
    return {"name": spec["name"], "description": text,
            "parameters": object_schema(properties, required)}  # fmt: skip


def nestful(root: Path) -> tuple[list[Tool], list[Question]]:
    """NESTFUL: sequences of API calls where a later call takes an earlier call's output.

    The pool is every function of the three parts (a name defined twice is defined alike).
    The questions are those of the RapidAPI (``executable``) and SGD parts, which mostly name
    only their goal and leave the lookups implicit; the Glaive part's requests spell out every
    step ("..., then calculate ..."), so its questions are left out and its functions stay in
    the pool. The Spotify endpoints are left out (a held-out set is built on Spotify's API), so
    the questions that call them name an undefined tool and are dropped. A question's tools are
    the distinct functions its gold sequence calls, in call order (``var_result``, which only
    gathers the answer, is not a function).
    """
    pool: dict[str, Tool] = {}
    for part in NESTFUL_SPECS:
        specs = json.loads((root / "data" / f"{part}-spec.json").read_text(encoding="utf-8"))
        for spec in specs:
            if spec["name"].startswith(NESTFUL_LEFT_OUT):
                continue
            tool = pool.setdefault(spec["name"], _nestful_tool(spec))
            if tool != _nestful_tool(spec):
                raise SystemExit(f"nestful: {spec['name']} is defined twice, differently")
    questions = []
    for part in NESTFUL_QUESTIONS:
        items = json.loads((root / "data" / f"{part}-data.json").read_text(encoding="utf-8"))
        for index, item in enumerate(items):
            names = unique(call["name"] for call in item["output"] if call["name"] != "var_result")
            prefix = Path(part).name.removeprefix("non-executable-")
            questions.append({"id": f"{prefix}-{index}", "query": " ".join(item["input"].split()),
                              "tools": names})  # fmt: skip
    return list(pool.values()), questions


#: Each set: its reader and the repository path of its licence.
SETS: dict[str, tuple[Callable[[Path], tuple[list[Tool], list[Question]]], str]] = {
    "metatool": (metatool, "LICENSE"),
    "sealtools": (sealtools, "LICENSE"),
    "apibench-hf": (apibench_hf, "LICENSE"),
    "restbench": (restbench, "LICENSE"),
    "acebench-zh": (acebench_zh, "LICENSE.md"),
    "toolbench": (toolbench, "LICENSE"),
    "hammerbench-zh": (hammerbench_zh, "LICENSE"),
    "bfcl-zhtw": (bfcl_zhtw, "LICENSE.txt"),
    "nestools": (nestools, "LICENSE"),
    "nestful": (nestful, "LICENSE"),
}


# --------------------------------------------------------------------------- writing


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    path.write_text(text, encoding="utf-8")


def trim(name: str, root: Path, dest: Path) -> tuple[int, int]:
    """Write set ``name`` from the checkout ``root`` into ``dest``; (tools, questions) kept."""
    reader, licence = SETS[name]
    tools, questions = reader(root)
    names = [tool["name"] for tool in tools]
    if len(set(names)) != len(names):
        raise SystemExit(f"{name}: tool names repeat; the reader must keep them unique")
    kept = choose(name, tools, questions)
    tools = cap_tools(name, tools, kept)
    dest.mkdir(parents=True, exist_ok=True)
    write_jsonl(dest / "tools.jsonl", tools)
    fields = ("id", "query", "tools")
    write_jsonl(dest / "queries.jsonl", ({key: q[key] for key in fields} for q in kept))
    shutil.copyfile(root / licence, dest / "LICENSE")
    sums = [
        f"{digest_file(dest / f)}  ./{f}\n" for f in ("LICENSE", "queries.jsonl", "tools.jsonl")
    ]
    (dest / "SHA256SUMS").write_text("".join(sums), encoding="utf-8")
    return len(tools), len(kept)


def digest_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str]) -> None:
    """Command line: ``SET CHECKOUT [DEST]``."""
    if len(argv) not in (2, 3) or argv[0] not in SETS:
        raise SystemExit(f"usage: trim.py {{{','.join(SETS)}}} CHECKOUT [DEST]")
    name, root = argv[0], Path(argv[1])
    dest = Path(argv[2]) if len(argv) == 3 else Path(__file__).resolve().parent / name
    count_tools, count_questions = trim(name, root, dest)
    print(f"{name}: {count_tools} tools, {count_questions} questions -> {dest}")


if __name__ == "__main__":
    main(sys.argv[1:])
