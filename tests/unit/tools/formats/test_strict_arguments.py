"""Strict-mode arguments are mapped back so Python defaults still apply."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from forge.tools import from_record, tool
from forge.tools.formats import strict_arguments, to_provider
from forge.tools.formats.strict_args import restore_arguments


class Window(BaseModel):
    """A time window."""

    start: str
    end: str | None = None
    step: int = 60


@tool
def report(
    metric: str,
    window: Window | None = None,
    limit: int = 10,
    tags: dict[str, str] | None = None,
    windows: list[Window] | None = None,
) -> dict[str, Any]:
    """Report a metric."""
    return {"metric": metric, "limit": limit, "window": window, "tags": tags}


def test_null_for_an_optional_parameter_applies_the_default() -> None:
    """The model's null for ``limit`` (optional, not nullable) means "use 10"."""
    restore = strict_arguments(report)
    args = restore({"metric": "cpu", "window": None, "limit": None, "tags": None, "windows": None})
    assert args == {"metric": "cpu", "window": None, "tags": None, "windows": None}
    assert report.validate(args)["limit"] == 10


def test_nested_objects_and_arrays_are_restored() -> None:
    """Inside nested models and arrays of them, nulls for optional fields are dropped too."""
    restore = strict_arguments(report)
    sent = {"metric": "m", "limit": 5, "tags": '{"team": "a"}',
            "window": {"start": "s", "end": None, "step": None},
            "windows": [{"start": "x", "end": "y", "step": None}]}  # fmt: skip
    args = restore(sent)
    assert args["window"] == {"start": "s", "end": None}
    assert args["windows"] == [{"start": "x", "end": "y"}]
    assert args["tags"] == {"team": "a"}
    assert report.validate(args)["window"].step == 60


def test_restored_arguments_pass_the_strict_schema_round_trip() -> None:
    """What the strict schema requires, once restored, is valid for the canonical schema."""
    import jsonschema

    strict = to_provider([report], "openai", strict=True)[0]["function"]["parameters"]
    sent = {"metric": "m", "window": None, "limit": None, "tags": None, "windows": None}
    jsonschema.validate(sent, strict)
    report.validate(strict_arguments(report)(sent))


def test_bad_json_strings_and_unknown_keys_are_left_for_validation() -> None:
    """What cannot be mapped is left as is, so validation reports it."""
    schema = {"type": "object", "properties": {"m": {"type": "object"}, "x": {"type": "integer"}}}
    assert restore_arguments(schema, {"m": "{bad", "other": None}) == {"m": "{bad", "other": None}
    assert restore_arguments(schema, {"m": '{"k": 1}', "x": None}) == {"m": {"k": 1}}


def test_any_of_branches_and_refs_are_followed() -> None:
    """An anyOf of objects picks the branch that lists the keys; $refs are resolved."""
    schema = {
        "type": "object",
        "$defs": {"A": {"type": "object", "properties": {"a": {"type": "integer"}}},
                  "B": {"type": "object", "properties": {"b": {"type": "integer"},
                                                         "c": {"type": "string"}}}},
        "properties": {"v": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]},
                       "free": {}},
    }  # fmt: skip
    t = from_record({"name": "t", "description": "T.", "parameters": schema,
                     "handler": lambda **kw: kw})  # fmt: skip
    out = strict_arguments(t)({"v": {"b": 1, "c": None}, "free": "[1, 2]"})
    assert out == {"v": {"b": 1}, "free": [1, 2]}
