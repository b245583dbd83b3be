"""Acceptance: ``forge-tools validate`` and ``export`` agree on real and crafted MCP tools.

The registry holds the tools of the PyPI servers time, git and fetch, the crafted server's
tools (a recursive ``$ref``, a 2,600-character description, a boolean sub-schema, draft-04
``exclusiveMinimum: true``) and a record with an array output schema. For every provider:

- a tool ``validate`` gives an error for is one whose export fails, and
  exporting every other tool succeeds, with definitions the provider's SDK accepts;
- every tool ``export`` rewrites (name, description or schema not as defined) has a
  ``validate`` finding for that provider.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import cli_registries
import pytest
from real_servers import fetch_server, git_repository, git_server, time_server

from forge.cli import EXIT_OK, main
from forge.core.errors import ToolDefinitionError
from forge.mcp import MCPClient, import_tools
from forge.tools import Tool, from_record
from forge.tools.formats import PROVIDERS
from tests.unit.tools.formats.conftest import oracles

pytestmark = pytest.mark.slow  # real MCP server subprocesses

CRAFTED = [sys.executable, str(Path(__file__).parent / "servers" / "crafted_server.py")]
CRAFTED_NAMES = {"tree_insert", "search_knowledge_base", "store_anything", "positive_count"}
FULL = "cli_registries:full"
SUBSET = "cli_registries:subset"
# Keywords that carry meaning in Gemini's OpenAPI subset (titles and comments do not).
_MEANING = (
    "type", "format", "description", "enum", "const", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems",
    "uniqueItems", "minProperties", "maxProperties", "pattern", "required", "default", "nullable",
)  # fmt: skip
# Where a JSON Schema keyword holds one sub-schema, a map of them, or a list of them.
_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else")
_MAP = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_LIST = ("anyOf", "oneOf", "allOf", "prefixItems")


def _array_output_tool() -> Tool | None:
    """A record with a non-object output schema, or None where such a record is refused."""
    try:
        return from_record(
            {
                "name": "list_labels",
                "description": "List the labels in use.",
                "output_schema": {"type": "array", "items": {"type": "string"}},
                "handler": lambda _args: ["a", "b"],
            }
        )
    except ToolDefinitionError:
        return None  # refusing it where it is defined is one of the accepted fixes


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, MCPClient]]:
    """The servers' tools imported into ``cli_registries.full`` (emptied in teardown)."""
    repo = git_repository(tmp_path_factory.mktemp("agree") / "repo")
    commands = {"time": time_server(), "git": git_server(repo), "fetch": fetch_server(),
                "crafted": CRAFTED}  # fmt: skip
    opened: dict[str, MCPClient] = {}
    try:
        for name, command in commands.items():
            opened[name] = import_tools(cli_registries.full, command, timeout=30)
        extra = _array_output_tool()
        if extra is not None:
            cli_registries.full.register(extra)
        yield opened
    finally:
        for client in opened.values():
            client.close()
        cli_registries.full.clear()
        cli_registries.subset.clear()


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _findings(capsys: pytest.CaptureFixture[str]) -> list[dict[str, str]]:
    code, out, err = _cli(capsys, "validate", "--tools", FULL, "--json")
    assert code in (EXIT_OK, 4), err
    report = json.loads(out)
    assert set(report["tools"]) == set(cli_registries.full.names())
    return list(report["findings"])


def test_every_crafted_tool_is_imported(clients: dict[str, MCPClient]) -> None:
    """Each crafted definition becomes a tool (older drafts are normalised, not refused)."""
    assert set(clients["crafted"].tool_names) == CRAFTED_NAMES


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_validate_reports_every_failure_and_rewrite_of_export(
    clients: dict[str, MCPClient], capsys: pytest.CaptureFixture[str], provider: str
) -> None:
    """What validate reports for a provider is what export fails on or rewrites."""
    findings = _findings(capsys)
    failing = {f["tool"] for f in findings
               if f["severity"] == "error" and f["provider"] in (provider, "all")}  # fmt: skip
    reported = {f["tool"] for f in findings if f["provider"] == provider}

    code, _out, err = _cli(capsys, "export", "--format", provider, "--tools", FULL)
    if code != EXIT_OK:
        assert failing, f"export --format {provider} failed, validate saw no error: {err}"
        assert any(name in err for name in failing), err
    for name in sorted(failing - {f["tool"] for f in findings if f["provider"] == "all"}):
        code, _out, err = _cli(capsys, "show", name, "--format", provider, "--tools", FULL)
        assert code != EXIT_OK, f"validate: {name} fails for {provider}, but it exports"

    cli_registries.subset.clear()
    kept = [t for t in cli_registries.full.list_all() if t.name not in failing]
    cli_registries.subset.register_many(kept)
    code, out, err = _cli(capsys, "export", "--format", provider, "--tools", SUBSET)
    assert code == EXIT_OK, f"export --format {provider} of the tools validate passes: {err}"
    if provider == "langchain":
        return  # StructuredTool objects: the CLI prints their repr, there is no JSON to read
    definitions = json.loads(out)
    if provider == "gemini":
        definitions = definitions[0]["functionDeclarations"] if definitions else []
    assert len(definitions) == len(kept)
    rewritten = set()
    for tool, definition in zip(kept, definitions, strict=True):
        try:
            oracles()[provider](definition)
        except Exception as exc:
            pytest.fail(f"{provider}'s SDK rejects the export of {tool.name}: {exc}")
        _check_mcp_output_schema(provider, definition)
        if _rewrites(provider, tool, definition):
            rewritten.add(tool.name)
    unreported = rewritten - reported
    assert not unreported, f"export --format {provider} rewrites {sorted(unreported)} unreported"


def _check_mcp_output_schema(provider: str, definition: Mapping[str, Any]) -> None:
    """MCP 2025-11-25 restricts ``outputSchema`` to ``type: object`` at the root."""
    if provider == "mcp" and "outputSchema" in definition:
        assert definition["outputSchema"].get("type") == "object", definition


def _rewrites(provider: str, tool: Tool, definition: Mapping[str, Any]) -> bool:
    """Whether the export says something other than the tool's name, description or schema."""
    name, description, schema = _parts(provider, definition)
    if name != tool.name or description != tool.description:
        return True
    ours, theirs = _spelled(tool.parameters), _spelled(schema)
    if provider == "gemini" and schema is None:  # declared without parameters: it takes none
        return bool(ours.get("properties"))
    if provider == "gemini" and "parameters" in definition:
        return _meaning(theirs, theirs) != _meaning(ours, ours)
    return bool(theirs != ours)


def _parts(provider: str, d: Mapping[str, Any]) -> tuple[str, str | None, Any]:
    """(name, description, schema) of one exported definition."""
    if provider in ("openai", "ollama", "mistral"):
        d = d["function"]
    if provider == "bedrock":
        spec = d["toolSpec"]
        return spec["name"], spec.get("description"), spec["inputSchema"]["json"]
    key = {"anthropic": "input_schema", "mcp": "inputSchema"}.get(provider, "parameters")
    if provider == "gemini":
        key = "parameters" if "parameters" in d else "parametersJsonSchema"
    return d["name"], d.get("description"), d.get(key)


def _spelled(schema: Any) -> Any:
    """``schema`` with each ``true`` sub-schema spelled ``{}`` (the same schema)."""
    if schema is True:
        return {}
    if not isinstance(schema, Mapping):
        return schema
    out = dict(schema)
    for key, value in schema.items():
        if key in _ONE:
            out[key] = _spelled(value)
        elif key in _MAP and isinstance(value, Mapping):
            out[key] = {k: _spelled(v) for k, v in value.items()}
        elif key in _LIST and isinstance(value, list):
            out[key] = [_spelled(v) for v in value]
    return out


def _meaning(node: Any, root: Any, seen: tuple[str, ...] = ()) -> Any:
    """What a schema says, in terms both JSON Schema and Gemini's OpenAPI subset can state."""
    if not isinstance(node, Mapping):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in seen:
            return {"recursive": ref}
        target: Any = root
        for part in ref.removeprefix("#/").split("/"):
            target = target[part]
        return _meaning(target, root, (*seen, ref))
    node = _fold_null(node)
    out = {k: node[k] for k in _MEANING if k in node and node[k] is not None}
    if isinstance(out.get("type"), str):
        out["type"] = out["type"].lower()
    if out.get("nullable") is False:
        del out["nullable"]
    if isinstance(node.get("properties"), Mapping):
        out["properties"] = {k: _meaning(v, root, seen) for k, v in node["properties"].items()}
    if "items" in node:
        out["items"] = _meaning(node["items"], root, seen)
    if isinstance(node.get("anyOf"), list):
        out["anyOf"] = [_meaning(v, root, seen) for v in node["anyOf"]]
    return out


def _fold_null(node: Mapping[str, Any]) -> Mapping[str, Any]:
    """``anyOf: [X, {type: null}]`` and ``type: [t, null]`` as X / t with ``nullable``."""
    options = node.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options and len(options) == 2:
        other = next(o for o in options if o != {"type": "null"})
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        return {**other, **rest, "nullable": True}
    kinds = node.get("type")
    if isinstance(kinds, list) and "null" in kinds and len(kinds) == 2:
        return {**node, "type": next(k for k in kinds if k != "null"), "nullable": True}
    return node
