"""Secrets from the environment stay out of failed results and logs."""

from __future__ import annotations

import asyncio
import logging

import pytest

from forge.tools import Redaction, ToolCall, ToolRegistry, ToolResult, tool
from forge.tools.execution.executor import ToolExecutor

SECRET = "sk-live-4f9a8b7c6d5e"


@tool
def leak(extra: str = "") -> str:
    """Fail with the service token in the message, as a careless client library might."""
    import os

    raise RuntimeError(f"auth failed for {os.environ['SERVICE_API_TOKEN']!r} {extra}")


@tool(error_details="traceback")
def leak_trace() -> str:
    """Fail with the token in the message; the traceback goes to the model too."""
    import os

    raise PermissionError("Bearer " + os.environ["SERVICE_API_TOKEN"] + "\n")


@tool
async def leak_async() -> str:
    """Fail asynchronously with the token in the message."""
    import os

    await asyncio.sleep(0)
    raise ValueError(os.environ["SERVICE_API_TOKEN"])


class Before:
    """A hook, so calls take the general pipeline."""

    def before_call(self, call: object) -> None:
        return None


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVICE_API_TOKEN", SECRET)
    monkeypatch.setenv("SHORT_KEY", "abc1234")  # 7 characters: below the default length
    monkeypatch.setenv("DATABASE_URL", "postgres://admin:pw@db/prod")


def registry() -> ToolRegistry:
    return ToolRegistry([leak, leak_trace, leak_async])


def every_result(executor: ToolExecutor, name: str) -> list[ToolResult]:
    call = ToolCall(id="c1", name=name, arguments={})
    return [
        executor.run_sync(name, {}),
        executor.run_sync(name, {}, timeout=5),
        asyncio.run(executor.run(name, {})),
        asyncio.run(executor.execute_all([call, call]))[1],
        executor.execute_all_sync([call], parallel=False)[0],
    ]


@pytest.mark.parametrize("hooked", [False, True], ids=["fast", "pipeline"])
@pytest.mark.parametrize("name", ["leak", "leak_trace", "leak_async"])
def test_secret_environment_values_never_reach_the_model_or_the_log(
    hooked: bool, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    """By default the value of ``*TOKEN*`` variables is replaced by the variable's name."""
    executor = ToolExecutor(registry(), hooks=[Before()] if hooked else [])
    with caplog.at_level(logging.DEBUG, logger="forge"):
        results = every_result(executor, name)
    for result in results:
        assert not result.success
        assert SECRET not in (result.error or "")
        assert "${SERVICE_API_TOKEN}" in (result.error or "")
    assert SECRET not in caplog.text
    assert "${SERVICE_API_TOKEN}" in caplog.text


def test_the_registry_run_methods_redact_by_default() -> None:
    """`ToolRegistry.execute` and ``aexecute`` apply the default redaction too."""
    reg = registry()
    assert SECRET not in (reg.execute("leak", {}).error or "")
    assert SECRET not in (asyncio.run(reg.aexecute("leak_async", {})).error or "")


def test_short_values_and_ordinary_names_are_left_alone() -> None:
    """Values under 8 characters and names that do not look secret are not redacted."""
    result = ToolExecutor(registry()).run_sync("leak", {"extra": "abc1234 postgres://admin:pw"})
    assert "abc1234" in (result.error or "")
    assert "postgres://admin:pw" in (result.error or "")


def test_named_variables_and_patterns_are_redacted_when_configured() -> None:
    """``Redaction(env=..., patterns=...)`` adds variables of any name and regular expressions."""
    policy = Redaction(env=("DATABASE_URL",), patterns=(r"abc\d+",))
    executor = ToolExecutor(registry(), redact=policy)
    result = executor.run_sync("leak", {"extra": "postgres://admin:pw@db/prod abc1234"})
    error = result.error or ""
    assert "postgres://admin" not in error
    assert "${DATABASE_URL}" in error
    assert "abc1234" not in error
    assert "[redacted]" in error
    assert SECRET not in error  # the default rule still applies


def test_redaction_can_be_turned_off() -> None:
    """``redact=False`` leaves messages as the handler wrote them."""
    result = ToolExecutor(registry(), redact=False).run_sync("leak", {})
    assert SECRET in (result.error or "")


def test_a_bad_redaction_is_refused() -> None:
    """Anything but a Redaction or a bool is a TypeError naming the parameter."""
    with pytest.raises(TypeError, match="redact must be"):
        ToolExecutor(registry(), redact="yes")  # type: ignore[arg-type]
