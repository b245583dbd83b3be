"""Trying tools: validation with field paths, runs through the executor, refusals."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.catalog import BadRequestError, Catalog, ConfirmationRequiredError
from forge.catalog.calls import run_outcome, validation_outcome
from forge.catalog.paths import parse_field
from forge.tools import ToolResult

from .conftest import place_order

ORDER = {"lines": [{"sku": "a", "qty": 2}, {"sku": "b", "qty": 0}], "ship_to": {"city": "X"}}


def test_validation_names_nested_fields_by_path(catalog: Catalog) -> None:
    """An array item's field and a missing nested field, as segments and as names."""
    outcome = catalog.validate("place_order", {"arguments": ORDER})
    assert outcome["ok"] is False
    fields = {e["field"]: e for e in outcome["errors"]}
    assert fields["lines[1].qty"]["path"] == ["lines", 1, "qty"]
    assert fields["ship_to.zip"]["path"] == ["ship_to", "zip"]
    assert fields["ship_to.zip"]["message"] == "missing required parameter"
    assert outcome["model_message"].startswith("Error: Invalid arguments for tool 'place_order'")
    assert "lines.1.qty" in outcome["model_message"]


def test_valid_arguments_are_ok_and_nothing_runs(catalog: Catalog) -> None:
    """A dry check only: no call is counted."""
    good = {**ORDER, "lines": [{"sku": "a", "qty": 1}], "ship_to": {"city": "X", "zip": "12345"}}
    assert catalog.validate("place_order", {"arguments": good}) == {"ok": True}
    assert catalog.metrics()["tools"] == {}


def test_a_run_returns_the_output_and_what_the_model_sees(catalog: Catalog) -> None:
    """Output as JSON, no error kind, the model's text, a duration."""
    outcome = asyncio.run(catalog.run("echo", {"arguments": {"text": "hi"}}))
    assert outcome["ok"] is True
    assert outcome["result"] == "hi"
    assert outcome["error_kind"] is None
    assert outcome["model_message"] == "hi"
    assert outcome["duration_ms"] >= 0
    assert catalog.metrics()["tools"]["echo"]["calls"] == 1
    assert catalog.tool("echo")["metrics"]["calls"] == 1


def test_failures_are_results(catalog: Catalog) -> None:
    """A denied call and a tool that raises both come back with their kind."""
    denied = asyncio.run(
        catalog.run("forbidden", {"arguments": {"command": "ls"}, "confirm": True})
    )
    assert (denied["ok"], denied["error_kind"]) == (False, "denied")
    assert "Permission denied" in denied["model_message"]
    broke = asyncio.run(catalog.run("explode", {"arguments": {}}))
    assert (broke["ok"], broke["error_kind"]) == (False, "tool_error")
    assert "the tool broke on purpose" in broke["model_message"]
    stats = catalog.metrics()["tools"]
    assert stats["explode"]["failures"] == 1
    assert stats["explode"]["p95_ms"] >= stats["explode"]["p50_ms"] > 0


def test_a_destructive_tool_needs_confirmation(catalog: Catalog) -> None:
    """Without ``confirm`` nothing runs; with it, the tool runs."""
    with pytest.raises(ConfirmationRequiredError, match="destructive"):
        asyncio.run(catalog.run("wipe", {"arguments": {"table": "t"}}))
    assert catalog.metrics()["tools"] == {}
    done = asyncio.run(catalog.run("wipe", {"arguments": {"table": "t"}, "confirm": True}))
    assert done["result"] == "wiped t"


def test_a_tool_without_hints_needs_confirmation_as_mcp_reads_it(catalog: Catalog) -> None:
    """No annotations means destructive (MCP's default): asked like ``wipe``; read-only is not."""
    with pytest.raises(ConfirmationRequiredError, match="may be destructive"):
        asyncio.run(catalog.run("place_order", {"arguments": ORDER}))
    assert catalog.metrics()["tools"] == {}
    assert catalog.tool("place_order")["needs_confirmation"] is True
    assert catalog.tool("wipe")["needs_confirmation"] is True
    assert catalog.tool("echo")["needs_confirmation"] is False
    assert asyncio.run(catalog.run("echo", {"arguments": {"text": "x"}}))["ok"] is True


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "must be a JSON object"),
        ({"argument": {}}, "unknown field.*'argument'"),
        ({"arguments": [1]}, '"arguments" must be a JSON object.*not an array'),
        ({"arguments": {}, "confirm": "yes"}, '"confirm" must be true or false, not a string'),
    ],
)
def test_bad_bodies_are_refused_by_name(catalog: Catalog, body: Any, message: str) -> None:
    """Each names what was wrong."""
    with pytest.raises(BadRequestError, match=message):
        asyncio.run(catalog.run("echo", body))


def test_a_runner_that_raises_is_still_a_result(catalog: Catalog) -> None:
    """The catalog never lets a run crash it."""

    async def broken(name: str, arguments: dict[str, Any]) -> ToolResult:
        raise OSError("gone")

    outcome = asyncio.run(run_outcome(broken, catalog.registry.get_or_raise("echo"), {}))
    assert outcome["ok"] is False
    assert outcome["error_kind"] == "tool_error"
    assert "OSError: gone" in outcome["model_message"]


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)
_order_like = st.fixed_dictionaries(
    {},
    optional={
        "lines": st.lists(
            st.dictionaries(st.sampled_from(["sku", "qty", "x.y"]), _json_values, max_size=3)
            | _json_values,
            max_size=3,
        ),
        "ship_to": st.dictionaries(st.sampled_from(["city", "zip", "0"]), _json_values, max_size=3)
        | _json_values,
        "note": _json_values,
    },
)


@settings(max_examples=200, deadline=None)
@given(_order_like)
def test_every_error_path_points_into_the_arguments(arguments: dict[str, Any]) -> None:
    """Each bad field's path walks the arguments (only its last key may be missing), and its
    field name reads back as the same path."""
    outcome = validation_outcome(place_order, arguments)
    for error in outcome.get("errors", []):
        assert parse_field(error["field"]) == error["path"]
        value: Any = arguments
        for i, segment in enumerate(error["path"]):
            if not _holds(value, segment):
                assert i == len(error["path"]) - 1, (error, arguments)
                break
            value = value[segment]


def _holds(value: Any, segment: str | int) -> bool:
    if isinstance(value, dict):
        return segment in value
    return isinstance(value, list) and isinstance(segment, int) and segment < len(value)
