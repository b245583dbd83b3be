"""The stdio wire written by the event loop: stray output stays off it, and it is given back."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_harness import server_env

from forge.mcp._stdout import stdout_lines

SERVER = """
import subprocess, sys
from forge.tools import ToolRegistry, tool
from forge.mcp.serve import serve

@tool
def noisy(text: str) -> str:
    '''Print to stdout, from Python and from a child process, then answer.'''
    print("stray print", flush=True)
    subprocess.run([sys.executable, "-c", "print('stray child')"], check=True)
    return text.upper()

serve(ToolRegistry([noisy]), transport="stdio")
"""


@pytest.mark.slow  # a server subprocess
def test_stray_output_goes_to_stderr(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A tool's prints and its child's reach stderr, never the wire; big answers arrive whole."""
    params = StdioServerParameters(command=sys.executable, args=["-c", SERVER], env=server_env())
    big = "x" * 300_000  # more than a pipe holds: the loop waits for the client to read
    errors = tmp_path / "stderr.txt"

    async def body() -> list[str]:
        with errors.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                return await calls(client)

    async def calls(client: Client) -> list[str]:
        answers = [await client.call_tool("noisy", {"text": "hi"}) for _ in range(3)]
        answers.append(await client.call_tool("noisy", {"text": big}))
        return [c.text for a in answers for c in a.content if isinstance(c, types.TextContent)]

    *small, large = asyncio.run(body())
    assert "Failed to parse" not in caplog.text  # nothing but messages on the wire
    assert "stray print" in errors.read_text()
    assert "stray child" in errors.read_text()
    assert small == ["HI", "HI", "HI"]
    assert large.startswith("XXX")
    assert len(large) > 1 << 16  # cut to the output limit, still more than a pipe holds


@pytest.mark.slow  # a server subprocess
def test_the_wire_is_given_back_after_serving() -> None:
    """What the process prints after serve() returns reaches stdout, not stderr."""
    script = SERVER + "print('after serving', flush=True)\n"
    done = subprocess.run(
        [sys.executable, "-c", script], env=server_env(), stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "after serving\n"


def test_the_writer_in_process_keeps_the_wire_and_gives_it_back(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """On a pipe: messages reach it, stray writes to its descriptor do not, and it comes back."""
    read_end, write_end = os.pipe()

    async def body() -> None:
        async with stdout_lines(write_end) as wire:
            assert wire is not None
            await wire.write('{"jsonrpc": "2.0"}\n')
            await wire.flush()
            os.write(write_end, b"stray\n")  # the descriptor leads to stderr meanwhile
        os.write(write_end, b"after\n")

    try:
        asyncio.run(body())
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            assert pipe.read() == b'{"jsonrpc": "2.0"}\nafter\n'
        assert "stray" in capfd.readouterr().err
    finally:
        with contextlib.suppress(OSError):
            os.close(write_end)


def test_a_regular_file_is_left_to_the_sdk(tmp_path: Path) -> None:
    """A file cannot be watched by the loop: no writer, and the descriptor is untouched."""

    async def body(fd: int) -> object:
        async with stdout_lines(fd) as wire:
            return wire

    with (tmp_path / "out.txt").open("wb") as file:
        assert asyncio.run(body(file.fileno())) is None
        file.write(b"still the file")
    assert (tmp_path / "out.txt").read_bytes() == b"still the file"


def test_output_nobody_reads_is_dropped_when_serving_ends() -> None:
    """A full pipe at the end: the unsent rest is dropped, never written to a reused descriptor.

    The loop must stop watching the wire's duplicate before it is closed; otherwise the loop
    writes the rest to whatever file next gets that descriptor number.
    """
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)

    async def body() -> bytes:
        async with stdout_lines(write_end) as wire:
            assert wire is not None
            await wire.write("x" * (1 << 20))  # more than a pipe holds; nobody reads it yet
        reused_read, reused_write = os.pipe()  # takes the closed duplicate's number
        try:
            os.set_blocking(reused_read, False)
            with contextlib.suppress(BlockingIOError):
                while os.read(read_end, 1 << 16):  # room in the wire: a watcher would write
                    pass
            for _ in range(5):
                await asyncio.sleep(0.01)
            with contextlib.suppress(BlockingIOError):
                return os.read(reused_read, 1 << 16)
            return b""
        finally:
            os.close(reused_read)
            os.close(reused_write)

    try:
        assert asyncio.run(body()) == b""
    finally:
        os.close(read_end)
        os.close(write_end)
