"""Tools that talk to their MCP client while they run (``--tools channel_tools:registry``)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from pydantic import BaseModel

from forge.core.errors import ClientCapabilityError
from forge.tools import ExecutionContext, ToolRegistry, tool


@tool
async def steps(count: int, seconds: float, ctx: ExecutionContext) -> str:
    """Report ``count`` steps of progress spread over ``seconds``.

    Args:
        count: How many steps.
        seconds: How long all the steps take.
    """
    for done in range(1, count + 1):
        await asyncio.sleep(seconds / count)
        await ctx.report_progress(done, count, f"step {done} of {count}")
    return f"{count} steps"


@tool
def sync_steps(count: int, ctx: ExecutionContext) -> str:
    """Report ``count`` steps of progress from a worker thread.

    Args:
        count: How many steps.
    """
    for done in range(1, count + 1):
        time.sleep(0.01)
        ctx.report_progress_sync(done, count)
    ctx.log_sync("info", "sync steps done", logger="sync_steps")
    return f"{count} steps"


@tool
async def chatty(ctx: ExecutionContext) -> str:
    """Log one message at each of four levels."""
    for level in ("debug", "info", "warning", "error"):
        await ctx.log(level, f"a {level} message", logger="chatty")  # type: ignore[arg-type]
    return "logged"


class Person(BaseModel):
    """Who the user is."""

    name: str
    age: int


@tool
async def ask_user(question: str, ctx: ExecutionContext) -> str:
    """Ask the user who they are.

    Args:
        question: What to ask.
    """
    try:
        answer = await ctx.elicit(question, Person)
    except ClientCapabilityError as exc:
        return f"could not ask: {exc}"
    if answer.data is None:
        return f"the user chose {answer.action}"
    return f"{answer.data.name} is {answer.data.age}"


@tool
def ask_model(prompt: str, ctx: ExecutionContext) -> str:
    """Ask the client's model, from a worker thread.

    Args:
        prompt: What to ask.
    """
    try:
        answer = ctx.sample_sync(prompt, system="Be brief.", max_tokens=20, model_hints=["tiny"])
    except ClientCapabilityError as exc:
        return f"could not sample: {exc}"
    return f"{answer.model} said {answer.text!r}"


@tool
async def wait_for_cancel(marker: str, ctx: ExecutionContext) -> str:
    """Report progress once, then wait until cancelled; write ``cancelled`` to ``marker``.

    Args:
        marker: A file to write when the call is cancelled.
    """
    await ctx.report_progress(0)
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        Path(marker).write_text("cancelled")
        raise
    return "unreachable"


@tool(placement="process")
def isolated_wait(marker: str) -> str:
    """In a child process: write its pid to ``marker``, then sleep for a minute.

    Args:
        marker: A file to write the pid to.
    """
    Path(marker).write_text(str(os.getpid()))
    time.sleep(60)
    return "unreachable"


registry = ToolRegistry(
    [steps, sync_steps, chatty, ask_user, ask_model, wait_for_cancel, isolated_wait]
)
