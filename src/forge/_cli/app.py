"""The commands of ``forge-tools`` (typer), and how errors become exit codes.

Configuration files given to the command line may name the builtin handlers and the
bundled examples' internal handlers (``notes.add``, ``notes.list``); other internal
handlers are registered by an application through `forge.tools.config.load_tools`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from forge._cli import render
from forge.core.errors import (
    ConfigError,
    ForgeError,
    ToolDefinitionError,
    ToolNotFoundError,
    ToolValidationError,
    UnsupportedProviderError,
)
from forge.tools import ToolRegistry

EXIT_OK = 0
EXIT_TOOL_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_VALIDATION = 4

app = typer.Typer(
    name="forge-tools",
    help="Define, inspect, convert, search and call LLM tools.",
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

ConfigOpt = Annotated[
    list[Path] | None,
    typer.Option("--config", "-c", help="Tool configuration file (YAML, JSON, TOML); repeatable."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
PrivateOpt = Annotated[
    bool,
    typer.Option("--allow-private-network", help="Let HTTP tools reach private addresses."),
]


class Failure(Exception):
    """A command failure with its exit code and message for stderr."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def load_registry(config: list[Path] | None, allow_private: bool = False) -> ToolRegistry:
    """The tools of ``config`` files (strict), or the bundled examples."""
    if not config:
        from forge.examples import example_registry

        return example_registry(allow_private_network=allow_private)
    from forge.examples import example_internal_handlers
    from forge.tools.config import load_tools

    try:
        return load_tools(
            config, strict=True, internal=example_internal_handlers(),
            allow_private_network=allow_private,
        ).registry  # fmt: skip
    except ConfigError as exc:
        raise Failure(EXIT_VALIDATION, str(exc)) from None


def find(registry: ToolRegistry, name: str) -> Any:
    """The tool called ``name``, or a not-found failure with suggestions."""
    try:
        return registry.get_or_raise(name)
    except ToolNotFoundError as exc:
        raise Failure(EXIT_NOT_FOUND, str(exc)) from None


@app.command("list")
def list_(
    config: ConfigOpt = None,
    category: Annotated[str | None, typer.Option(help="Only this category.")] = None,
    tag: Annotated[str | None, typer.Option(help="Only tools with this tag.")] = None,
    json_: JsonOpt = False,
) -> None:
    """List the tools."""
    registry = load_registry(config)
    tools = registry.list_all()
    if category is not None:
        tools = [t for t in tools if t in registry.list_by_category(_category(category))]
    if tag is not None:
        tools = [t for t in tools if tag in t.tags]
    render.tool_table(tools, as_json=json_)


@app.command()
def show(
    name: str,
    config: ConfigOpt = None,
    format_: Annotated[
        str | None, typer.Option("--format", "-f", help="Print the tool in a provider's format.")
    ] = None,
    strict: Annotated[bool, typer.Option(help="With --format: the strict schema mode.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Show one tool: its description, parameters and metadata, or a provider format."""
    registry = load_registry(config)
    tool = find(registry, name)
    if format_ is not None:
        render.print_json(_provider(registry, format_, allowed=[name], strict=strict))
        return
    render.tool_details(tool, as_json=json_)


@app.command()
def export(
    format_: Annotated[str, typer.Option("--format", "-f", help="Provider name.")],
    config: ConfigOpt = None,
    strict: Annotated[bool, typer.Option(help="The provider's strict schema mode.")] = False,
) -> None:
    """Print every tool in a provider's format (JSON)."""
    render.print_json(_provider(load_registry(config), format_, allowed=None, strict=strict))


def _provider(registry: ToolRegistry, provider: str, *, allowed: Any, strict: bool) -> Any:
    try:
        return registry.to_provider(provider, allowed=allowed, strict=strict)
    except UnsupportedProviderError as exc:
        raise Failure(EXIT_NOT_FOUND, str(exc)) from None


@app.command()
def call(
    name: str,
    *,
    args: Annotated[str, typer.Option("--args", "-a", help="Arguments as a JSON object.")] = "{}",
    config: ConfigOpt = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Validate only; do not run the tool.")
    ] = False,
    allow_private: PrivateOpt = False,
    json_: JsonOpt = False,
) -> None:
    """Call a tool with JSON arguments and print its result."""
    try:
        arguments = json.loads(args)
    except json.JSONDecodeError as exc:
        raise Failure(EXIT_USAGE, f"--args is not valid JSON: {exc}") from None
    registry = load_registry(config, allow_private)
    tool = find(registry, name)
    try:
        if dry_run:
            tool.validate(arguments)
            render.dry_run(name, arguments, as_json=json_)
            return
        result = registry.execute(name, arguments)
    except ToolValidationError as exc:
        raise Failure(EXIT_VALIDATION, str(exc)) from None
    render.result(result, as_json=json_)
    if not result.success:
        raise typer.Exit(EXIT_TOOL_FAILED)


@app.command()
def validate(
    files: Annotated[list[Path], typer.Argument(help="Configuration files to check.")],
    config: ConfigOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Lint tool definition files: invalid definitions and per-provider problems."""
    from forge.examples import example_internal_handlers
    from forge.tools.config import load_tools
    from forge.tools.lint import lint_tools

    report = load_tools([*files, *(config or [])], internal=example_internal_handlers())
    findings = lint_tools(report.tools)
    render.lint(report, findings, as_json=json_)
    if report.issues or any(f.severity == "error" for f in findings):
        raise typer.Exit(EXIT_VALIDATION)


@app.command()
def search(
    query: str,
    config: ConfigOpt = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many tools.")] = 10,
    category: Annotated[str | None, typer.Option(help="Only this category.")] = None,
    json_: JsonOpt = False,
) -> None:
    """Search the tools by relevance to a natural-language query."""
    registry = load_registry(config)
    found = registry.search(query, limit=limit, category=_category(category) if category else None)
    render.tool_table(found, as_json=json_)


@app.command()
def prompt(
    *,
    config: ConfigOpt = None,
    examples: Annotated[bool, typer.Option(help="Include examples.")] = True,
    notes: Annotated[bool, typer.Option(help="Include usage notes.")] = True,
    limitations: Annotated[bool, typer.Option(help="Include limitations.")] = True,
    group: Annotated[bool, typer.Option(help="Group by category.")] = True,
    category: Annotated[list[str] | None, typer.Option(help="Only these categories.")] = None,
    max_examples: Annotated[int | None, typer.Option(min=0, help="Examples per tool.")] = None,
) -> None:
    """Print the tools as prompt text for a model."""
    registry = load_registry(config)
    text = registry.generate_prompt(
        include_examples=examples, include_notes=notes, include_limitations=limitations,
        group_by_category=group, categories=[_category(c) for c in category] if category else None,
        max_examples_per_tool=max_examples,
    )  # fmt: skip
    typer.echo(text)


@app.command()
def serve(
    *,
    config: ConfigOpt = None,
    transport: Annotated[
        str, typer.Option(help="'stdio' (for a client that starts the server) or 'http'.")
    ] = "stdio",
    host: Annotated[str, typer.Option(help="HTTP address; non-loopback needs a token.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(min=0, max=65535, help="HTTP port (0: any free).")] = 8765,
    tools: Annotated[
        str | None, typer.Option(metavar="MODULE:ATTR", help="Serve tools from Python code.")
    ] = None,
    allow_private: PrivateOpt = False,
) -> None:
    """Serve the tools over MCP (stdio or streamable HTTP at /mcp).

    HTTP requires 'Authorization: Bearer <token>' when FORGE_TOOLS_TOKEN is set,
    and refuses a non-loopback --host without it. Ctrl+C or SIGTERM stops it.
    """
    if transport not in ("stdio", "http"):
        raise Failure(EXIT_USAGE, f"--transport must be 'stdio' or 'http', not {transport!r}")
    try:
        from forge.tools.integrations.mcp.command import load_tools_spec, run_serve
    except ImportError as exc:
        raise Failure(EXIT_USAGE, str(exc)) from None
    try:
        registry = load_tools_spec(tools) if tools else load_registry(config, allow_private)
    except ValueError as exc:
        raise Failure(EXIT_USAGE, str(exc)) from None
    code = run_serve(registry, transport=transport, host=host, port=port)  # type: ignore[arg-type]
    if code != EXIT_OK:
        raise typer.Exit(code)


def _category(value: str) -> Any:
    from forge.tools import ToolCategory

    try:
        return ToolCategory.parse(value)
    except ValueError as exc:
        raise Failure(EXIT_USAGE, str(exc)) from None


def run(argv: list[str]) -> int:
    """Run the app and map every failure to an exit code and a one-line stderr message."""
    try:
        code = app(argv or ["list"], standalone_mode=False)
    except Failure as exc:
        return render.error(str(exc), exc.code)
    except typer.TyperException as exc:
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        return render.error(message, int(getattr(exc, "exit_code", EXIT_USAGE)))
    except ToolDefinitionError as exc:
        return render.error(str(exc), EXIT_VALIDATION)
    except ForgeError as exc:
        return render.error(str(exc), EXIT_TOOL_FAILED)
    except KeyboardInterrupt:
        return render.error("interrupted", 130)
    return code if isinstance(code, int) else EXIT_OK
