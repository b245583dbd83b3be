"""Acceptance: the PyPI MCP servers (time, git, fetch, sqlite) imported, converted and called."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from real_servers import fetch_server, git_repository, git_server, sqlite_server, time_server

from forge.mcp import MCPClient, import_tools
from forge.tools import ErrorKind, ToolRegistry
from forge.tools.formats import PROVIDERS, convert
from tests.unit.tools.formats.conftest import oracles

pytestmark = pytest.mark.slow  # real MCP server subprocesses

PAGE = "<html><body><h1>Hello from forge</h1><p>A page for mcp-server-fetch.</p></body></html>"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Keep test output quiet."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A web server on 127.0.0.1 serving one HTML page; returns the page's URL."""
    root = tmp_path_factory.mktemp("site")
    (root / "page.html").write_text(PAGE)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(root)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/page.html"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Each PyPI server's command line, on a fresh git repository and database."""
    work = tmp_path_factory.mktemp("servers")
    return {
        "time": time_server(),
        "git": git_server(git_repository(work / "repo")),
        "fetch": fetch_server(),
        "sqlite": sqlite_server(work / "test.db"),
    }


@pytest.fixture(scope="module")
def imported(servers: dict[str, list[str]]) -> Iterator[tuple[ToolRegistry, dict[str, MCPClient]]]:
    """One registry holding the tools of all four servers (closed in teardown)."""
    registry = ToolRegistry()
    clients: dict[str, MCPClient] = {}
    try:
        for name, command in servers.items():
            clients[name] = import_tools(registry, command, timeout=30, connect_timeout=60)
        yield registry, clients
    finally:
        for client in clients.values():
            client.close()


@pytest.fixture(scope="module")
def registry(imported: tuple[ToolRegistry, dict[str, MCPClient]]) -> ToolRegistry:
    """The registry of every imported tool."""
    return imported[0]


def _sdk_tool_names(commands: dict[str, list[str]]) -> dict[str, set[str]]:
    """The tool names the official SDK client lists for each server, listed concurrently."""
    from mcp import Client, StdioServerParameters

    async def names(command: list[str]) -> set[str]:
        async with Client(StdioServerParameters(command=command[0], args=command[1:])) as client:
            return {t.name for t in (await client.list_tools()).tools}

    async def every() -> list[set[str]]:
        return list(await asyncio.gather(*(names(c) for c in commands.values())))

    return dict(zip(commands, asyncio.run(every()), strict=True))


def test_every_tool_is_imported_under_its_own_name(
    imported: tuple[ToolRegistry, dict[str, MCPClient]], servers: dict[str, list[str]]
) -> None:
    """Each server's tools, as the official SDK lists them, are registered under their names."""
    registry, clients = imported
    listed = _sdk_tool_names(servers)
    for name, client in clients.items():
        assert listed[name], f"{name} lists no tools"
        assert set(client.tool_names) == listed[name], name
        for tool_name in listed[name]:
            assert registry.get_or_raise(tool_name).metadata.extra["mcp_name"] == tool_name


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_every_tool_converts_for_every_provider(
    registry: ToolRegistry, provider: str, strict: bool
) -> None:
    """The whole registry converts, and the provider's SDK type accepts every definition."""
    whole = registry.to_provider(provider, strict=strict)
    assert whole
    check = oracles()[provider]
    for tool in registry.list_all():
        definition, _report = convert(tool, provider, strict=strict)
        check(definition)


def _ok(registry: ToolRegistry, name: str, arguments: dict[str, Any]) -> Any:
    result = registry.execute(name, arguments)
    assert result.success, f"{name}: {result.error}"
    return result.output


def test_time_server_answers_and_converts(registry: ToolRegistry) -> None:
    """get_current_time and convert_time answer with structured output."""
    now = _ok(registry, "get_current_time", {"timezone": "Europe/Paris"})
    assert now["timezone"] == "Europe/Paris"
    assert now["datetime"].startswith("20")
    converted = _ok(
        registry,
        "convert_time",
        {"source_timezone": "UTC", "time": "12:30", "target_timezone": "Asia/Tokyo"},
    )
    assert converted["target"]["datetime"].endswith("T21:30:00+09:00")
    assert converted["time_difference"] == "+9.0h"


def test_a_refused_call_is_a_failed_result_naming_the_problem(registry: ToolRegistry) -> None:
    """A time zone the server rejects comes back as a tool error carrying its message."""
    result = registry.execute("get_current_time", {"timezone": "Not/AZone"})
    assert not result.success
    assert result.error_kind == ErrorKind.TOOL_ERROR
    assert "Not/AZone" in str(result.error)


def test_git_server_reports_status_and_log(
    registry: ToolRegistry, servers: dict[str, list[str]]
) -> None:
    """git_status sees the untracked file; git_log shows the commit."""
    repo = servers["git"][-1]
    status = _ok(registry, "git_status", {"repo_path": repo})
    assert "notes.txt" in status
    log = _ok(registry, "git_log", {"repo_path": repo, "max_count": 5})
    assert "first commit of the acceptance test" in log


def test_fetch_server_reads_a_local_page(registry: ToolRegistry, site: str) -> None:
    """fetch reads a page from 127.0.0.1 (no internet needed)."""
    page = _ok(registry, "fetch", {"url": site, "raw": True, "max_length": 2000})
    assert "Hello from forge" in page


def test_sqlite_server_creates_inserts_and_queries(registry: ToolRegistry) -> None:
    """create_table, write_query and read_query work on a fresh database."""
    _ok(
        registry,
        "create_table",
        {"query": "CREATE TABLE tools (id INTEGER PRIMARY KEY, name TEXT)"},
    )
    _ok(registry, "write_query", {"query": "INSERT INTO tools (name) VALUES ('forge'), ('mcp')"})
    rows = _ok(registry, "read_query", {"query": "SELECT name FROM tools ORDER BY id"})
    assert "forge" in rows
    assert rows.index("forge") < rows.index("mcp")
    assert "tools" in _ok(registry, "list_tables", {})


def test_async_calls_to_several_servers_run_together(registry: ToolRegistry) -> None:
    """Calls to different servers in one batch all answer."""
    calls = [
        {"name": "get_current_time", "arguments": {"timezone": "UTC"}},
        {"name": "list_tables", "arguments": {}},
        {"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}},
    ]
    results = asyncio.run(registry.aexecute_all(calls))
    assert [r.success for r in results] == [True, True, True], [r.error for r in results]
    assert json.dumps(results[2].output).count("Asia/Tokyo") == 1
