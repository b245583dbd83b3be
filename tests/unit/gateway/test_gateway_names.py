"""Every name the gateway exposes has one owner: no server takes another's tool names.

Configurations whose prefixes could collide are refused before anything starts; the
servers behind the others are real stdio processes (``servers/named_tools_server.py``)
whose tool names the tests choose: names cut to fit the length limit, names the rules
must see through (``delete.file`` served as ``delete_file``), the search tool's name.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_harness import SERVERS

from forge.cli import EXIT_VALIDATION, main
from forge.gateway.config import (
    GatewayConfig,
    ServerConfig,
    ServersFileError,
    parse_servers,
)
from forge.gateway.gateway import Gateway
from forge.tools import ErrorKind

NAMED = str(SERVERS / "named_tools_server.py")


def _entry(label: str, *names: str, forge: dict[str, Any] | None = None) -> dict[str, Any]:
    """A servers.json entry for a named-tools server answering ``label:name:text``."""
    entry: dict[str, Any] = {"command": sys.executable, "args": [NAMED, label, *names]}
    if forge:
        entry["forge"] = forge
    return entry


@contextmanager
def _gateway(servers: dict[str, Any], **options: Any) -> Iterator[Gateway]:
    document = {"mcpServers": servers, "forge": {"probe_interval": 30, **options}}
    with Gateway(parse_servers(document, os.environ)) as started:
        assert all(state == "up" for state in started.states().values()), started.states()
        yield started


def _call(gateway: Gateway, name: str, text: str = "hi") -> Any:
    return asyncio.run(gateway.run(name, {"text": text}))


def _reached(gateway: Gateway, name: str) -> str:
    """Which ``server:tool`` a call of ``name`` reached."""
    result = _call(gateway, name)
    assert result.success, result.error
    return str(result.output["result"]).removesuffix(":hi")


@pytest.mark.parametrize(
    ("servers", "separator", "named"),
    [
        ({"a": {"command": "x"}, "a__b": {"command": "y"}}, None, ("'a'", "'a__b'")),
        ({"google": {"command": "x"}, "google_drive": {"command": "y"}}, "_",
         ("'google'", "'google_drive'")),
        ({"files": {"command": "x"}, "any": {"command": "y", "forge": {"prefix": ""}}}, None,
         ("'files'", "'any'")),
        ({"a": {"command": "x", "forge": {"prefix": "t_"}},
          "b": {"command": "y", "forge": {"prefix": "t_x"}}}, None, ("'a'", "'b'")),
    ],
)  # fmt: skip
def test_prefixes_that_could_collide_are_refused_at_load(
    servers: dict[str, Any], separator: str | None, named: tuple[str, str]
) -> None:
    """A prefix that starts another's (or an empty one beside any other) is refused,
    naming both servers: one server's tool (``a__`` + ``b__echo``) could take the
    other's name (``a__b__`` + ``echo``)."""
    with pytest.raises(ServersFileError, match="could take a name") as caught:
        parse_servers({"mcpServers": servers}, {}, separator=separator)
    assert all(name in str(caught.value) for name in named)


def test_the_command_refuses_colliding_prefixes_with_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--separator _`` with ``google`` and ``google_drive``: exit 4 naming both."""
    path = tmp_path / "servers.json"
    entries = {"google": {"command": "x"}, "google_drive": {"command": "y"}}
    path.write_text(json.dumps({"mcpServers": entries}))
    assert main(["serve", "--servers", str(path), "--separator", "_"]) == EXIT_VALIDATION
    err = capsys.readouterr().err
    assert "server 'google'" in err
    assert "server 'google_drive'" in err


def test_a_gateway_made_from_colliding_servers_is_refused() -> None:
    """A `GatewayConfig` built in code is checked too, before any server starts."""
    servers = tuple(
        ServerConfig(name=name, kind="stdio", prefix=prefix, display="x", command="x")
        for name, prefix in (("honest", "files__"), ("other", ""))
    )
    with pytest.raises(ServersFileError, match=r"'other'.*'honest'"):
        Gateway(GatewayConfig(servers=servers))


@pytest.mark.slow  # real MCP server subprocesses
def test_rules_match_the_name_clients_see_and_the_remote_name() -> None:
    """``delete_*`` denies a remote ``delete.file`` served as ``a__delete_file``; an allow
    rule on the name clients see admits a remote whose own name it does not match."""
    servers = {
        "a": _entry("a", "delete.file", "read.file", forge={"deny": ["delete_*"]}),
        "b": _entry("b", "get.page", "put.page", forge={"allow": ["get_page"]}),
    }
    with _gateway(servers) as gateway:
        assert {"a__delete_file", "a__read_file", "b__get_page"} <= set(gateway.registry.names())
        served = set(gateway.view.names())
        assert served == {"a__read_file", "b__get_page"}
        denied = _call(gateway, "a__delete_file")
        assert denied.error_kind is ErrorKind.UNKNOWN_TOOL
        assert _reached(gateway, "a__read_file") == "a:read.file"
        assert _reached(gateway, "b__get_page") == "b:get.page"


@pytest.mark.slow  # real MCP server subprocesses
def test_a_name_cut_to_fit_the_limit_is_refused_not_served_without_an_owner(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A long prefix and a long remote name give a name cut to 64 characters that no longer
    carries the prefix: it is refused and logged once, never served outside the server's
    rules (its allow list names only ``ok``)."""
    prefix = "p" * 56 + "__"
    servers = {"long": _entry("long", "ok", "a_rather_long_name",
                              forge={"prefix": prefix, "allow": ["ok"]})}  # fmt: skip
    with caplog.at_level(logging.WARNING, "forge.mcp.gateway"), _gateway(servers) as gateway:
        assert gateway.view.names() == [f"{prefix}ok"]
        assert gateway.registry.names() == [f"{prefix}ok"]
        owners = {gateway.owner(name) for name in gateway.registry.names()}
        assert owners == {gateway.upstreams["long"]}
        client = gateway.upstreams["long"]._client
        assert client is not None
        client._submit(client.refresh()).result(timeout=30)  # a second listing: no new warning
    refusals = [r for r in caplog.records if "a_rather_long_name" in r.getMessage()]
    assert len(refusals) == 1
    assert "does not start with the server's prefix" in refusals[0].getMessage()


@pytest.mark.slow  # real MCP server subprocesses
def test_search_only_refuses_an_upstream_tool_named_like_the_search_tool(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A server with an empty prefix that has a ``search_tools`` of its own: it is refused
    with a warning, and every session lists, searches and calls as usual."""
    servers = {"solo": _entry("solo", "search_tools", "echo_text", forge={"prefix": ""})}
    with caplog.at_level(logging.WARNING, "forge.mcp.gateway"), \
            _gateway(servers, search_only=True) as gateway:  # fmt: skip
        assert set(gateway.registry.names()) == {"echo_text"}
        server = gateway.mcp_server()

        async def body() -> tuple[list[str], list[str], str]:
            async with server.announcing_changes(), Client(server.lowlevel, mode="legacy") as a:
                first = [t.name for t in (await a.list_tools()).tools]
                found = await a.call_tool("search_tools", {"query": "echo text"})
                after = [t.name for t in (await a.list_tools(cache_mode="refresh")).tools]
                echoed = await a.call_tool("echo_text", {"text": "hi"})
                assert not found.is_error
                return first, after, echoed.content[0].text  # type: ignore[union-attr]

        first, after, echoed = asyncio.run(body())
        server.close()
    assert first == ["search_tools"]
    assert after == ["search_tools", "echo_text"]
    assert "solo:echo_text:hi" in echoed
    assert any("name of the gateway's search tool" in r.getMessage() for r in caplog.records)
