"""The fuzz targets: one per parser, each a strategy and a check of the documented contract.

A check returns normally for every input, or raises `AssertionError` (a broken contract);
any other exception escaping a check is a bug too.
"""

from __future__ import annotations

import contextlib
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
from forge.tools.parsing import PROVIDERS, ToolCallFormatError
from tests.fuzz.strategies import (
    PAYLOADS,
    argument_texts,
    chunks,
    config_texts,
    parameter_schemas,
    servers_documents,
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


def check_servers(case: tuple[dict[str, Any], dict[str, str], list[str]]) -> None:
    """A servers file gives a config or `ServersFileError`; neither ever shows a credential."""
    from forge.tools.integrations.mcp._secrets import header_problem
    from forge.tools.integrations.mcp.gateway_config import ServersFileError, parse_servers

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
        Target("gateway-secrets", servers_documents(), check_servers,
               "parse_servers on credentials with hostile edges"),
    ]  # fmt: skip
    return {t.name: t for t in found}


TARGETS = _targets()
"""Every fuzz target by name."""
