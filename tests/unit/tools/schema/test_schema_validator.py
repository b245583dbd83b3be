"""The schema-only validator on the official JSON Schema Test Suite, draft 2020-12.

The corpus is ``corpora/json-schema-test-suite/`` in the repository (see its
README.md): unmodified copies of the suite's required draft 2020-12 tests.
Groups that reference the upstream ``remotes/`` documents, which were not
copied, are the only exclusion; they are found by compiling each schema with a
retriever that refuses every fetch, so no network call is ever made.
"""

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from forge.core.errors import ToolDefinitionError, ToolValidationError
from forge.tools import Tool, ToolRegistry
from forge.tools.schema import SchemaValidator, check_json_schema
from tests.conftest import CORPORA, corpus

SUITE = CORPORA / "json-schema-test-suite"
TESTS = SUITE / "draft2020-12"
# Files the suite's README names as referencing http://localhost:1234/ (upstream remotes/).
REMOTE_FILES = {"anchor.json", "dynamicRef.json", "ref.json", "refRemote.json", "vocabulary.json"}


@dataclass(frozen=True)
class Group:
    """One schema of the suite with its test instances."""

    file: str
    description: str
    schema: Any
    tests: tuple[dict[str, Any], ...]

    def label(self, test: dict[str, Any]) -> str:
        """Name one test case for a failure message."""
        return f"{self.file} / {self.description} / {test['description']}"


@functools.cache
def _load() -> tuple[Group, ...]:
    """Read every group of the suite."""
    return tuple(
        Group(path.name, group["description"], group["schema"], tuple(group["tests"]))
        for path in sorted(TESTS.glob("*.json"))
        for group in json.loads(path.read_text(encoding="utf-8"))
    )


def suite() -> tuple[Group, ...]:
    """Every group of the suite, or a clear failure if the corpus is missing."""
    corpus("json-schema-test-suite", "draft2020-12")
    return _load()


def remote_references(schema: Any) -> list[str]:
    """The remote documents ``schema`` needs, found without any network access."""
    fetched: list[str] = []

    def refuse(uri: str) -> Any:
        fetched.append(uri)
        raise ValueError(f"remote documents are not available: {uri}")

    try:
        jsonschema_rs.validator_for(schema, retriever=refuse)
    except (ValueError, jsonschema_rs.ValidationError):
        if not fetched:
            raise
    return fetched


@functools.cache
def usable_groups() -> tuple[tuple[Group, ...], tuple[Group, ...]]:
    """Split the object-schema groups into (usable, excluded because they need remotes/)."""
    usable, excluded = [], []
    for group in suite():
        if not isinstance(group.schema, dict):
            continue  # boolean schemas: a parameters schema is always an object
        (excluded if remote_references(group.schema) else usable).append(group)
    return tuple(usable), tuple(excluded)


def accepts(validate: Any, data: Any) -> bool:
    """Whether a validator returns (True) or raises ToolValidationError (False)."""
    try:
        validate(data)
    except ToolValidationError:
        return False
    return True


def record_tool(name: str, schema: dict[str, Any]) -> Tool:
    """Register a schema-only tool in a fresh registry."""
    return ToolRegistry().register(
        {
            "name": name,
            "description": "A tool from the JSON Schema Test Suite.",
            "parameters": schema,
            "handler": lambda **kwargs: kwargs,
        }
    )


# -- the corpus ------------------------------------------------------------------------


def test_corpus_is_present_and_unmodified():
    """Every suite file matches SHA256SUMS, and the suite has the documented 46 files."""
    suite()
    sums = {}
    for line in (SUITE / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, name = line.split()
        sums[Path(name).name] = digest
    actual = {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(TESTS.glob("*.json"))
    }
    assert actual == sums
    assert len(actual) == 46


def test_only_remote_groups_are_excluded():
    """The groups excluded for needing remotes/ all come from the files the README names."""
    usable, excluded = usable_groups()
    assert excluded
    assert {g.file for g in excluded} <= REMOTE_FILES
    assert len(usable) + len(excluded) == sum(isinstance(g.schema, dict) for g in suite())


# -- agreement with the suite ----------------------------------------------------------


def test_object_schemas_agree_with_suite_via_record_tools():
    """Record tools whose schema is "type": "object" accept exactly the suite's valid objects."""
    usable, _ = usable_groups()
    mismatches, checked = [], 0
    for group in usable:
        if group.schema.get("type") != "object":
            continue
        cases = [t for t in group.tests if isinstance(t["data"], dict)]
        try:
            t = record_tool("suite_tool", group.schema)
        except ToolDefinitionError as exc:
            mismatches.append(f"{group.file} / {group.description}: not registrable: {exc}")
            continue
        for case in cases:
            checked += 1
            if accepts(t.validate, case["data"]) != case["valid"]:
                mismatches.append(f"{group.label(case)}: expected valid={case['valid']}")
    assert mismatches == []
    assert checked >= 20


def test_object_instances_agree_with_suite_for_every_schema():
    """For every usable schema, SchemaValidator accepts exactly the valid object instances."""
    usable, _ = usable_groups()
    mismatches, checked = [], 0
    for group in usable:
        validate = SchemaValidator("suite_tool", group.schema)
        for case in group.tests:
            if not isinstance(case["data"], dict):
                continue
            checked += 1
            if accepts(validate, case["data"]) != case["valid"]:
                mismatches.append(f"{group.label(case)}: expected valid={case['valid']}")
    assert mismatches == []
    assert checked >= 400


def test_non_object_instances_are_rejected_for_every_schema():
    """Non-object arguments (other than null) are rejected at the root, whatever the schema."""
    usable, _ = usable_groups()
    wrong = []
    for group in usable:
        validate = SchemaValidator("suite_tool", group.schema)
        for case in group.tests:
            if isinstance(case["data"], dict) or case["data"] is None:
                continue
            try:
                validate(case["data"])
            except ToolValidationError as exc:
                if [(e.path, e.kind) for e in exc.errors] != [("", "type")]:
                    wrong.append(f"{group.label(case)}: {exc.errors}")
            else:
                wrong.append(f"{group.label(case)}: accepted")
    assert wrong == []


# -- errors name the field -------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "mode": {"enum": ["fast", "slow"]},
        "count": {"type": "integer", "minimum": 1},
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}},
            "required": ["street"],
            "additionalProperties": False,
        },
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"id": {"type": "integer"}}},
        },
    },
    "required": ["name"],
    "additionalProperties": False,
}


def errors_of(args: Any) -> list[tuple[str, str]]:
    """The (path, kind) of every error the record tool and SchemaValidator report for ``args``."""
    found = []
    for validate in (SchemaValidator("errors", SCHEMA), record_tool("errors", SCHEMA).validate):
        with pytest.raises(ToolValidationError) as info:
            validate(args)
        assert info.value.tool_name == "errors"
        found.append(sorted((e.path, e.kind) for e in info.value.errors))
    assert found[0] == found[1]
    return found[0]


def test_missing_required_is_named():
    """A missing required parameter is a "missing" error naming it, also in .missing."""
    assert errors_of({}) == [("name", "missing")]
    with pytest.raises(ToolValidationError) as info:
        SchemaValidator("errors", SCHEMA)({"mode": "fast"})
    assert info.value.missing == ("name",)
    assert "name: missing required parameter" in str(info.value)


def test_nested_missing_required_has_the_property_path():
    """A missing nested property is named by its dotted path."""
    assert errors_of({"name": "a", "address": {}}) == [("address.street", "missing")]


def test_additional_properties_are_unexpected():
    """Each property outside the schema is an "unexpected" error naming it, nested or not."""
    assert errors_of({"name": "a", "extra": 1, "other": 2}) == [
        ("extra", "unexpected"),
        ("other", "unexpected"),
    ]
    assert errors_of({"name": "a", "address": {"street": "s", "zip": "1"}}) == [
        ("address.zip", "unexpected")
    ]


def test_type_enum_and_constraint_errors_are_named():
    """Type, enum and constraint violations each name their field and kind."""
    assert errors_of({"name": 1, "mode": "medium", "count": 0}) == [
        ("count", "constraint"),
        ("mode", "enum"),
        ("name", "type"),
    ]


def test_array_item_errors_have_the_index_in_the_path():
    """An error inside an array item is named by the item's index."""
    assert errors_of({"name": "a", "items": [{"id": 1}, {"id": "x"}]}) == [("items.1.id", "type")]


def test_every_problem_is_reported():
    """All problems are reported together, not only the first."""
    assert errors_of({"mode": 3, "extra": True}) == [
        ("extra", "unexpected"),
        ("mode", "enum"),
        ("name", "missing"),
    ]


# -- check_json_schema -----------------------------------------------------------------


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string"},
        {"properties": {"a": {}}},
        {"type": ["object", "null"]},
        {"type": "array"},
    ],
)
def test_schema_must_be_an_object_schema(schema):
    """A parameters schema whose "type" is not "object" is rejected, saying so."""
    with pytest.raises(ToolDefinitionError) as info:
        check_json_schema("my_tool", schema)
    assert info.value.tool_name == "my_tool"
    assert '"type": "object"' in info.value.message
    assert repr(schema.get("type")) in info.value.message


@pytest.mark.parametrize("schema", [[{"type": "object"}], "object", None, 3])
def test_schema_must_be_a_mapping(schema):
    """A parameters schema that is not a JSON object is rejected, naming what it got."""
    with pytest.raises(ToolDefinitionError) as info:
        check_json_schema("my_tool", schema)
    assert type(schema).__name__ in info.value.message


INVALID_SCHEMAS = [
    ({"type": "object", "properties": {"a": {"type": "strin"}}}, "properties/a/type"),
    ({"type": "object", "required": "a"}, "required"),
    ({"type": "object", "properties": {"a": {"minimum": "x"}}}, "properties/a/minimum"),
    ({"type": "object", "properties": {"a": {"items": {"minItems": -1}}}}, "properties/a/items"),
    ({"type": "object", "additionalProperties": 3}, "additionalProperties"),
]


@pytest.mark.parametrize(("schema", "where"), INVALID_SCHEMAS)
def test_invalid_schema_is_rejected_naming_where(schema, where):
    """An invalid JSON Schema is rejected with the location of the problem."""
    with pytest.raises(ToolDefinitionError) as info:
        check_json_schema("my_tool", schema)
    assert info.value.tool_name == "my_tool"
    assert f"not valid JSON Schema at {where}" in info.value.message


@pytest.mark.parametrize(("schema", "where"), INVALID_SCHEMAS)
def test_invalid_record_schema_is_rejected_at_registration(schema, where):
    """Registering a record with an invalid schema fails then, naming the tool and the location."""
    registry = ToolRegistry()
    with pytest.raises(ToolDefinitionError) as info:
        registry.register(
            {
                "name": "bad_schema",
                "description": "d",
                "parameters": schema,
                "handler": lambda **kwargs: kwargs,
            }
        )
    assert info.value.tool_name == "bad_schema"
    assert where in info.value.message
    assert "bad_schema" not in registry


def test_valid_suite_object_schemas_pass_the_check():
    """Every usable suite schema with "type": "object" passes check_json_schema unchanged."""
    usable, _ = usable_groups()
    schemas = [g.schema for g in usable if g.schema.get("type") == "object"]
    assert schemas
    for schema in schemas:
        assert check_json_schema("suite_tool", schema) == schema


def test_dangling_ref_is_rejected_at_registration():
    """A record whose schema has a $ref to nothing is a definition error when registered."""
    registry = ToolRegistry()
    with pytest.raises(ToolDefinitionError) as info:
        registry.register(
            {
                "name": "dangling",
                "description": "d",
                "parameters": {"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}},
                "handler": lambda **kwargs: kwargs,
            }
        )
    assert info.value.tool_name == "dangling"
    assert "/$defs/nope" in info.value.message


def test_remote_ref_is_refused_without_fetching() -> None:
    """A record whose schema points at a remote $ref is rejected at registration, never fetched."""
    from forge.core.errors import ToolDefinitionError
    from forge.tools import ToolRegistry

    record = {
        "name": "remote",
        "description": "Uses a remote schema.",
        "parameters": {
            "type": "object",
            "properties": {"x": {"$ref": "http://127.0.0.1:9/never.json"}},
        },
        "handler": lambda x: x,
    }
    with pytest.raises(ToolDefinitionError, match="remote"):
        ToolRegistry().register(record)
