"""The example file tools read inside the examples directory only (`make run` served
a `read-file` that read any path, `/etc/passwd` included, over MCP)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from forge.examples import EXAMPLES_DIR_ENV, SAMPLE_FILES, example_registry, examples_dir
from forge.tools import ToolCall, ToolExecutor, ToolResult

SECRET = "the secret outside the sandbox"


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An examples directory with a file, a subdirectory and escape hatches beside a secret."""
    root = tmp_path / "sandbox"
    (root / "sub").mkdir(parents=True)
    (root / "notes.txt").write_text("hello", encoding="utf-8")
    (root / "sub" / "inner.txt").write_text("inner", encoding="utf-8")
    (tmp_path / "secret.txt").write_text(SECRET, encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text(SECRET, encoding="utf-8")
    (root / "escape.txt").symlink_to(tmp_path / "secret.txt")
    (root / "escape-dir").symlink_to(tmp_path / "outside", target_is_directory=True)
    (root / "alias.txt").symlink_to(root / "sub" / "inner.txt")
    monkeypatch.setenv(EXAMPLES_DIR_ENV, str(root))
    return root


ESCAPES = [
    "/etc/passwd",
    "../secret.txt",
    "sub/../../secret.txt",
    "escape.txt",
    "escape-dir/secret.txt",
    "{tmp}/secret.txt",
]


def assert_refused(result: ToolResult, root: Path) -> None:
    """A refusal is a failed result that names the allowed directory and leaks nothing."""
    assert not result.success
    assert result.error_kind == "tool_error"
    assert "outside the examples directory" in (result.error or "")
    assert str(root.resolve()) in (result.error or "")
    assert SECRET not in (result.error or "")
    assert "root:" not in (result.error or "")


def test_files_inside_the_examples_directory_are_read(sandbox: Path) -> None:
    """Relative paths, subdirectories and symlinks that stay inside are read and listed."""
    registry = example_registry()
    assert registry.execute("read-file", {"path": "notes.txt"}).output == "hello"
    assert registry.execute("read-file", {"path": "./sub/../alias.txt"}).output == "inner"
    assert registry.execute("read-file", {"path": str(sandbox / "notes.txt")}).output == "hello"
    listing = registry.execute("list-directory", {}).output
    assert listing == ["escape-dir/", "sub/", "alias.txt", "escape.txt", "notes.txt"]
    assert registry.execute("list-directory", {"path": "sub"}).output == ["inner.txt"]


@pytest.mark.parametrize("path", ESCAPES)
def test_read_file_refuses_paths_outside(sandbox: Path, path: str) -> None:
    """Absolute paths, `..` and symlinks that lead outside are refused after resolving."""
    path = path.format(tmp=sandbox.parent)
    assert_refused(example_registry().execute("read-file", {"path": path}), sandbox)


@pytest.mark.parametrize("path", ["..", "/", "escape-dir", "sub/../.."])
def test_list_directory_refuses_paths_outside(sandbox: Path, path: str) -> None:
    """list-directory is confined the same way."""
    assert_refused(example_registry().execute("list-directory", {"path": path}), sandbox)


def test_the_executor_and_batches_refuse_too(sandbox: Path) -> None:
    """The executor (what the MCP server runs) and execute_all give the same refusal."""
    registry = example_registry()
    call = ToolCall("c1", "read-file", {"path": "/etc/passwd"})
    assert_refused(registry.execute_all([call])[0], sandbox)
    with ToolExecutor(registry) as executor:
        assert_refused(executor.execute_call_sync(call), sandbox)


def test_over_mcp_etc_passwd_is_an_error_result(sandbox: Path) -> None:
    """`forge-tools serve`'s server answers a read of /etc/passwd with an isError result."""
    from mcp import Client

    from forge.mcp import MCPToolServer

    server = MCPToolServer(example_registry())

    async def call(path: str) -> tuple[bool, str]:
        async with Client(server.lowlevel) as client:
            result = await client.call_tool("read-file", {"path": path})
            return bool(result.is_error), result.content[0].text

    try:
        is_error, text = asyncio.run(asyncio.wait_for(call("/etc/passwd"), 60))
        assert is_error
        assert "outside the examples directory" in text
        assert "root:" not in text
        assert asyncio.run(asyncio.wait_for(call("notes.txt"), 60)) == (False, "hello")
    finally:
        server.close()


def test_the_default_directory_is_the_bundled_sample_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the variable the tools read the sample files shipped with the package."""
    monkeypatch.delenv(EXAMPLES_DIR_ENV, raising=False)
    assert examples_dir() == SAMPLE_FILES.resolve()
    registry = example_registry()
    assert "notes/" in registry.execute("list-directory", {}).output
    assert "olive oil" in registry.execute("read-file", {"path": "notes/groceries.txt"}).output
    assert_refused(registry.execute("read-file", {"path": "../tools.py"}), SAMPLE_FILES)


def test_the_variable_is_read_on_every_call(
    sandbox: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Changing the variable moves the directory for the next call; a symlinked root works."""
    registry = example_registry()
    assert registry.execute("read-file", {"path": "notes.txt"}).output == "hello"
    link = tmp_path / "link-to-outside"
    link.symlink_to(tmp_path / "outside", target_is_directory=True)
    monkeypatch.setenv(EXAMPLES_DIR_ENV, str(link))
    assert registry.execute("read-file", {"path": "secret.txt"}).output == SECRET
    assert not registry.execute("read-file", {"path": "notes.txt"}).success
    assert os.path.samefile(examples_dir(), tmp_path / "outside")


def test_read_file_refuses_a_fifo_at_once(sandbox: Path) -> None:
    """A FIFO with no writer is refused as not a regular file, instead of blocking forever."""
    import threading

    fifo = sandbox / "pipe"
    os.mkfifo(fifo)
    registry = example_registry()
    results: list[ToolResult] = []
    reader = threading.Thread(
        target=lambda: results.append(registry.execute("read-file", {"path": "pipe"})),
        daemon=True,
    )
    reader.start()
    reader.join(60)
    if reader.is_alive():  # blocked in open(): let it go, then fail
        with open(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK), "wb"):
            pass
        reader.join(60)
        pytest.fail("read-file blocked on a FIFO")
    [result] = results
    assert not result.success
    assert "not a regular file" in (result.error or "")


def test_read_file_refuses_a_directory_and_has_a_timeout(sandbox: Path) -> None:
    """A directory is not a regular file either; every read runs under the tool's timeout."""
    from forge.examples.tools import READ_TIMEOUT

    registry = example_registry()
    result = registry.execute("read-file", {"path": "sub"})
    assert "not a regular file" in (result.error or "")
    assert registry.get("read-file").timeout == READ_TIMEOUT  # type: ignore[union-attr]
