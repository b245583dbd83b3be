"""A real MCP server whose tool schemas use older drafts: imported, upgraded, called (issue 13)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from mcp_harness import SERVERS, server_env

from forge.mcp import MCPClient, import_tools
from forge.tools import ErrorKind, ToolRegistry
from forge.tools.formats import PROVIDERS
from tests.unit.tools.formats.conftest import oracles
from tests.unit.tools.formats.test_export_policy import declarations

pytestmark = pytest.mark.slow  # a real MCP server subprocess

OLD_DRAFT_SERVER = [sys.executable, str(SERVERS / "sdk_old_draft_server.py")]


@pytest.fixture
def imported() -> Iterator[ToolRegistry]:
    """A registry holding the old-draft server's tools (the client closed in teardown)."""
    registry = ToolRegistry()
    env = {"PYTHONPATH": server_env()["PYTHONPATH"]}
    client: MCPClient = import_tools(registry, OLD_DRAFT_SERVER, timeout=10, env=env)
    yield registry
    client.close()


def test_draft_4_tool_is_imported_upgraded_and_called(imported: ToolRegistry) -> None:
    """The tool registers with 2020-12 forms, rejects what draft 4 rejected, and converts."""
    sdk = oracles()
    tool = imported.get_or_raise("scale")
    properties = tool.parameters["properties"]
    assert tool.parameters["$defs"]["Positive"] == {"type": "number", "exclusiveMinimum": 0}
    assert properties["pair"]["prefixItems"] == [{"type": "number"}, {"type": "number"}]
    assert len(tool.schema_rewrites) == 5
    assert imported.execute("scale", {"factor": 2, "pair": [1, 3]}).output == "[2, 6]"
    [zero] = imported.execute_all([{"name": "scale", "arguments": {"factor": 0, "pair": [1, 3]}}])
    assert zero.error_kind is ErrorKind.INVALID_ARGUMENTS
    for provider in PROVIDERS:
        for strict in (False, True):
            conversion = imported.conversion(provider, strict=strict)
            assert conversion.excluded == (), (provider, strict)
            for definition in declarations(provider, list(conversion.definitions)):
                sdk[provider](definition)
