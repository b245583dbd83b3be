"""BFCL's ground-truth calls validate against their normalised schemas; mutated calls do not."""

from __future__ import annotations

import collections
import json
from collections.abc import Iterator
from typing import Any

import pytest

from forge.core.errors import ToolValidationError
from forge.tools import Tool, from_record
from forge.tools.importers.normalize import normalize_definition

from .conftest import bfcl_files

pytestmark = pytest.mark.slow  # the whole BFCL corpus

CODE = "the ground truth is source code (a variable or constant name), not a JSON value"
ENUM = "the ground-truth value is not in the schema's enum"
REQUIRED = "the ground truth leaves out a required parameter"
STRING = "the schema says string (an enum of 'True'/'1'...) but the ground truth is a bool/int"
WRONG_TYPE = "the ground-truth array holds strings where the schema's items are integers"

#: The question files that have no ``possible_answer/`` file (no call is expected).
WITHOUT_GROUND_TRUTH = {
    "BFCL_v4_irrelevance.json",
    "BFCL_v4_live_irrelevance.json",
    "BFCL_v4_live_relevance.json",
}

#: Ground truths that contradict their own schema, by id, with the reason.
CONTRADICTIONS: dict[str, str] = {
    "live_multiple_87-38-4": ENUM,
    "live_multiple_507-149-4": REQUIRED,
    "live_multiple_552-153-1": STRING,
    "live_multiple_595-158-1": STRING,
    "live_multiple_596-158-2": STRING,
    "live_multiple_731-167-2": STRING,
    "live_multiple_733-167-4": STRING,
    "live_multiple_735-167-6": STRING,
    "live_multiple_750-169-5": ENUM,
    "live_multiple_756-169-11": ENUM,
    "live_multiple_835-178-10": ENUM,
    "live_multiple_871-182-8": ENUM,
    "live_multiple_947-197-0": ENUM,
    "live_multiple_964-207-0": REQUIRED,
    "live_parallel_multiple_2-2-0": ENUM,
    "parallel_multiple_21": CODE,
    "parallel_multiple_94": WRONG_TYPE,
    "simple_java_26": CODE,
    "simple_java_35": CODE,
    "simple_java_38": CODE,
    "simple_java_45": CODE,
    "simple_java_58": CODE,
    "simple_java_69": CODE,
    "simple_java_72": CODE,
    "simple_java_82": CODE,
    "simple_java_87": CODE,
    "simple_java_88": CODE,
    "simple_javascript_5": CODE,
    "simple_javascript_9": CODE,
    "simple_javascript_11": CODE,
    "simple_javascript_15": CODE,
    "simple_javascript_19": CODE,
    "simple_javascript_32": CODE,
    "simple_javascript_37": CODE,
    "simple_javascript_39": CODE,
}


def _noop(**kwargs: Any) -> dict[str, Any]:
    return kwargs


def _pick(allowed: Any) -> tuple[bool, Any]:
    """The first allowed value ("" means "may be omitted"); nested dicts hold lists too."""
    if isinstance(allowed, dict) and all(isinstance(v, list) for v in allowed.values()):
        out = {}
        for key, options in allowed.items():
            present, value = _pick(options)
            if present:
                out[key] = value
        return True, out
    if not isinstance(allowed, list):
        return True, allowed
    if "" in allowed:
        return False, None  # may be omitted: test the optional path
    if not allowed:
        return True, []  # no alternatives listed: the empty array
    return True, _value(allowed[0])


def _value(option: Any) -> Any:
    """One allowed value, with the allowed-value lists nested inside it resolved."""
    if isinstance(option, dict):
        return _pick(option)[1]
    if isinstance(option, list):
        return [_value(v) if isinstance(v, dict) else v for v in option]
    return option


def cases() -> Iterator[tuple[str, Tool, dict[str, Any]]]:
    """(question id, tool, ground-truth arguments) for every ground-truth call."""
    for path in bfcl_files():
        if path.name in WITHOUT_GROUND_TRUTH:
            continue
        answers = path.parent / "possible_answer" / path.name
        questions = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            questions[record["id"]] = record["function"]
        for line in answers.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            functions = {f["name"]: f for f in questions[record["id"]]}
            for call in record["ground_truth"]:
                ((name, params),) = call.items()
                definition = normalize_definition(functions[name])
                tool = from_record(definition.to_record(_noop))
                args = {}
                required = set(tool.parameters.get("required", ()))
                for key, options in params.items():
                    allowed = options
                    if key in required and isinstance(options, list) and "" in options:
                        allowed = [a for a in options if a != ""] or options
                    present, value = _pick(allowed)
                    if present:
                        args[key] = value
                yield record["id"], tool, args


@pytest.fixture(scope="module")
def ground_truth() -> list[tuple[str, Tool, dict[str, Any]]]:
    """Every ground-truth call of the corpus."""
    return list(cases())


def test_ground_truth_calls_validate(ground_truth: Any, capsys: Any) -> None:
    """Every ground-truth call is accepted by its normalised schema, except the listed ones."""
    rejected = {}
    for qid, tool, args in ground_truth:
        try:
            tool.validate(args)
        except ToolValidationError as exc:
            rejected[qid] = str(exc)
    with capsys.disabled():
        print(f"\nBFCL ground-truth calls: {len(ground_truth)}, rejected: {len(rejected)}")
    unexplained = {k: v for k, v in rejected.items() if k not in CONTRADICTIONS}
    assert not unexplained, "\n".join(f"{k}: {v}" for k, v in list(unexplained.items())[:30])
    assert not set(CONTRADICTIONS) - set(rejected), "a listed contradiction now validates"


_WRONG = {"string": [1], "integer": "x", "number": "x", "boolean": "x", "array": "x",
          "object": "x"}  # fmt: skip


def _mutations(tool: Tool, args: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Calls that must be rejected: a required parameter missing, a wrong type, out of enum."""
    props = tool.parameters.get("properties", {})
    for key in tool.parameters.get("required", ()):
        if key in args:
            yield f"missing {key}", {k: v for k, v in args.items() if k != key}
            break
    for key, value in args.items():
        kind = props.get(key, {}).get("type")
        if isinstance(kind, str) and kind in _WRONG and value is not None:
            yield f"wrong type {key}", {**args, key: _WRONG[kind]}
            break
    for key in args:
        if "enum" in props.get(key, {}):
            yield f"out of enum {key}", {**args, key: "__not_in_the_enum__"}
            break


def test_mutated_calls_are_rejected(ground_truth: Any, capsys: Any) -> None:
    """Dropping a required parameter, changing a type or leaving the enum is always rejected."""
    accepted, counts = [], collections.Counter()
    for qid, tool, args in ground_truth:
        if qid in CONTRADICTIONS:
            continue
        for what, mutated in _mutations(tool, args):
            counts[what.split()[0]] += 1
            try:
                tool.validate(mutated)
            except ToolValidationError:
                continue
            accepted.append(f"{qid}: {what}")
    with capsys.disabled():
        print(f"\nBFCL mutated calls rejected: {dict(counts)}")
    assert sum(counts.values()) > 3000
    assert not accepted, "\n".join(accepted[:20])
