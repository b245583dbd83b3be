"""Hypothesis strategies for hostile input: model output, stream chunks, schemas, config files.

Shared by the fuzz targets (`tests.fuzz.targets`) and the property tests of the suite.
"""

from __future__ import annotations

import json
import operator
from typing import Any

from hypothesis import strategies as st

# Keys the parsers, the accumulators and the provider detection look at.
KEYS = st.sampled_from(
    ["type", "id", "name", "input", "arguments", "args", "function", "tool_calls", "choices",
     "message", "content", "parts", "candidates", "functionCall", "function_call", "output",
     "toolUse", "toolUseId", "method", "params", "model", "done", "call_id", "delta", "data",
     "index", "content_block", "partial_json", "contentBlockStart", "contentBlockDelta",
     "contentBlockStop", "contentBlockIndex", "start", "item", "item_id", "output_index",
     "partialArgs", "jsonPath", "willContinue", "stringValue", "finish_reason", "jsonrpc",
     "tool_references", "tool_name", "tools"]
) | st.text(max_size=4)  # fmt: skip


def _repeated(text: str, times: int) -> st.SearchStrategy[str]:
    """``text * times``, built when drawn (a short repr in hypothesis's reports)."""
    return st.builds(operator.mul, st.just(text), st.just(times))


def dumps(value: Any) -> str:
    """JSON text of ``value``; a value JSON cannot hold (a 5,000-digit integer) as a string."""
    try:
        return json.dumps(value, default=str)
    except ValueError:
        return json.dumps(type(value).__name__)


NASTY_STRINGS = st.sampled_from(
    ["", "\ud800", "{", '{"a": 1', "[" * 50, "null", "1e999", "\x00", "{'a': 1,}",
     "function", "tool_use", "message", "function_call", "tools/call", "content_block_start",
     "content_block_delta", "content_block_stop", "input_json_delta",
     "response.output_item.added", "response.function_call_arguments.delta",
     "response.output_item.done", "tool_search_tool_result", "tool_search_tool_search_result",
     "tool_reference", "tool_search_output", "namespace"]
) | _repeated("9", 5_000) | st.builds(
    lambda n: '{"a": ' + "[" * n + "]" * n + "}", st.sampled_from([300, 2_000])
)  # fmt: skip

SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | NASTY_STRINGS | st.sampled_from([-(2**64), float("nan")])
    | st.builds(pow, st.just(10), st.just(5_000))  # past what int() and str() take
)  # fmt: skip
PAYLOADS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=24,
)
"""Any JSON-like value, biased to the shapes of model responses."""


def _event(provider: str) -> st.SearchStrategy[Any]:
    """Chunks shaped like the provider's stream events, with any field replaced."""
    value = SCALARS | st.dictionaries(KEYS, SCALARS, max_size=3) | st.lists(SCALARS, max_size=2)
    small = st.integers(0, 3)
    shapes: dict[str, list[st.SearchStrategy[Any]]] = {
        "anthropic": [
            st.fixed_dictionaries({"type": st.just("content_block_start"), "index": small,
                                   "content_block": st.fixed_dictionaries(
                                       {"type": st.just("tool_use"), "id": value | st.just("t1"),
                                        "name": value | st.just("f")})}),
            st.fixed_dictionaries({"type": st.just("content_block_delta"), "index": small,
                                   "delta": st.fixed_dictionaries(
                                       {"type": st.just("input_json_delta"),
                                        "partial_json": value | NASTY_STRINGS})}),
            st.fixed_dictionaries({"type": st.just("content_block_stop"), "index": small}),
        ],
        "bedrock": [
            st.fixed_dictionaries({"contentBlockStart": st.fixed_dictionaries(
                {"contentBlockIndex": small, "start": st.fixed_dictionaries({
                    "toolUse": st.fixed_dictionaries({"toolUseId": value | st.just("t"),
                                                      "name": value | st.just("f")})})})}),
            st.fixed_dictionaries({"contentBlockDelta": st.fixed_dictionaries(
                {"contentBlockIndex": small, "delta": st.fixed_dictionaries(
                    {"toolUse": st.fixed_dictionaries({"input": value | NASTY_STRINGS})})})}),
            st.fixed_dictionaries({"contentBlockStop": st.fixed_dictionaries(
                {"contentBlockIndex": small | value})}),
        ],
        "openai": [
            st.fixed_dictionaries({"choices": st.lists(st.fixed_dictionaries({
                "index": small, "delta": st.fixed_dictionaries({"tool_calls": st.lists(
                    st.fixed_dictionaries({"index": small | value, "id": value | st.just("c"),
                                           "type": st.just("function"),
                                           "function": st.fixed_dictionaries(
                                               {"name": value | st.just("f"),
                                                "arguments": value | NASTY_STRINGS})}),
                    max_size=2)})}), max_size=2)}),
        ],
        "openai-responses": [
            st.fixed_dictionaries({"type": st.just("response.output_item.added"),
                                   "output_index": small | value,
                                   "item": st.fixed_dictionaries(
                                       {"type": st.just("function_call"),
                                        "id": value | st.just("i"),
                                        "call_id": value | st.just("c"),
                                        "name": value | st.just("f")})}),
            st.fixed_dictionaries({"type": st.just("response.function_call_arguments.delta"),
                                   "output_index": small | value, "item_id": value | st.just("i"),
                                   "delta": value | NASTY_STRINGS}),
            st.fixed_dictionaries({"type": st.just("response.output_item.done"),
                                   "output_index": small | value, "item": value}),
        ],
        "gemini": [
            st.fixed_dictionaries({"candidates": st.lists(st.fixed_dictionaries({
                "content": st.fixed_dictionaries({"parts": st.lists(st.fixed_dictionaries({
                    "functionCall": st.fixed_dictionaries(
                        {"name": value | st.just("f")},
                        optional={"id": value, "args": value, "willContinue": value,
                                  "partialArgs": st.lists(st.fixed_dictionaries(
                                      {"jsonPath": value | st.sampled_from(["$.a", "$.a[0]",
                                                                            "$" + ".a" * 200]),
                                       "stringValue": value, "willContinue": value}),
                                      max_size=2)})}), max_size=2)})}), max_size=2)}),
        ],
    }  # fmt: skip
    return st.one_of(*shapes.get(provider, []), PAYLOADS)


def chunks(provider: str) -> st.SearchStrategy[list[Any]]:
    """A chunk sequence for ``provider``'s accumulator: event-shaped or anything JSON-like."""
    chunk = _event(provider)
    as_text = chunk.map(dumps) | st.text(max_size=12)
    return st.lists(chunk | as_text, max_size=8)


SCHEMA_TYPES = st.sampled_from(
    ["string", "integer", "number", "boolean", "array", "object", "null"]
)
_LEAF_SCHEMAS = st.one_of(
    st.fixed_dictionaries({"type": SCHEMA_TYPES}),
    st.fixed_dictionaries({"type": st.just("string")}, optional={
        "enum": st.lists(st.text(max_size=4), min_size=1, max_size=3, unique=True),
        "pattern": st.sampled_from(["^a+$", "(?=x)", "[a-z]"]),
        "format": st.sampled_from(["date-time", "email", "uuid", "weird"]),
        "minLength": st.integers(0, 5), "maxLength": st.integers(5, 10),
        "description": st.text(max_size=20), "default": st.text(max_size=3)}),
    st.fixed_dictionaries({"type": st.sampled_from(["integer", "number"])}, optional={
        "minimum": st.integers(-5, 0), "maximum": st.integers(1, 10**30),
        "multipleOf": st.sampled_from([1, 2, 0.5]), "exclusiveMinimum": st.integers(-9, -6)}),
    st.fixed_dictionaries({"const": SCALARS.filter(lambda v: v == v)}),
    st.fixed_dictionaries({"type": st.lists(SCHEMA_TYPES, min_size=1, max_size=3, unique=True)}),
    st.just({}), st.just(True), st.just({"$ref": "#"}),
    st.just({"$ref": "#/$defs/node"}), st.just({"$ref": "#/$defs/missing"}),
)  # fmt: skip


def _compound(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    names = st.text(st.characters(codec="utf-8"), min_size=1, max_size=6)
    obj = st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.dictionaries(names, inner, max_size=3)},
        optional={"additionalProperties": st.booleans() | inner,
                  "required": st.lists(names, max_size=2), "description": st.text(max_size=10),
                  "patternProperties": st.dictionaries(st.just("^x"), inner, max_size=1)},
    )  # fmt: skip
    array = st.fixed_dictionaries(
        {"type": st.just("array")},
        optional={"items": inner, "prefixItems": st.lists(inner, max_size=2),
                  "minItems": st.integers(0, 3), "uniqueItems": st.booleans()},
    )  # fmt: skip
    combos = st.one_of(
        st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"oneOf": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"allOf": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"not": inner}),
    )
    return obj | array | combos


SUBSCHEMAS = st.recursive(_LEAF_SCHEMAS, _compound, max_leaves=10)


@st.composite
def parameter_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """A JSON-Schema-like object schema: properties, $defs, references and odd keywords."""
    names = st.text(st.characters(codec="utf-8"), min_size=1, max_size=6)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": draw(st.dictionaries(names, SUBSCHEMAS, max_size=4)),
    }
    if draw(st.booleans()):
        schema["required"] = draw(st.lists(st.sampled_from([*schema["properties"], "ghost"]),
                                           max_size=3, unique=True))  # fmt: skip
    if draw(st.booleans()):
        schema["additionalProperties"] = draw(st.booleans() | SUBSCHEMAS)
    if draw(st.booleans()):
        schema["$defs"] = {"node": draw(SUBSCHEMAS)}
    if draw(st.booleans()):
        schema["description"] = draw(st.text(max_size=30))
    return schema


@st.composite
def config_texts(draw: st.DrawFn) -> tuple[str, str]:
    """(suffix, text) of a configuration file: valid, broken, aliased or hostile definitions."""
    definitions = []
    for index in range(draw(st.integers(1, 3))):
        definition: dict[str, Any] = {
            "name": draw(st.sampled_from([f"tool_{index}", "", "bad name", "dup"])
                         | st.text(max_size=5)),
            "description": draw(st.text(max_size=10) | st.just("A tool.")),
            "parameters": draw(parameter_schemas() | SCALARS | st.lists(SCALARS, max_size=2)),
            "implementation": draw(st.fixed_dictionaries(
                {"type": st.sampled_from(["mock", "builtin", "internal", "http", "python"])},
                optional={"mock_response": PAYLOADS, "handler": st.text(max_size=5),
                          "url": st.sampled_from(["http://127.0.0.1:9/x", "ftp://x", "{u}"]),
                          "method": st.sampled_from(["GET", "POST", "BREW"])})),
        }  # fmt: skip
        extra = draw(st.dictionaries(KEYS, SCALARS, max_size=2))
        definition.update(extra)
        definitions.append(definition)
    suffix = draw(st.sampled_from([".yaml", ".json", ".toml"]))
    text = dumps(definitions)  # JSON is YAML too
    if suffix == ".toml":
        names = [d["name"] if isinstance(d["name"], str) else dumps(d["name"]) for d in definitions]
        text = "\n".join(f"[[tools]]\nname = {json.dumps(name)}\n" for name in names)
    if suffix == ".yaml" and draw(st.booleans()):
        text = draw(_yaml_oddities(text))
    return suffix, text


@st.composite
def _yaml_oddities(draw: st.DrawFn, text: str) -> str:
    levels = draw(st.integers(1, 12))
    width = draw(st.integers(1, 9))
    lines = ["x-bomb:", "  l0: &a0 [lol]"]
    lines += [f"  l{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels)]
    return draw(st.sampled_from([
        "\n".join(lines) + "\ntools: " + text,
        "tools:\n- name: deep\n  description: d\n  parameters: " + "[" * 400 + "]" * 400,
        "tools:\n- name: big\n  description: d\n  parameters: {maximum: " + "9" * 5_000 + "}",
        "tools:\n- &self [*self]",
        "tools:\n- !!python/object/apply:os.system ['echo hi']",
        "tools:\n- {name: x, <<: {description: d}}",
        text[: draw(st.integers(0, max(len(text) - 1, 0)))],
    ]))  # fmt: skip


def argument_texts() -> st.SearchStrategy[str]:
    """Argument text a model may send: JSON, almost-JSON, huge, deep or broken."""
    values = PAYLOADS.map(dumps)
    return values | NASTY_STRINGS | st.text(max_size=30)


_SECRET_CORES = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=8, max_size=16)
_EDGES = st.sampled_from(["", "", "\n", "\r\n", " ", "\t", "\x00", "\x1b", "é", "\u2028"])


@st.composite
def servers_documents(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """(servers.json document, environment, secrets): credentials with hostile edges, given
    literally or through ``${VAR}``, in headers, env, URL query values and userinfo."""
    secrets: list[str] = []
    environ: dict[str, str] = {}

    def secret(index: int, where: str) -> str:
        core = "sk-" + draw(_SECRET_CORES)
        secrets.append(core)
        value = draw(_EDGES) + core + draw(_EDGES)
        if draw(st.booleans()):
            return value
        name = f"FUZZ_{where}_{index}"
        environ[name] = value
        return "${" + name + "}"

    servers: dict[str, Any] = {}
    for index in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            userinfo = f"me:{secret(index, 'PASS')}@" if draw(st.booleans()) else ""
            entry: dict[str, Any] = {
                "url": f"http://{userinfo}127.0.0.1:9/mcp?key={secret(index, 'QUERY')}",
                "headers": {draw(st.sampled_from(["X-Key", "Authorization", "Bad Name", ""])):
                            secret(index, "HEADER")},
            }  # fmt: skip
        else:
            entry = {"command": "server", "env": {draw(st.sampled_from(["API_KEY", "A=B", ""])):
                                                  secret(index, "ENV")}}  # fmt: skip
        servers[draw(st.sampled_from([f"s{index}", "x y", "ü", "a.b"]))] = entry
    return {"mcpServers": servers}, environ, secrets
