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


CONFIG_NUMBERS = st.one_of(
    st.sampled_from([10**400, -(10**400), 2**63, 1e308, -1, 0, True, 1.5, 31_536_001]),
    st.integers(), st.floats(),
)  # fmt: skip
"""Numbers for a definition's limits: huge, infinite, NaN, negative, boolean, fractional."""


def _tool_bomb(levels: int, width: int, where: str) -> str:
    """A YAML file with one valid tool and one whose ``where`` is an alias tree."""
    tree = [f"        l0: &b0 [{', '.join(['lol'] * width)}]"]
    tree += [f"        l{i}: &b{i} [{', '.join([f'*b{i - 1}'] * width)}]" for i in range(1, levels)]
    body = {
        "mock": "  parameters: {type: object}\n  implementation:\n    type: mock\n"
        "    mock_response:\n      x:\n",
        "parameters": "  implementation: {type: mock, mock_response: 1}\n  parameters:\n"
        "    type: object\n    $defs:\n      x:\n",
    }[where]
    return (
        "tools:\n- name: good\n  description: d\n  parameters: {type: object}\n"
        "  implementation: {type: mock, mock_response: 1}\n"
        f"- name: bomb\n  description: d\n{body}" + "\n".join(tree) + "\n"
    )


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
                          "method": st.sampled_from(["GET", "POST", "BREW"]),
                          "timeout": CONFIG_NUMBERS, "max_response_bytes": CONFIG_NUMBERS})),
        }  # fmt: skip
        if draw(st.booleans()):
            key = draw(st.sampled_from(["timeout", "max_concurrency", "output_limit"]))
            definition[key] = draw(CONFIG_NUMBERS)
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
        _tool_bomb(levels, width, draw(st.sampled_from(["mock", "parameters"]))),
        "tools:\n- name: slow\n  description: d\n  parameters: {type: object}\n  implementation:"
        f" {{type: http, url: 'https://a.example', timeout: {draw(CONFIG_NUMBERS)!r}, "
        f"max_response_bytes: {draw(CONFIG_NUMBERS)!r}}}\n",
    ]))  # fmt: skip


def argument_texts() -> st.SearchStrategy[str]:
    """Argument text a model may send: JSON, almost-JSON, huge, deep or broken."""
    values = PAYLOADS.map(dumps)
    return values | NASTY_STRINGS | st.text(max_size=30)


#: Server names, prefixes and remote tool names that probe how gateway names are formed.
GATEWAY_WORDS = st.sampled_from(
    ["a", "a__b", "b", "google", "google_drive", "drive", "files", "f", "t_", "t_x", "_", "-",
     "1x", "a b", "é", "", "search_tools", "echo", "b__echo", "a__b__echo", "drive_upload",
     "read_file", "files__read_file", "delete.file", "delete_file", "f__delete_file",
     "math.factorial", "math_factorial", "p" * 58 + "__", "x" * 70, "a.b/c", "\u00a0"]
) | st.text(max_size=10)  # fmt: skip


@st.composite
def gateway_layouts(draw: st.DrawFn) -> dict[str, Any]:
    """A gateway's servers.json (hostile names, prefixes and separators) and the tool names
    each server lists: ``{"document", "separator", "tools": {server: [names]}}``."""
    servers: dict[str, Any] = {}
    tools: dict[str, list[str]] = {}
    for _ in range(draw(st.integers(1, 4))):
        name = draw(GATEWAY_WORDS)
        entry: dict[str, Any] = {"command": "x"}
        if draw(st.booleans()):
            prefix = draw(GATEWAY_WORDS | st.builds(operator.add, GATEWAY_WORDS, GATEWAY_WORDS))
            entry["forge"] = {"prefix": prefix}
        servers[name] = entry
        tools[name] = draw(st.lists(
            GATEWAY_WORDS | st.builds(operator.add, GATEWAY_WORDS, GATEWAY_WORDS), max_size=6
        ))  # fmt: skip
    document: dict[str, Any] = {"mcpServers": servers}
    if draw(st.booleans()):
        document["forge"] = {"search_only": True}
    separator = draw(st.none() | st.sampled_from(["__", "_", "-", "x", "__x", ""]))
    return {"document": document, "separator": separator, "tools": tools}


CATALOG_OWN = "http://127.0.0.1"
"""The origin the fuzzed catalog is reached at (``catalog_requests``)."""


@st.composite
def catalog_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A state-changing request to the web catalog from anywhere: any method, path, Origin,
    Sec-Fetch-Site, Content-Type and body, with or without the CSRF or bearer token.

    ``csrf`` and ``bearer`` say whether to send the real token (``True``), a wrong one
    (``"wrong"``) or none (``None``); the target fills the real values in.
    """
    origins = st.sampled_from(
        [
            CATALOG_OWN,
            "http://127.0.0.1:80",
            "http://127.0.0.1:8766",
            "http://localhost",
            "http://localhost:8766",
            "https://127.0.0.1",
            "null",
            "http://[::1]",
            "http://127.0.0.1.",
            "http://x@127.0.0.1",
            "http://127.0.0.1:99999",
            "",
            "file://",
        ]
    ) | st.text(max_size=12)
    types = st.sampled_from(
        [
            "application/json",
            "application/json; charset=utf-8",
            "APPLICATION/JSON",
            "text/plain",
            "text/plain;charset=UTF-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; b=x",
            "application/json-patch+json",
            "application/jsonx",
            "",
        ]
    )
    body = st.one_of(
        PAYLOADS.map(lambda v: dumps({"arguments": {"prefix": "p"}, "confirm": True, "x": v})),
        st.just(dumps({"arguments": {"prefix": "p"}, "confirm": True})),
        PAYLOADS.map(dumps),
        NASTY_STRINGS,
        st.text(max_size=20),
        st.builds(
            lambda n: '{"arguments": {"prefix": ' + "[" * n + "]" * n + '}, "confirm": true}',
            st.sampled_from([300, 5_000, 100_000]),
        ),
        st.just('{"arguments": {"prefix": ' + "7" * 5_000 + '}, "confirm": true}'),
    ).map(lambda text: text.encode("utf-8", "surrogatepass")) | st.binary(max_size=12)
    if draw(st.booleans()):  # the catalog's own run, with one or two things changed
        request = {
            "method": "POST",
            "path": "/api/tools/wipe/run",
            "origin": CATALOG_OWN,
            "site": "same-origin",
            "type": "application/json",
            "csrf": True,
            "bearer": None,
            "body": b'{"arguments": {"prefix": "p"}, "confirm": true}',
        }
        changed = {
            "method": st.sampled_from(["PUT", "DELETE", "PATCH"]),
            "origin": origins,
            "site": st.sampled_from(["same-site", "cross-site", "none", ""]),
            "type": types,
            "csrf": st.sampled_from([None, "wrong"]),
            "bearer": st.sampled_from([True, "wrong"]),
            "body": body,
            "path": st.just("/api/tools/plain/run"),
        }
        for key in draw(st.lists(st.sampled_from(sorted(changed)), max_size=2, unique=True)):
            request[key] = draw(changed[key])
        return request
    return {
        "method": draw(st.sampled_from(["POST", "POST", "POST", "PUT", "DELETE", "PATCH"])),
        "path": draw(st.sampled_from(["/api/tools/wipe/run", "/api/tools/plain/run",
                                      "/api/tools/wipe/validate", "/login", "/api/nothing",
                                      "/api/tools/nope/run", "/api/session", "/"])),
        "origin": draw(st.none() | origins),
        "site": draw(st.none() | st.sampled_from(["same-origin", "same-site", "cross-site",
                                                  "none", "SAME-ORIGIN", ""])),
        "type": draw(st.none() | types),
        "csrf": draw(st.sampled_from([None, True, "wrong"])),
        "bearer": draw(st.sampled_from([None, True, "wrong"])),
        "body": draw(body),
    }  # fmt: skip


@st.composite
def schema_bombs(draw: st.DrawFn) -> dict[str, Any]:
    """A small schema whose definitions each refer to the next several times, many levels
    deep: inlined, it would double (or more) at every level."""
    levels = draw(st.integers(8, 40))
    width = draw(st.integers(2, 4))
    where = draw(st.sampled_from(["$defs", "definitions", "properties"]))
    shape = draw(st.sampled_from(["properties", "anyOf", "allOf", "items", "prefixItems"]))
    sibling = draw(st.sampled_from([None, "description", "type", "default"]))
    text = draw(st.text(max_size=40))

    def ref(i: int) -> dict[str, Any]:
        out: dict[str, Any] = {"$ref": f"#/{where}/d{i}"}
        if sibling == "type":
            out["type"] = "object"
        elif sibling is not None:
            out[sibling] = text
        return out

    def body(i: int) -> dict[str, Any]:
        refs = [ref(i + 1) for _ in range(width)]
        if shape == "properties":
            return {"type": "object", "properties": {f"k{j}": r for j, r in enumerate(refs)},
                    "description": text}  # fmt: skip
        if shape == "items":
            return {"type": "array", "items": {"anyOf": refs}}
        if shape == "prefixItems":
            return {"type": "array", "prefixItems": refs}
        return {shape: refs}

    defs = {f"d{i}": body(i) for i in range(levels)}
    defs[f"d{levels}"] = draw(SUBSCHEMAS)
    schema: dict[str, Any] = {"type": "object"}
    if where == "properties":
        schema["properties"] = {"x": ref(0), **defs}
    else:
        schema["properties"] = {"x": ref(0)}
        schema[where] = defs
    if draw(st.booleans()):
        schema["required"] = ["x"]
    return schema


def _turn_response(provider: str, value: Any, text: Any) -> Any:
    """A response in ``provider``'s shape with ``value`` and ``text`` where content goes."""
    part = {"type": "text", "text": text}
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": value}}
    shapes: dict[str, Any] = {
        "openai": {"choices": [{"message": {"role": "assistant", "content": value,
                                            "tool_calls": [call]}}]},
        "mistral": {"choices": [{"message": {"role": "assistant", "content": [part]}}]},
        "ollama": {"message": {"role": "assistant", "content": value, "thinking": text}},
        "openai-responses": {"output": [
            {"type": "message", "role": "assistant", "content": value},
            {"type": "message", "content": [{"type": "output_text", "text": text}]},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": value}]},
        "anthropic": {"role": "assistant", "content": [
            {"type": "text", "text": text}, {"type": "tool_use", "id": "c1", "name": "f",
                                             "input": value}]},
        "gemini": {"candidates": [{"content": {"role": "model", "parts": [
            {"text": text}, {"functionCall": {"name": "f", "args": value}}]}}]},
        "bedrock": {"output": {"message": {"role": "assistant", "content": [
            {"text": text}, {"toolUse": {"toolUseId": "c1", "name": "f", "input": value}}]}}},
    }  # fmt: skip
    return shapes[provider]


TURN_PROVIDERS = ["openai", "mistral", "ollama", "openai-responses", "anthropic", "gemini",
                  "bedrock"]  # fmt: skip


@st.composite
def turn_messages(draw: st.DrawFn) -> tuple[Any, str | None]:
    """(response, provider or None): a provider's response shape with hostile content and
    text (any JSON-like value), or any payload at all."""
    provider = draw(st.sampled_from(TURN_PROVIDERS))
    if draw(st.integers(0, 4)) == 0:
        response = draw(PAYLOADS)
    else:
        response = _turn_response(provider, draw(PAYLOADS), draw(PAYLOADS))
    if draw(st.booleans()):
        response = dumps(response)
    return response, draw(st.sampled_from([None, provider]))


_OPENAPI_BASE: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Shop", "version": "1"},
    "servers": [{"url": "https://{host}/v1",
                 "variables": {"host": {"default": "api.example.com"}}}],
    "security": [{"key": []}],
    "paths": {
        "/items/{id}": {
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "integer"}}],
            "get": {"operationId": "getItem", "tags": ["items"],
                    "parameters": [{"$ref": "#/components/parameters/Fields"}],
                    "responses": {"200": {"description": "OK"}}},
            "put": {"operationId": "putItem", "security": [{"bearer": []}, {}],
                    "requestBody": {"required": True, "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Item"}}}},
                    "responses": {"204": {"description": "Done"}}},
        },
    },
    "components": {
        "parameters": {"Fields": {"name": "fields", "in": "query",
                                  "schema": {"type": "array", "items": {"type": "string"}}}},
        "schemas": {"Item": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "example": "pen"},
            "parent": {"$ref": "#/components/schemas/Item"},
            "kind": {"type": "string", "enum": ["a", "b"], "nullable": True}}}},
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"},
                            "bearer": {"type": "http", "scheme": "bearer"}},
    },
}  # fmt: skip
_OPENAPI_VALUES = (
    PAYLOADS | SUBSCHEMAS | st.sampled_from([
        "${HOME}", "/x/${HOME}", {"$ref": "#/components/schemas/Item"}, {"$ref": "#/nowhere"},
        {"$ref": 5}, {"$ref": "other.yaml#/x"}, {"type": "apiKey", "in": "cookie", "name": "${A}"},
        [{"key": [], "bearer": []}], {"url": "/relative"}, {"200": {"description": "OK"}},
    ])
)  # fmt: skip


def _containers(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    children = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in children:
        if isinstance(child, dict | list) and child:
            found += _containers(child, (*path, key))
    return found


@st.composite
def openapi_documents(draw: st.DrawFn) -> tuple[str, Any]:
    """(kind, document): a small valid OpenAPI document mutated, as a mapping, JSON or YAML.

    Mutations set, replace or delete values anywhere with hostile JSON-like values,
    schemas and OpenAPI shapes; YAML documents may also get unquoted response codes,
    an alias bomb, a recursive alias, deep nesting or a huge integer.
    """
    import copy

    document = copy.deepcopy(_OPENAPI_BASE)
    for _ in range(draw(st.integers(0, 4))):
        path = draw(st.sampled_from(_containers(document)))
        node: Any = document
        for key in path:
            node = node[key]
        if isinstance(node, dict):
            key = draw(st.sampled_from(sorted(node)) | KEYS | st.sampled_from(["$ref", "x-a"]))
        else:
            key = draw(st.integers(0, len(node) - 1)) if node else 0
        if draw(st.integers(0, 4)) == 0 and isinstance(node, dict):
            node.pop(key, None)
        elif isinstance(node, dict) or node:
            node[key] = copy.deepcopy(draw(_OPENAPI_VALUES))  # never a strategy's own constant
    kind = draw(st.sampled_from(["mapping", "json", "yaml"]))
    if kind == "mapping":
        return kind, document
    text = dumps(document)
    if kind == "yaml" and draw(st.booleans()):
        text = draw(_openapi_yaml_oddities(text))
    return kind, text


@st.composite
def _openapi_yaml_oddities(draw: st.DrawFn, text: str) -> str:
    width = draw(st.integers(2, 9))
    levels = draw(st.integers(1, 12))
    bomb = ["x-a0: &a0 [lol]"]
    bomb += [f"x-a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels)]
    head = 'openapi: 3.0.3\ninfo: {title: T, version: "1"}\nservers: [{url: "https://a.b"}]\n'
    codes = "paths:\n  /x:\n    get:\n      responses:\n        200: {description: OK}\n"
    return draw(st.sampled_from([
        text.replace('"200"', "200").replace('"204"', "204"),
        head + "\n".join(bomb) + "\n" + codes,
        head + "paths: &p {/x: *p}\n",
        head + codes + "x-deep: " + "[" * 3_000 + "]" * 3_000 + "\n",
        head + codes + "x-big: " + "9" * 5_000 + "\n",
        head + codes + "x-odd: [!!binary aGk=, !!set {a}, .nan, 2024-13-45, 2024-01-31]\n",
        text[: draw(st.integers(0, max(len(text) - 1, 0)))],
    ]))  # fmt: skip


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


_QUERY_PIECES = st.sampled_from(
    ["查询北京的天气", "然后", "\uff0c", "\u3002", "並且", "第二\uff0c", "預訂機票", "天気を調べて",
     "weather", "then", "and then", "finally", "; ", "\n", "1. ", "movie_id 42", "id",
     "search", "\u0301", "\u200b", "\ufeff", "\ud800", "\x00", "\x1b[31m", "..", "!!!", " "]
)  # fmt: skip


@st.composite
def search_queries(draw: st.DrawFn) -> tuple[str, int]:
    """A search request (any text, biased to step words, Chinese and odd characters) and a
    limit; now and then tens of thousands of characters or a hundred steps."""
    pieces = draw(st.lists(_QUERY_PIECES | st.text(max_size=12), max_size=30))
    text = "".join(pieces)
    size = draw(st.sampled_from([0, 0, 0, 100, 20_000]))
    if size:
        text = (text or "天气") * (size // max(len(text), 1) + 1)
    limit = draw(st.sampled_from([1, 2, 3, 10, 50]))
    return text[: max(size, len(text))], limit
