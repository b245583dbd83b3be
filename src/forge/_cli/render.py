"""Output of ``forge-tools``: rich tables for people, JSON for scripts, errors on stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from forge.tools import Tool, ToolResult
    from forge.tools.config import ConfigIssue
    from forge.tools.formats import Conversion
    from forge.tools.model.lint import LintFinding
    from forge.tools.values.channel import LogMessage, Progress


def _out() -> Console:
    # Pipes and files get 120 columns rather than rich's default of 80.
    return Console(highlight=False, width=None if sys.stdout.isatty() else 120)


def print_json(value: Any) -> None:
    """Print ``value`` as indented JSON (non-JSON values shown with ``repr``)."""
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=repr) + "\n")


def error(message: str, code: int) -> int:
    """Print ``message`` on stderr and return ``code``."""
    sys.stderr.write(f"forge-tools: error: {message.strip()}\n")
    return code


def warning(message: str) -> None:
    """Print ``message`` on stderr as a warning."""
    sys.stderr.write(f"forge-tools: warning: {message.strip()}\n")


def summary(tool: Tool) -> dict[str, Any]:
    """One tool's row: name, category, first description line, parameter names."""
    return {
        "name": tool.name,
        "category": tool.category.value,
        "description": tool.description.strip().split("\n", 1)[0],
        "parameters": list(tool.parameters.get("properties", {})),
        "tags": list(tool.tags),
    }


def tool_table(tools: Sequence[Tool], *, as_json: bool) -> None:
    """Print tools as a table, or as a JSON list of summaries."""
    rows = [summary(t) for t in tools]
    if as_json:
        print_json(rows)
        return
    table = Table(show_edge=False, pad_edge=False, box=None)
    for header in ("NAME", "CATEGORY", "PARAMETERS", "DESCRIPTION"):
        table.add_column(header, overflow="fold")
    for row in rows:
        params = ", ".join(row["parameters"]) or "-"
        table.add_row(row["name"], row["category"], params, row["description"])
    console = _out()
    console.print(table)
    console.print(f"\n{len(rows)} tool{'s' if len(rows) != 1 else ''}")


def details(tool: Tool) -> dict[str, Any]:
    """Everything about one tool, JSON-ready."""
    meta = tool.metadata
    out: dict[str, Any] = {
        **tool.to_dict(),
        "category": meta.category.value,
        "tags": list(meta.tags),
        "display_name": meta.display_name,
        "examples": [e.to_dict() for e in meta.examples],
        "usage_notes": meta.usage_notes,
        "limitations": list(meta.limitations),
        "annotations": tool.annotations.to_mcp(),
        "deprecated": meta.deprecated,
    }
    if "implementation" in meta.extra:
        out["implementation"] = meta.extra["implementation"]
    return {k: v for k, v in out.items() if v not in (None, [], {})}


def tool_details(tool: Tool, *, as_json: bool) -> None:
    """Print one tool's details."""
    info = details(tool)
    if as_json:
        print_json(info)
        return
    console = _out()
    console.print(f"[bold]{tool.name}[/bold]  ({info['category']})")
    console.print(tool.description.strip())
    table = Table(title="Parameters", show_edge=False, box=None, title_justify="left")
    for header in ("NAME", "TYPE", "REQUIRED", "DESCRIPTION"):
        table.add_column(header, overflow="fold")
    required = set(tool.parameters.get("required", ()))
    for name, prop in tool.parameters.get("properties", {}).items():
        kind = prop.get("enum") or prop.get("type") or "any" if isinstance(prop, dict) else "any"
        description = prop.get("description", "") if isinstance(prop, dict) else ""
        table.add_row(name, json.dumps(kind), "yes" if name in required else "no", description)
    console.print(table)
    for key in ("tags", "implementation", "annotations", "usage_notes", "limitations"):
        if key in info:
            console.print(f"{key}: {json.dumps(info[key], ensure_ascii=False)}")
    for example in info.get("examples", []):
        console.print(f"example: {example['description']}: {json.dumps(example['input'])}")


def result(res: ToolResult, *, as_json: bool) -> None:
    """Print a tool result (output on stdout; a failure's message too, marked as such)."""
    if as_json:
        print_json(res.to_dict())
        return
    if res.success:
        out = res.output
        sys.stdout.write(out if isinstance(out, str) else json.dumps(out, indent=2, default=repr))
        sys.stdout.write("\n")
    else:
        sys.stdout.write(f"error ({res.error_kind}): {res.error}\n")


def dry_run(name: str, arguments: Any, *, as_json: bool) -> None:
    """Report a successful dry run."""
    if as_json:
        print_json({"tool": name, "dry_run": True, "valid": True, "arguments": arguments})
    else:
        sys.stdout.write(f"dry run: arguments valid for {name!r}; the tool was not run\n")


def lint(
    tools: Sequence[Tool],
    issues: Sequence[ConfigIssue],
    findings: Sequence[LintFinding],
    conversions: Sequence[Conversion] = (),
    *,
    as_json: bool,
) -> None:
    """Print the linter's report: invalid definitions, then per-tool findings.

    ``--json`` also gives each checked export: the tools it holds and every report.
    """
    rows: list[dict[str, Any]] = [
        {"file": i.file, "tool": i.tool, "severity": "error", "provider": "all",
         "message": i.message}
        for i in issues
    ]  # fmt: skip
    rows += [f.to_dict() for f in findings]
    if as_json:
        exports = [
            {"provider": c.provider, "strict": c.strict,
             "exported": [r.tool for r in c.reports if not r.excluded],
             "reports": [r.to_dict() for r in c.reports]}
            for c in conversions
        ]  # fmt: skip
        print_json({"tools": [t.name for t in tools], "findings": rows, "exports": exports})
        return
    console = _out()
    table = Table(show_edge=False, box=None)
    for header in ("SEVERITY", "TOOL", "PROVIDER", "MESSAGE"):
        table.add_column(header, overflow="fold")
    for row in rows:
        table.add_row(row["severity"], str(row["tool"] or row.get("file")), row["provider"],
                      row["message"])  # fmt: skip
    if rows:
        console.print(table)
    errors = sum(1 for r in rows if r["severity"] == "error")
    console.print(
        f"\n{len(tools)} valid tool(s), {errors} error(s), {len(rows) - errors} warning(s)"
    )


class CallProgress:
    """A running tool's progress as a bar, and its log messages, on stderr.

    The bar appears with the tool's first progress report, and only on a terminal; it is
    removed when the call ends. Log messages are printed as they come. Both may be called
    from any thread.
    """

    def __init__(self, name: str) -> None:
        import threading

        self._name = name
        self._console = Console(stderr=True, highlight=False)
        self._lock = threading.Lock()
        self._bar: Any = None
        self._task: Any = None

    def progress(self, event: Progress) -> None:
        """Show one progress report."""
        if not self._console.is_terminal:
            return
        with self._lock:
            if self._bar is None:
                self._start()
            self._bar.update(
                self._task, completed=event.done, total=event.total,
                description=event.message or self._name,
            )  # fmt: skip

    def log(self, event: LogMessage) -> None:
        """Print one log message."""
        where = f"{self._name}/{event.logger}" if event.logger else self._name
        text = event.message if isinstance(event.message, str) else json.dumps(event.message)
        self._console.print(f"{where}: [{event.level}] {text}", markup=False)

    def close(self) -> None:
        """Remove the bar."""
        with self._lock:
            if self._bar is not None:
                self._bar.stop()
                self._bar = None

    def _start(self) -> None:
        from rich.progress import BarColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        self._bar = Bar(
            TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
            TimeElapsedColumn(), console=self._console, transient=True,
        )  # fmt: skip
        self._task = self._bar.add_task(self._name, total=None)
        self._bar.start()
