"""The fuzz targets: one per parser, each a strategy and a check of the documented contract.

A check returns normally for every input, or raises `AssertionError` (a broken contract);
any other exception escaping a check is a bug too.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from forge.core.errors import (
    ConfigError,
    ConfigWarning,
    SchemaConversionError,
    ToolDefinitionError,
)
from forge.tools import (
    ToolCall,
    ToolCallAccumulator,
    ToolRegistry,
    from_record,
    parse_tool_calls,
    revealed_tools,
)
from forge.tools.config import load_tools
from forge.tools.formats.limits import MAX_BUILT_SCHEMA
from forge.tools.parsing import PROVIDERS, ToolCallFormatError
from tests.fuzz.strategies import (
    CATALOG_OWN,
    PAYLOADS,
    argument_texts,
    catalog_requests,
    chunks,
    config_texts,
    gateway_layouts,
    openapi_documents,
    parameter_schemas,
    schema_bombs,
    search_queries,
    servers_documents,
    turn_messages,
)


@dataclass(frozen=True, slots=True)
class Target:
    """One fuzz target."""

    name: str
    strategy: st.SearchStrategy[Any]
    check: Callable[[Any], None]
    doc: str


def _calls_are_well_formed(calls: list[ToolCall]) -> None:
    for call in calls:
        assert isinstance(call, ToolCall)
        assert isinstance(call.id, str), call.id
        assert isinstance(call.name, str), call.name
        assert isinstance(call.arguments, dict)


def check_parse(payload: Any, provider: str | None) -> None:
    """`parse_tool_calls` gives well-formed calls or `ToolCallFormatError`, nothing else."""
    try:
        calls = parse_tool_calls(payload, provider)
    except ToolCallFormatError:
        return
    _calls_are_well_formed(calls)


def check_stream(sequence: list[Any], provider: str | None) -> None:
    """An accumulator takes any chunk sequence: calls, or `ToolCallFormatError` per chunk."""
    accumulator = ToolCallAccumulator(provider)
    for chunk in sequence:
        try:
            _calls_are_well_formed(accumulator.add(chunk))
        except ToolCallFormatError:
            continue
    try:
        _calls_are_well_formed(accumulator.finish())
    except ToolCallFormatError:  # a call the stream left without a name
        return


def check_revealed(payload: Any, provider: str | None) -> None:
    """`revealed_tools` gives tool names or `ToolCallFormatError`, nothing else."""
    try:
        names = revealed_tools(payload, provider)
    except ToolCallFormatError:
        return
    assert isinstance(names, list)
    assert all(isinstance(name, str) and name for name in names), names


def check_arguments(text: str) -> None:
    """Any argument text decodes to a dict or flags the call; the call keeps a string id."""
    payload = {"tool_calls": [{"id": "c", "type": "function",
                               "function": {"name": "f", "arguments": text}}]}  # fmt: skip
    (call,) = parse_tool_calls(payload, "openai")
    _calls_are_well_formed([call])
    assert call.argument_error is None or call.arguments == {}


def check_config(file: tuple[str, str]) -> None:
    """Lenient loading never raises; strict loading raises only `ConfigError`."""
    suffix, text = file
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"tools{suffix}"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConfigWarning)
            report = load_tools(path)
        assert all(issue.message for issue in report.issues)
        with contextlib.suppress(ConfigError):
            load_tools(path, strict=True)


def _handler(**_: Any) -> None:
    """Never run."""


def check_import(schema: Any) -> None:
    """Importing a foreign definition gives a tool or `ToolDefinitionError`, nothing else."""
    from forge.tools.importers.normalize import normalize_definition

    try:
        normalized = normalize_definition({"name": "probe", "description": "d",
                                           "parameters": schema})  # fmt: skip
        from_record(normalized.to_record(_handler))
    except ToolDefinitionError:
        pass
    with contextlib.suppress(ToolDefinitionError):
        from_record({"name": "probe", "description": "d", "parameters": schema,
                     "handler": _handler})  # fmt: skip


def check_export(schema: Any) -> None:
    """Every export of an accepted schema passes its SDK's type or raises the conversion error."""
    from forge.tools.formats import PROVIDERS as FORMATS
    from tests.unit.tools.formats.conftest import oracles

    try:
        tool = from_record({"name": "probe", "description": "d", "parameters": schema,
                            "handler": _handler})  # fmt: skip
    except ToolDefinitionError:
        return
    registry = ToolRegistry([tool])
    sdk = oracles()
    for provider in FORMATS:
        for strict in (False, True):
            try:
                [definition] = registry.to_provider(provider, strict=strict, errors="raise")
            except SchemaConversionError as exc:
                assert exc.tool_name == "probe"  # noqa: PT017 (a fuzz check, not a test)
                [definition] = registry.to_provider(provider, strict=strict)  # reported instead
            item = definition["functionDeclarations"][0] if provider == "gemini" else definition
            sdk[provider](item)


def check_gateway_names(layout: dict[str, Any]) -> None:
    """A servers file loads or raises `ServersFileError`; then every name the gateway would
    serve has exactly one owner, the server that lists it (colliding prefixes refused)."""
    from forge.gateway.config import ServersFileError, parse_servers
    from forge.gateway.gateway import Gateway
    from forge.mcp import MCPClient
    from forge.tools.schema import is_valid_name

    try:
        config = parse_servers(layout["document"], {}, separator=layout["separator"])
        gateway = Gateway(config)
    except ServersFileError:
        return
    try:
        served: dict[str, str] = {}
        for server in config.servers:
            client = MCPClient("http://127.0.0.1:9/mcp", ToolRegistry(), prefix=server.prefix)
            remote = layout["tools"].get(server.name, [])
            client.names.add_all(server.prefix + name for name in remote)  # as a listing does
            for name in dict.fromkeys(map(client.local_name, remote)):
                if gateway.refusal(server, name) is not None:
                    continue
                assert is_valid_name(name), name
                assert name not in served, (name, served[name], server.name)
                assert not (config.search_only and name == "search_tools")
                owner = gateway.owner(name)
                assert owner is not None, name
                assert owner.name == server.name, (name, server.name)
                served[name] = server.name
    finally:
        gateway.close()


CATALOG_TOKEN = "fuzz-catalog-token-0123456789"
_CATALOGS: dict[bool, tuple[Any, list[str], dict[str, str]]] = {}


def _fuzzed_catalog(with_token: bool) -> tuple[Any, list[str], dict[str, str]]:
    """A catalog app (with or without a token), the runs its tools made, and what a signed-in
    page of it holds: its cookie and CSRF token."""
    if with_token in _CATALOGS:
        return _CATALOGS[with_token]
    import asyncio

    import httpx

    from forge.catalog import Catalog
    from forge.catalog.app import catalog_app
    from forge.tools import tool

    ran: list[str] = []

    @tool(annotations={"destructiveHint": True})
    def wipe(prefix: str) -> str:
        """Destructive."""
        ran.append("wipe")
        return prefix

    @tool
    def plain(prefix: str) -> str:
        """No hints, so destructive as MCP reads it."""
        ran.append("plain")
        return prefix

    app = catalog_app(Catalog(ToolRegistry([wipe, plain])),
                      token=CATALOG_TOKEN if with_token else None)  # fmt: skip

    async def sign_in() -> dict[str, str]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=CATALOG_OWN) as client:
            if with_token:
                await client.post("/login", data={"token": CATALOG_TOKEN})
            held = dict(client.cookies)
            held["csrf"] = (await client.get("/api/session")).json()["csrf"]
            return held

    _CATALOGS[with_token] = (app, ran, asyncio.run(sign_in()))
    return _CATALOGS[with_token]


def check_catalog_request(request: dict[str, Any]) -> None:
    """No request runs a tool unless it came from the catalog's page or holds the bearer token
    (own or no Origin, a JSON body, the CSRF token); none gets a 5xx."""
    import asyncio

    import httpx

    for with_token in (False, True):
        app, ran, held = _fuzzed_catalog(with_token)
        headers = {"origin": request["origin"], "sec-fetch-site": request["site"],
                   "content-type": request["type"]}  # fmt: skip
        if request["csrf"] is not None:
            headers["x-forge-csrf"] = held["csrf"] if request["csrf"] is True else "wrong"
        if request["bearer"] is not None:
            token = CATALOG_TOKEN if request["bearer"] is True else "wrong-token-0000000000"
            headers["authorization"] = f"Bearer {token}"
        sent = {k: v.encode("latin-1", "replace") for k, v in headers.items() if v is not None}
        cookies = {k: v for k, v in held.items() if k != "csrf"}

        async def send(sent: dict[str, bytes] = sent, cookies: dict[str, str] = cookies) -> Any:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url=CATALOG_OWN,
                                         cookies=cookies) as client:  # fmt: skip
                return await client.request(request["method"], request["path"],
                                            content=request["body"], headers=sent)  # fmt: skip

        before = len(ran)
        response = asyncio.run(send())
        assert response.status_code < 500, (response.status_code, response.text[:300])
        if len(ran) == before:
            continue
        media = (request["type"] or "").partition(";")[0].strip().lower()
        bearer = with_token and request["bearer"] is True
        assert request["origin"] in (None, CATALOG_OWN, CATALOG_OWN + ":80"), request
        assert request["site"] in (None, "same-origin", "SAME-ORIGIN", "none"), request
        assert media == "application/json", request
        assert bearer or request["csrf"] is True, request


#: What one tool's export, estimate or page may build at most (about): the bound, and a
#: margin for what is built around the schema.
_MOST_BUILT = 4 * MAX_BUILT_SCHEMA


def _size(value: Any) -> int:
    return len(json.dumps(value, default=str))


def check_schema_bomb(schema: dict[str, Any]) -> None:
    """A schema of fan-out references: every export, estimate, lint, prompt and catalog
    page of it builds a bounded result; ``errors="raise"`` raises only the conversion error."""
    from forge.catalog.detail import tool_detail
    from forge.tools.deferral._budget import tool_tokens
    from forge.tools.formats import PROVIDERS as FORMATS
    from forge.tools.formats import convert_all
    from forge.tools.model.lint import lint_tool
    from forge.tools.model.prompt import PromptOptions, render_prompt

    try:
        tool = from_record({"name": "probe", "description": "d", "parameters": schema,
                            "handler": _handler})  # fmt: skip
    except ToolDefinitionError:
        return
    for provider in FORMATS:
        if provider == "langchain":
            continue  # runs the tool; sends the tool's own schema
        for strict in (False, True):
            conversion = convert_all([tool], provider, strict=strict)
            assert _size(conversion.definitions) < _MOST_BUILT, (provider, strict)
            assert _size([str(c) for c in conversion.changes[0]]) < _MOST_BUILT
            assert tool_tokens(tool, provider, strict=strict) * 3 < _MOST_BUILT
            with contextlib.suppress(SchemaConversionError):
                convert_all([tool], provider, strict=strict, errors="raise")
    lint_tool(tool)
    assert len(render_prompt([tool], PromptOptions())) < _MOST_BUILT
    assert _size(tool_detail(tool)) < 20 * _MOST_BUILT  # every provider, strict and not


def check_turn(message: tuple[Any, str | None]) -> None:
    """`read_turn` and ``run_turn`` give a turn or raise `ToolCallFormatError`, nothing else."""
    from forge.tools import read_turn

    response, provider = message
    try:
        turn = read_turn(response, provider)
    except ToolCallFormatError:
        pass
    else:
        assert isinstance(turn.text, str)
        _calls_are_well_formed(list(turn.calls))
    try:
        done = ToolRegistry().run_turn(response, provider=provider)
    except ToolCallFormatError:
        return
    assert all(not result.success for result in done.results)  # no tool is registered


def check_openapi(case: tuple[str, Any]) -> None:
    """A mutated OpenAPI document gives tools or raises `OpenAPIError`, nothing else."""
    from forge.tools.config.openapi import OpenAPIError, import_openapi

    kind, document = case
    try:
        if kind == "mapping":
            result = import_openapi(document)
        else:
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / f"openapi.{kind}"
                path.write_text(document, encoding="utf-8", errors="surrogatepass")
                result = import_openapi(path)
    except OpenAPIError as exc:
        assert exc.reason  # noqa: PT017 (a fuzz check, not a test)
        return
    assert len(result.tools) == len(result.definitions)
    assert len(result.tools) + len(result.skipped) == result.selected


def check_servers(case: tuple[dict[str, Any], dict[str, str], list[str]]) -> None:
    """A servers file gives a config or `ServersFileError`; neither ever shows a credential."""
    from forge.gateway.config import ServersFileError, parse_servers
    from forge.mcp.credentials import header_problem

    document, environ, secrets = case
    try:
        config = parse_servers(document, environ)
    except ServersFileError as exc:
        assert not [s for s in secrets if s in str(exc)], str(exc)  # noqa: PT017 (a fuzz check)
        return
    for server in config.servers:
        assert not [s for s in secrets if s in server.display], server.display
        assert all(header_problem(k, v) is None for k, v in server.headers.items())
        assert all("\0" not in v for v in server.env.values())


def _searched_registry() -> ToolRegistry:
    """Tools described in English and in Chinese, two of a toolkit, one that needs an id."""

    def record(name: str, description: str, required: tuple[str, ...] = ()) -> Any:
        properties = {p: {"type": "string"} for p in required}
        schema = {"type": "object", "properties": properties, "required": list(required)}
        return from_record({"name": name, "description": description, "parameters": schema,
                            "handler": lambda args: args})  # fmt: skip

    return ToolRegistry([
        record("get_weather", "The weather forecast for a city."),
        record("book_flight", "Book a flight ticket."),
        record("movies__details", "A movie's details.", ("movie_id",)),
        record("movies__search", "Search movies by title."),
        record("send_mail", "发送电子邮件"),
        record("translate", "翻译文本"),
    ])  # fmt: skip


_SEARCHED = _searched_registry()


def check_search(case: tuple[str, int]) -> None:
    """``search`` gives at most ``limit`` distinct tools of the registry, the same each time,
    for any text; with ``relevant_only`` a subset of the plain ranking's; never raises."""
    query, limit = case
    names = set(_SEARCHED.names())
    found = [t.name for t in _SEARCHED.search(query, limit=limit)]
    assert len(found) == len(set(found)) <= limit, found
    assert set(found) <= names, found
    assert found == [t.name for t in _SEARCHED.search(query, limit=limit)]
    relevant = [t.name for t in _SEARCHED.search(query, limit=limit, relevant_only=True)]
    assert relevant in ([], found), (relevant, found)


def _targets() -> dict[str, Target]:
    found: list[Target] = []
    for provider in (None, *PROVIDERS):
        label = provider or "auto"
        found.append(Target(f"parse-{label}", PAYLOADS,
                            lambda p, provider=provider: check_parse(p, provider),
                            f"parse_tool_calls({label})"))  # fmt: skip
        found.append(Target(f"stream-{label}", chunks(provider or "auto"),
                            lambda s, provider=provider: check_stream(s, provider),
                            f"ToolCallAccumulator({label})"))  # fmt: skip
    for provider in (None, "anthropic", "openai-responses"):  # the native tool searches
        label = provider or "auto"
        found.append(Target(f"revealed-{label}", PAYLOADS,
                            lambda p, provider=provider: check_revealed(p, provider),
                            f"revealed_tools({label})"))  # fmt: skip
    found += [
        Target("arguments", argument_texts(), check_arguments, "argument text decoding"),
        Target("config", config_texts(), check_config, "load_tools on YAML, JSON, TOML"),
        Target("schema-import", parameter_schemas() | PAYLOADS, check_import,
               "normalize_definition and from_record"),
        Target("export", parameter_schemas(), check_export,
               "every provider export, plain and strict, against the SDK types"),
        Target("gateway-names", gateway_layouts(), check_gateway_names,
               "gateway prefixes and upstream tool names: one owner per exposed name"),
        Target("catalog-origins", catalog_requests(), check_catalog_request,
               "catalog writes from any origin, with any type and body: none runs untokened"),
        Target("schema-bombs", schema_bombs(), check_schema_bomb,
               "exports, estimates, lint, prompt and catalog page of fan-out references"),
        Target("turns", turn_messages(), check_turn, "read_turn and run_turn"),
        Target("openapi-documents", openapi_documents(), check_openapi,
               "import_openapi on mutated documents (mapping, JSON, YAML)"),
        Target("gateway-secrets", servers_documents(), check_servers,
               "parse_servers on credentials with hostile edges"),
        Target("search-queries", search_queries(), check_search,
               "registry.search on any request text: steps, Chinese, odd characters, huge"),
    ]  # fmt: skip
    return {t.name: t for t in found}


TARGETS = _targets()
"""Every fuzz target by name."""
