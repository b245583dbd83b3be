"""Issue 11: whatever a read returns is safe to change.

Shared values (tool schemas, metadata, cached provider definitions) are read-only and
raise ``TypeError`` naming ``copy.deepcopy``; lists and dicts built for the caller are
new on each read. Either way no edit of a result reaches the registry or later reads.
"""

from __future__ import annotations

import copy
import json
import pickle
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from forge.core.errors import ToolValidationError
from forge.tools import ToolRegistry, create_tool, from_record, tool
from forge.tools.formats import PROVIDERS, convert, to_provider
from tests.unit.tools.formats.conftest import oracles


class Point(BaseModel):
    """A point."""

    x: int
    y: int = 0


@tool(
    category="web",
    tags=["maps"],
    examples=[{"description": "Near the origin", "input": {"query": "cafe", "near": {"x": 1}},
               "output": ["Cafe"]}],
    extra={"owner": {"team": "maps"}},
)  # fmt: skip
def find(query: str, near: Point | None = None, kinds: list[str] | None = None) -> list[str]:
    """Find places."""
    return [query]


def _registry() -> ToolRegistry:
    """Tools of every definition style, with nested schemas, metadata and an output schema."""
    record = from_record({
        "name": "lookup", "description": "Look a word up.", "handler": lambda word: word,
        "parameters": {"type": "object", "properties": {"word": {"type": "string",
                       "enum": ["a", "b"]}}, "required": ["word"]},
        "output_schema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "annotations": {"read_only": True},
    })  # fmt: skip
    built = (
        create_tool().name("add").description("Add.").category("utility")
        .implement(lambda a, b=1: a + b).schema(
            {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
             "required": ["a"]})
        .build()
    )  # fmt: skip
    return ToolRegistry([find, record, built])


def _containers(node: Any) -> Iterator[Any]:
    """Every dict and list in a JSON tree, outermost first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _containers(value)
    elif isinstance(node, list):
        yield node
        for value in node:
            yield from _containers(value)


def _edits(node: Any) -> list[Callable[[], Any]]:
    """Every way of changing ``node`` in place."""
    if isinstance(node, dict):
        key = next(iter(node), "k")
        return [
            lambda: node.__setitem__(key, "HACKED"), lambda: node.__setitem__("new", 1),
            lambda: node.__delitem__(key), lambda: node.update(new=1), lambda: node.pop(key),
            node.popitem, lambda: node.setdefault("new", 1), node.clear,
            lambda: node.__ior__({"new": 1}),
        ]  # fmt: skip
    return [
        lambda: node.append("HACKED"), lambda: node.extend([1]), lambda: node.insert(0, 1),
        lambda: node.__setitem__(0, "HACKED"), lambda: node.__delitem__(0), node.pop,
        lambda: node.remove(node[0] if node else 1), node.sort, node.reverse, node.clear,
        lambda: node.__iadd__([1]), lambda: node.__imul__(2),
    ]  # fmt: skip


def _assert_read_only(value: Any, *, fresh_top: bool) -> None:
    """Every nested container refuses every edit; the top one too unless it is the caller's."""
    for index, node in enumerate(_containers(value)):
        if index == 0 and fresh_top:
            continue
        for edit in _edits(node):
            with pytest.raises(TypeError, match=r"read-only.*copy\.deepcopy"):
                edit()


def _snapshot(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


# -- provider definitions --------------------------------------------------------------


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("provider", [p for p in PROVIDERS if p != "langchain"])
def test_provider_definitions_cannot_be_changed(provider: str, strict: bool) -> None:
    """Editing any part of `to_provider` output never changes what later reads return."""
    registry = _registry()
    first = registry.to_provider(provider, strict=strict)
    before = _snapshot(first)
    _assert_read_only(first, fresh_top=True)
    first.clear()  # the list itself is the caller's: new on each read
    assert _snapshot(registry.to_provider(provider, strict=strict)) == before
    assert _snapshot(to_provider(registry.list_all(), provider, strict=strict)) == before


def test_issue_example_description_hack_is_refused() -> None:
    """The issue's ``a[0]["function"]["description"] = "HACKED"`` raises and changes nothing."""
    registry = _registry()
    tools = registry.to_provider("openai")
    with pytest.raises(TypeError, match=r"copy\.deepcopy"):
        tools[0]["function"]["description"] = "HACKED"
    assert registry.to_provider("openai")[0]["function"]["description"] == "Find places."


@pytest.mark.parametrize("provider", [p for p in PROVIDERS if p != "langchain"])
def test_read_only_definitions_pass_the_official_sdk_types(provider: str) -> None:
    """Read-only definitions are still what each provider's SDK type accepts."""
    check = oracles()[provider]
    for strict in (False, True):
        out = _registry().to_provider(provider, strict=strict)
        items = out[0]["functionDeclarations"] if provider == "gemini" else out
        for item in items:
            check(item)


def test_openai_and_anthropic_clients_send_read_only_definitions() -> None:
    """The SDK clients JSON-encode read-only definitions into the request body unchanged."""
    import anthropic
    import httpx2
    import openai

    bodies: list[Any] = []

    def reply(request: Any) -> Any:
        bodies.append(json.loads(request.content))
        response = httpx2 if request.__module__.startswith("httpx2") else httpx
        return response.Response(500, json={"error": {"message": "stop here"}})

    registry = _registry()
    http = httpx.Client(transport=httpx.MockTransport(reply))
    client = openai.OpenAI(api_key="k", base_url="http://test", http_client=http, max_retries=0)
    with pytest.raises(openai.APIError):
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}],
            tools=registry.to_provider("openai", strict=True),
        )  # fmt: skip
    http2 = httpx2.Client(transport=httpx2.MockTransport(reply))
    other = anthropic.Anthropic(api_key="k", base_url="http://test", http_client=http2,
                                max_retries=0)  # fmt: skip
    with pytest.raises(anthropic.APIError):
        other.messages.create(
            model="m", max_tokens=1, messages=[{"role": "user", "content": "hi"}],
            tools=registry.to_provider("anthropic"),
        )  # fmt: skip
    assert bodies[0]["tools"] == json.loads(json.dumps(registry.to_provider("openai", strict=True)))
    assert bodies[1]["tools"] == json.loads(json.dumps(registry.to_provider("anthropic")))


def test_langchain_tools_cannot_be_changed() -> None:
    """The cached LangChain tools refuse attribute changes and schema edits."""
    registry = _registry()
    lc = registry.to_provider("langchain")[0]
    with pytest.raises(TypeError, match="to_langchain"):
        lc.description = "HACKED"
    with pytest.raises(TypeError, match="read-only"):
        lc.args_schema["properties"]["query"]["type"] = "integer"
    again = registry.to_provider("langchain")[0]
    assert again.description == "Find places."
    assert again.invoke({"query": "tea"}) == ["tea"]


def test_one_tool_conversion_and_report() -> None:
    """`convert`, `to_openai_schema` and `to_anthropic_schema` give read-only definitions."""
    definition, report = convert(find, "openai", strict=True)
    _assert_read_only(definition, fresh_top=False)
    assert report.changes == convert(find, "openai", strict=True)[1].changes  # frozen tuple
    _assert_read_only(find.to_openai_schema(strict=True), fresh_top=False)
    _assert_read_only(find.to_anthropic_schema(), fresh_top=False)


# -- the registry's and the tools' own reads ----------------------------------------


def test_definitions_and_parameters_cannot_drift_from_validation() -> None:
    """Schemas cannot be edited, so validation always follows the advertised schema."""
    registry = _registry()
    definitions = registry.definitions()
    before = _snapshot(definitions)
    for definition in definitions:
        _assert_read_only(definition, fresh_top=True)
        definition["description"] = "the top-level dict is the caller's"
    assert _snapshot(registry.definitions()) == before
    lookup = registry.get_or_raise("lookup")
    _assert_read_only(lookup.parameters, fresh_top=False)
    _assert_read_only(lookup.output_schema, fresh_top=False)
    assert registry.definitions()[1]["parameters"] is lookup.parameters
    assert registry.execute("lookup", {"word": "a"}).output == "a"
    with pytest.raises(ToolValidationError):
        registry.execute("lookup", {"word": "c"})  # not in the advertised enum


def test_read_only_values_define_and_call_new_tools() -> None:
    """Definitions read from one registry build another; read-only arguments validate."""
    source = _registry()
    copies = ToolRegistry(
        [
            {**d, "name": f"copy_{d['name']}", "handler": lambda **kw: kw}
            for d in source.definitions()
        ]
    )
    assert (
        copies.get_or_raise("copy_lookup").output_schema
        == source.get_or_raise("lookup").output_schema
    )
    example = source.get_or_raise("find").metadata.examples[0]
    assert source.execute("find", example.input).output == ["cafe"]
    assert copies.execute("copy_find", {"query": "q", "kinds": find.parameters["required"]}).success


def test_metadata_cannot_be_changed() -> None:
    """Examples, their inputs and outputs, and extra metadata are read-only."""
    meta = _registry().get_or_raise("find").metadata
    example = meta.examples[0]
    _assert_read_only(example.input, fresh_top=False)
    _assert_read_only(example.output, fresh_top=False)
    _assert_read_only(meta.extra, fresh_top=False)
    assert isinstance(meta.tags, tuple)
    plain = example.to_dict()  # a plain copy, the caller's to change
    plain["input"]["near"]["x"] = 99
    assert example.input["near"]["x"] == 1


def test_lists_returned_are_new_on_each_read() -> None:
    """list_all, names, search results and iteration hand out new lists."""
    registry = _registry()
    for read in (registry.list_all, registry.names, lambda: registry.list_by_tag("maps"),
                 lambda: registry.list_by_category("web")):  # fmt: skip
        first = read()
        first.clear()
        assert read()
    found = registry.search("find places")
    found.clear()
    assert registry.search("find places")


def test_read_only_values_copy_serialise_and_pickle() -> None:
    """deepcopy gives plain mutable trees; json, pickle and shallow copies work."""
    parameters = find.parameters
    thawed = copy.deepcopy(parameters)
    assert type(thawed) is dict
    assert all(type(node) in (dict, list) for node in _containers(thawed))
    thawed["properties"]["query"]["type"] = "integer"
    assert find.parameters["properties"]["query"]["type"] == "string"
    assert json.loads(json.dumps(parameters)) == parameters
    assert json.loads(json.dumps(parameters, indent=2)) == parameters
    assert type(copy.copy(parameters)) is dict
    assert type(dict(parameters)) is dict
    assert type(parameters.copy()) is dict
    assert type(parameters | {"x": 1}) is dict
    restored = pickle.loads(pickle.dumps(parameters))
    assert restored == parameters
    _assert_read_only(restored, fresh_top=False)


def test_cached_conversion_of_1000_tools_stays_under_a_millisecond() -> None:
    """A cached `to_provider` of 1,000 tools costs far less than 1 ms (a new list, no copy)."""
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    records = [{"name": f"t{i}", "description": "A tool.", "handler": lambda q: q,
                "parameters": schema} for i in range(1000)]  # fmt: skip
    registry = ToolRegistry(records)
    for provider in ("openai", "gemini"):
        registry.to_provider(provider)
        best = float("inf")
        for _ in range(20):
            start = time.perf_counter()
            registry.to_provider(provider)
            best = min(best, time.perf_counter() - start)
        assert best < 0.001, (provider, best)
