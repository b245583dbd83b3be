"""Permissions: policies, rules, approvals; denied calls never reach the handler."""

import asyncio
import logging
from typing import Any

import pytest

from forge.tools import ErrorKind, ExecutionContext, ToolCategory, ToolRegistry, tool
from forge.tools.execution.executor import ToolExecutor
from forge.tools.execution.permissions import (
    Decision,
    Match,
    PermissionRequest,
    RuleBasedPolicy,
)

RAN: list[str] = []


@tool(category="file", annotations={"read_only": True})
def read_file(path: str) -> str:
    """Read a file."""
    RAN.append("read_file")
    return f"contents of {path}"


@tool(category="file", annotations={"destructive": True})
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN.append("delete_file")
    return f"deleted {path}"


@tool(category="execution")
def shell_run(command: str) -> str:
    """Run a shell command."""
    RAN.append("shell_run")
    return "ok"


@pytest.fixture(autouse=True)
def clear() -> None:
    RAN.clear()


def registry() -> ToolRegistry:
    return ToolRegistry([read_file, delete_file, shell_run])


def both(ex: ToolExecutor, name: str, args: dict[str, Any], ctx: Any = None) -> list[Any]:
    """Run through the async and the sync entry point."""
    return [asyncio.run(ex.run(name, args, ctx)), ex.run_sync(name, args, ctx)]


def test_a_denied_call_never_reaches_the_handler() -> None:
    """A deny decision returns a denied failure with the reason; the handler does not run."""
    ex = ToolExecutor(registry(), permissions=lambda req: Decision.deny("not in this sandbox"))
    for result in both(ex, "delete_file", {"path": "/etc/passwd"}):
        assert result.error_kind is ErrorKind.DENIED
        assert "not in this sandbox" in (result.error or "")
        assert result.metadata["retryable"] is False
    assert RAN == []


def test_policies_see_tool_arguments_and_context() -> None:
    """The policy receives the tool, the validated arguments, the context and the call id."""
    seen: list[PermissionRequest] = []

    def policy(request: PermissionRequest) -> bool:
        seen.append(request)
        return not request.arguments["path"].startswith("/etc")

    ex = ToolExecutor(registry(), permissions=policy)
    ctx = ExecutionContext(session_id="s1")
    assert asyncio.run(ex.run("read_file", {"path": "notes.txt"}, ctx, call_id="c1")).success
    denied = ex.run_sync("read_file", {"path": "/etc/shadow"}, ctx)
    assert denied.error_kind is ErrorKind.DENIED
    request = seen[0]
    assert (request.name, request.tool.category, request.arguments) == (
        "read_file",
        ToolCategory.FILE,
        {"path": "notes.txt"},
    )
    assert (request.context, request.call_id) == (ctx, "c1")
    assert RAN == ["read_file"]


def test_rule_based_policy_by_name_category_and_annotation() -> None:
    """Deny beats ask beats allow; unmatched tools get the default."""
    policy = RuleBasedPolicy(
        deny=["shell_*"],
        ask=[{"destructive": True}],
        allow=[ToolCategory.FILE],
        default="deny",
    )

    def decide(t: Any) -> Decision:
        return policy(PermissionRequest(tool=t, arguments={}, context=ExecutionContext()))

    assert decide(shell_run).action == "deny"
    assert "shell_*" in (decide(shell_run).reason or "")
    assert decide(delete_file).action == "ask"
    assert decide(read_file).action == "allow"
    open_policy = RuleBasedPolicy(deny=[Match(categories=("execution",), reason="no shells")])
    assert open_policy(
        PermissionRequest(tool=shell_run, arguments={}, context=ExecutionContext())
    ) == Decision.deny("no shells")
    assert "default" in repr(open_policy)


def test_match_needs_every_criterion() -> None:
    """A Match with a name pattern and an annotation needs both."""
    rule = Match(names=("*_file",), annotations={"destructive": True})
    assert rule.matches(delete_file)
    assert not rule.matches(read_file)
    assert not rule.matches(shell_run)
    with pytest.raises(ValueError, match="unknown annotation"):
        Match(annotations={"dangerous": True})
    with pytest.raises(TypeError, match="permission rule"):
        RuleBasedPolicy(deny=[42])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="default"):
        RuleBasedPolicy(default="maybe")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="decision"):
        Decision("perhaps")  # type: ignore[arg-type]


def test_ask_without_an_approver_denies() -> None:
    """An ask decision with nobody to answer it is a denial."""
    ex = ToolExecutor(registry(), permissions=RuleBasedPolicy(ask=[{"destructive": True}]))
    for result in both(ex, "delete_file", {"path": "x"}):
        assert result.error_kind is ErrorKind.DENIED
        assert "no approver" in (result.error or "")
    assert RAN == []


@pytest.mark.parametrize("answer", [True, False])
def test_sync_and_async_approvers(answer: bool) -> None:
    """ask goes to the approver, sync or async; its answer decides."""
    asked: list[tuple[str, str | None]] = []

    def approve(request: PermissionRequest, decision: Decision) -> bool:
        asked.append((request.name, decision.reason))
        return answer

    async def approve_async(request: PermissionRequest, decision: Decision) -> Decision:
        await asyncio.sleep(0)
        return Decision.allow() if answer else Decision.deny("the user said no")

    policy = RuleBasedPolicy(ask=[{"destructive": True}])
    for approver in (approve, approve_async):
        ex = ToolExecutor(registry(), permissions=policy, approve=approver)
        for result in both(ex, "delete_file", {"path": "x"}):
            assert result.success is answer
            if not answer:
                assert result.error_kind is ErrorKind.DENIED
    assert len(asked) == 2
    assert (["delete_file"] * 4 if answer else []) == RAN


def test_context_permissions_combine_with_the_executors() -> None:
    """A session policy in the context is checked too, and the stricter answer wins."""
    ex = ToolExecutor(registry(), permissions=RuleBasedPolicy(deny=["shell_*"]))
    read_only = ExecutionContext(permissions=RuleBasedPolicy(deny=[{"destructive": True}]))
    assert (
        asyncio.run(ex.run("delete_file", {"path": "x"}, read_only)).error_kind is ErrorKind.DENIED
    )
    assert (
        asyncio.run(ex.run("shell_run", {"command": "ls"}, read_only)).error_kind
        is ErrorKind.DENIED
    )
    assert asyncio.run(ex.run("read_file", {"path": "x"}, read_only)).success
    assert ex.run_sync("delete_file", {"path": "x"}).success


def test_context_permissions_apply_without_an_executor_policy() -> None:
    """A context policy alone is enforced; the context's approver answers its asks."""
    ex = ToolExecutor(registry())
    ctx = ExecutionContext(
        permissions=RuleBasedPolicy(ask=["delete_file"]),
        approve=lambda request, decision: request.arguments["path"] == "tmp.txt",
    )
    assert asyncio.run(ex.run("delete_file", {"path": "tmp.txt"}, ctx)).success
    assert ex.run_sync("delete_file", {"path": "home"}, ctx).error_kind is ErrorKind.DENIED


def test_a_context_approver_answers_instead_of_the_executors() -> None:
    """A context's approve answers for its calls; calls without one keep the executor's."""
    ex = ToolExecutor(
        registry(),
        permissions=RuleBasedPolicy(ask=["delete_file"]),
        approve=lambda request, decision: False,
    )
    yes = ExecutionContext(approve=lambda request, decision: True)
    assert ex.run_sync("delete_file", {"path": "x"}, yes).success
    assert ex.run_sync("delete_file", {"path": "x"}).error_kind is ErrorKind.DENIED


def test_a_failing_policy_denies(caplog: pytest.LogCaptureFixture) -> None:
    """A policy or approver that raises (or answers nonsense) denies the call and is logged."""

    def broken(request: PermissionRequest) -> Decision:
        raise RuntimeError("policy server down")

    def nonsense(request: PermissionRequest) -> Any:
        return "sure"

    with caplog.at_level(logging.ERROR, logger="forge.tools.permissions"):
        for policy in (broken, nonsense):
            ex = ToolExecutor(registry(), permissions=policy)
            for result in both(ex, "read_file", {"path": "x"}):
                assert result.error_kind is ErrorKind.DENIED
                assert "permission check failed" in (result.error or "")
    assert RAN == []
    assert "permission check" in caplog.text


def test_dry_run_still_checks_permissions() -> None:
    """In a dry run a denied call is reported as denied; an allowed one as a dry run."""
    ex = ToolExecutor(registry(), permissions=RuleBasedPolicy(deny=["delete_file"]))
    dry = ExecutionContext(dry_run=True)
    assert asyncio.run(ex.run("delete_file", {"path": "x"}, dry)).error_kind is ErrorKind.DENIED
    allowed = ex.run_sync("read_file", {"path": "x"}, dry)
    assert allowed.metadata["dry_run"] is True
    assert RAN == []


def test_invalid_arguments_are_reported_before_permissions() -> None:
    """Validation runs first: the policy only ever sees valid arguments."""
    seen: list[Any] = []
    ex = ToolExecutor(registry(), permissions=lambda req: seen.append(req) or True)
    assert ex.run_sync("read_file", {"path": 3}).error_kind is ErrorKind.INVALID_ARGUMENTS
    assert seen == []
