"""The commands of ``forge-tools`` (typer), and how errors become exit codes.

Every command that reads tools takes them from ``--tools MODULE:ATTR`` (Python
code) and ``--config FILE`` (repeatable), both at once if both are given, or
else from the bundled examples. An invalid definition is skipped with one
warning line on stderr (file, tool, reason) unless ``--strict`` makes any
problem fatal; a configuration file that is missing (exit 3) or cannot be
parsed (exit 4) is always fatal, since none of its tools could load.

Configuration files given to the command line may name the builtin handlers and the
bundled examples' internal handlers (``notes.add``, ``notes.list``); other internal
handlers are registered by an application through `forge.tools.config.load_tools`.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from forge._cli import render, startup
from forge._cli.exits import (
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_TOOL_FAILED,
    EXIT_USAGE,
    EXIT_VALIDATION,
)
from forge.core.errors import (
    ConfigError,
    ConfigWarning,
    ForgeError,
    SchemaConversionError,
    ToolDefinitionError,
    ToolNotFoundError,
    ToolValidationError,
    UnsupportedProviderError,
)
from forge.tools import ExecutionContext, ToolRegistry
from forge.tools.formats.report import URGENT
from forge.tools.model.lint import conversion_findings, lint_tools

if TYPE_CHECKING:
    from forge.tools import Tool
    from forge.tools.config import ConfigIssue, LoadReport
    from forge.tools.formats import Conversion

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
ToolsOpt = Annotated[
    str | None,
    typer.Option(
        "--tools", metavar="MODULE:ATTR",
        help="Tools from Python code: a ToolRegistry, a list of tools, or a factory.",
    ),
]  # fmt: skip
_STRICT_HELP = "Fail on any invalid tool definition instead of skipping it (for CI)."
StrictOpt = Annotated[bool, typer.Option("--strict", "--strict-config", help=_STRICT_HELP)]
# show and export already use --strict for the provider's strict schema mode.
StrictConfigOpt = Annotated[bool, typer.Option("--strict-config", help=_STRICT_HELP)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
PrivateOpt = Annotated[
    bool,
    typer.Option("--allow-private-network", help="Let HTTP tools reach private addresses."),
]


class Failure(Exception):
    """A command failure with its exit code and message for stderr (internal: `run` prints it)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def load_registry(
    config: list[Path] | None,
    tools: str | None = None,
    *,
    strict_config: bool = False,
    allow_private: bool = False,
) -> ToolRegistry:
    """The tools of ``--tools`` and of the ``--config`` files, or the bundled examples.

    With both, the files' tools are added to the registry ``--tools`` names (a name
    it already holds is a skipped duplicate).
    """
    if not config and not tools:
        from forge.examples import example_registry

        return example_registry(allow_private_network=allow_private)
    registry = python_tools(tools) if tools else ToolRegistry()
    if config:
        report = load_config(config, registry, allow_private=allow_private)
        check_issues(report.issues, all_fatal=strict_config)
    return registry


def python_tools(spec: str) -> ToolRegistry:
    """The registry ``--tools MODULE:ATTR`` names, or a usage failure."""
    from forge._cli.spec import ToolsSpecError, load_tools_spec

    try:
        return load_tools_spec(spec)
    except ToolsSpecError as exc:
        raise Failure(EXIT_USAGE, str(exc)) from None


def load_config(
    files: Sequence[Path], registry: ToolRegistry, *, allow_private: bool = False
) -> LoadReport:
    """Load ``files`` into ``registry``, skipping invalid definitions (reported by the caller)."""
    from forge.examples import example_internal_handlers
    from forge.tools.config import load_tools

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConfigWarning)  # the caller prints one line per issue
        return load_tools(
            files, registry=registry, internal=example_internal_handlers(),
            allow_private_network=allow_private,
        )  # fmt: skip


def check_issues(issues: Sequence[ConfigIssue], *, all_fatal: bool) -> None:
    """Fail on a missing or unreadable file, or on any issue if ``all_fatal``; else warn each."""
    missing = [i for i in issues if i.kind == "missing"]
    if missing:
        raise Failure(EXIT_NOT_FOUND, "\n".join(f"{i.file}: file not found" for i in missing))
    fatal = list(issues) if all_fatal else [i for i in issues if i.kind == "unreadable"]
    if fatal:
        raise Failure(EXIT_VALIDATION, str(ConfigError(fatal)))
    for issue in issues:
        render.warning(f"{issue.where} skipped: {' '.join(issue.message.split())}")


def find(registry: ToolRegistry, name: str) -> Any:
    """The tool called ``name``, or a not-found failure with suggestions."""
    try:
        return registry.get_or_raise(name)
    except ToolNotFoundError as exc:
        raise Failure(EXIT_NOT_FOUND, str(exc)) from None


@app.command("list")
def list_(
    *,
    config: ConfigOpt = None,
    spec: ToolsOpt = None,
    strict_config: StrictOpt = False,
    category: Annotated[str | None, typer.Option(help="Only this category.")] = None,
    tag: Annotated[str | None, typer.Option(help="Only tools with this tag.")] = None,
    json_: JsonOpt = False,
) -> None:
    """List the tools."""
    registry = load_registry(config, spec, strict_config=strict_config)
    tools = registry.list_all()
    if category is not None:
        tools = [t for t in tools if t in registry.list_by_category(_category(category))]
    if tag is not None:
        tools = [t for t in tools if tag in t.tags]
    render.tool_table(tools, as_json=json_)


@app.command()
def show(
    name: str,
    *,
    config: ConfigOpt = None,
    spec: ToolsOpt = None,
    strict_config: StrictConfigOpt = False,
    format_: Annotated[
        str | None, typer.Option("--format", "-f", help="Print the tool in a provider's format.")
    ] = None,
    strict: Annotated[bool, typer.Option(help="With --format: the strict schema mode.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Show one tool: its description, parameters and metadata, or a provider format."""
    registry = load_registry(config, spec, strict_config=strict_config)
    tool = find(registry, name)
    if format_ is not None:
        render.print_json(_provider(registry, format_, allowed=[name], strict=strict))
        return
    render.tool_details(tool, as_json=json_)


ErrorsOpt = Annotated[
    str,
    typer.Option(
        "--errors", metavar="report|raise",
        help="What a provider cannot take: 'report' converts the rest and warns on stderr "
        "(shortened, sent without strict mode, left out); 'raise' fails (exit 4).",
    ),
]  # fmt: skip


@app.command()
def export(
    *,
    format_: Annotated[str, typer.Option("--format", "-f", help="Provider name.")],
    config: ConfigOpt = None,
    spec: ToolsOpt = None,
    strict_config: StrictConfigOpt = False,
    strict: Annotated[bool, typer.Option(help="The provider's strict schema mode.")] = False,
    errors: ErrorsOpt = "report",
) -> None:
    """Print every tool in a provider's format (JSON); warn on stderr about what changed."""
    registry = load_registry(config, spec, strict_config=strict_config)
    conversion = _conversion(registry, format_, allowed=None, strict=strict, errors=errors)
    for finding in conversion_findings([conversion], actions=URGENT):
        render.warning(f"{finding.tool} -> {finding.provider}: {finding.message}")
    render.print_json(list(conversion.definitions))


def _provider(registry: ToolRegistry, provider: str, *, allowed: Any, strict: bool) -> Any:
    return list(_conversion(registry, provider, allowed=allowed, strict=strict).definitions)


def _conversion(
    registry: ToolRegistry, provider: str, *, allowed: Any, strict: bool, errors: str = "report"
) -> Conversion:
    if errors not in ("report", "raise"):
        raise Failure(EXIT_USAGE, f"--errors must be 'report' or 'raise', not {errors!r}")
    try:
        return registry.conversion(
            provider,
            allowed=allowed,
            strict=strict,
            errors=errors,  # type: ignore[arg-type]
        )
    except UnsupportedProviderError as exc:
        raise Failure(EXIT_NOT_FOUND, str(exc)) from None
    except SchemaConversionError as exc:
        raise Failure(EXIT_VALIDATION, str(exc)) from None


@app.command()
def call(
    name: str,
    *,
    args: Annotated[str, typer.Option("--args", "-a", help="Arguments as a JSON object.")] = "{}",
    config: ConfigOpt = None,
    spec: ToolsOpt = None,
    strict_config: StrictOpt = False,
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
    registry = load_registry(config, spec, strict_config=strict_config, allow_private=allow_private)
    tool = find(registry, name)
    try:
        if dry_run:
            tool.validate(arguments)
            render.dry_run(name, arguments, as_json=json_)
            return
        shown = render.CallProgress(name)
        try:
            result = registry.execute(name, arguments, context=_showing(shown))
        finally:
            shown.close()
    except ToolValidationError as exc:
        raise Failure(EXIT_VALIDATION, str(exc)) from None
    render.result(result, as_json=json_)
    if not result.success:
        raise typer.Exit(EXIT_TOOL_FAILED)


def _showing(shown: render.CallProgress) -> ExecutionContext:
    """The context of a ``call``: progress and logs shown; no deadline but the tool's own."""
    import threading

    return ExecutionContext(
        timeout=threading.TIMEOUT_MAX, on_progress=shown.progress, on_log=shown.log
    )


@app.command()
def validate(
    files: Annotated[
        list[Path] | None, typer.Argument(help="Configuration files to check.", show_default=False)
    ] = None,
    *,
    config: ConfigOpt = None,
    spec: ToolsOpt = None,
    format_: Annotated[
        str | None,
        typer.Option("--format", "-f", help="Check this provider only (default: every one)."),
    ] = None,
    strict: Annotated[
        bool, typer.Option(help="Check the export in the provider's strict schema mode.")
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Lint tool definitions: invalid definitions, and what each export would change or drop.

    Without files or ``--tools`` it checks the bundled example tools. The per-provider
    findings are the reports of the very conversion ``export`` runs.
    """
    from forge.tools.formats import PROVIDERS

    paths = [*(files or []), *(config or [])]
    if not paths and not spec:  # the bundled examples, as every other command reads them
        registry = load_registry(None)
    else:
        registry = python_tools(spec) if spec else ToolRegistry()
    tools: list[Tool] = registry.list_all()
    issues: Sequence[ConfigIssue] = ()
    if paths:
        report = load_config(paths, registry)
        check_issues([i for i in report.issues if i.kind == "missing"], all_fatal=True)
        tools, issues = [*tools, *report.tools], report.issues
    providers = [format_] if format_ is not None else [p for p in PROVIDERS if p != "langchain"]
    conversions = [
        _conversion(registry, p, allowed=None, strict=strict) for p in providers
    ]  # fmt: skip
    findings = lint_tools(tools) + conversion_findings(conversions)
    render.lint(tools, issues, findings, conversions, as_json=json_)
    if issues or any(f.severity == "error" for f in findings):
        raise typer.Exit(EXIT_VALIDATION)


@app.command()
def search(
    query: str,
    *,
    config: ConfigOpt = None,
    spec: ToolsOpt = None,
    strict_config: StrictOpt = False,
    limit: Annotated[int, typer.Option(min=1, help="At most this many tools.")] = 10,
    category: Annotated[str | None, typer.Option(help="Only this category.")] = None,
    nearest: Annotated[
        bool,
        typer.Option(
            "--all", help="List the nearest tools even when none is relevant to the query."
        ),
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Search the tools by relevance to a natural-language query.

    A query no tool is relevant to finds nothing; ``--all`` shows the ranking anyway.
    """
    registry = load_registry(config, spec, strict_config=strict_config)
    found = registry.search(
        query, limit=limit, category=_category(category) if category else None,
        relevant_only=not nearest,
    )  # fmt: skip
    if not found and not json_:
        print("No tool is relevant to this query (--all lists the nearest ones anyway).")
        return
    render.tool_table(found, as_json=json_)


@app.command()
def prompt(
    *,
    config: ConfigOpt = None,
    spec: ToolsOpt = None,
    strict_config: StrictOpt = False,
    examples: Annotated[bool, typer.Option(help="Include examples.")] = True,
    notes: Annotated[bool, typer.Option(help="Include usage notes.")] = True,
    limitations: Annotated[bool, typer.Option(help="Include limitations.")] = True,
    group: Annotated[bool, typer.Option(help="Group by category.")] = True,
    category: Annotated[list[str] | None, typer.Option(help="Only these categories.")] = None,
    max_examples: Annotated[int | None, typer.Option(min=0, help="Examples per tool.")] = None,
) -> None:
    """Print the tools as prompt text for a model."""
    registry = load_registry(config, spec, strict_config=strict_config)
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
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(help="A host name clients may reach the HTTP server by ('*': any)."),
    ] = None,
    spec: ToolsOpt = None,
    strict_config: StrictOpt = False,
    allow_private: PrivateOpt = False,
    catalog: Annotated[
        bool, typer.Option(help="Over HTTP, also serve the web catalog of the tools at /.")
    ] = True,
    servers: Annotated[
        Path | None,
        typer.Option(
            "--servers",
            metavar="FILE",
            help="A gateway: serve the tools of every server of this mcpServers JSON file.",
        ),
    ] = None,
    search_only: Annotated[
        bool, typer.Option(help="With --servers: list only search_tools and what it reveals.")
    ] = False,
    search_limit: Annotated[
        int | None, typer.Option(min=1, help="With --search-only: tools one search reveals (5).")
    ] = None,
    max_active: Annotated[
        int | None,
        typer.Option(min=1, help="With --search-only: revealed tools a session keeps (16)."),
    ] = None,
    pin: Annotated[
        list[str] | None,
        typer.Option(help="With --search-only: a tool every session lists from the start."),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(min=1, help="With --search-only: the most definition tokens a list holds."),
    ] = None,
    siblings: Annotated[
        int | None,
        typer.Option(
            min=0, help="With --search-only: tools of a found tool's server a search adds."
        ),
    ] = None,
    pin_used: Annotated[
        int | None,
        typer.Option(min=0, help="With --search-only: pin the N tools called most so far."),
    ] = None,
    partners: Annotated[
        int | None,
        typer.Option(
            min=0, help="With --search-only: tools used with a found tool before a search adds."
        ),
    ] = None,
    separator: Annotated[
        str | None, typer.Option(help="With --servers: between server and tool names ('__').")
    ] = None,
    metrics: Annotated[
        bool,
        typer.Option(help="Collect per-tool calls, failures and latency (the catalog shows them)."),
    ] = False,
) -> None:
    """Serve the tools over MCP (stdio or streamable HTTP at /mcp, with a web catalog at /).

    HTTP requires 'Authorization: Bearer <token>' when FORGE_TOOLS_TOKEN is set
    (the catalog also takes a sign-in with the token), and refuses a non-loopback
    --host without one of 16 characters or more. Requests naming another host
    than the bind address, loopback or an --allowed-host are refused. Ctrl+C or
    SIGTERM stops it.
    """
    if transport not in ("stdio", "http"):
        raise Failure(EXIT_USAGE, f"--transport must be 'stdio' or 'http', not {transport!r}")
    if servers is not None:
        if config or spec:
            raise Failure(EXIT_USAGE, "--servers cannot be combined with --config or --tools")
        _serve_gateway(
            servers, transport, host, port, allowed_host or (),
            search_only=search_only, separator=separator,
            search=_search_options(search_limit, max_active, pin, max_tokens=max_tokens,
                                   siblings=siblings, pin_used=pin_used,
                                   partners=partners),
        )  # fmt: skip
        return
    try:
        from forge.mcp.command import run_serve
    except ImportError as exc:
        raise Failure(EXIT_USAGE, str(exc)) from None
    registry = load_registry(config, spec, strict_config=strict_config, allow_private=allow_private)
    startup.serving()
    code = run_serve(
        registry, transport=transport, host=host, port=port,  # type: ignore[arg-type]
        allowed_hosts=allowed_host or (), catalog=catalog, metrics=metrics,
    )  # fmt: skip
    if code != EXIT_OK:
        raise typer.Exit(code)


def _serve_gateway(
    servers: Path, transport: str, host: str, port: int, allowed: Sequence[str], *,
    search_only: bool, separator: str | None, search: dict[str, Any],
) -> None:  # fmt: skip
    try:
        from forge.gateway.command import run_gateway
    except ImportError as exc:
        raise Failure(EXIT_USAGE, str(exc)) from None
    startup.serving()
    code = run_gateway(
        servers, transport=transport, host=host, port=port,  # type: ignore[arg-type]
        allowed_hosts=allowed, search_only=search_only, separator=separator, search=search,
    )  # fmt: skip
    if code != EXIT_OK:
        raise typer.Exit(code)


def _search_options(
    limit: int | None, active: int | None, pin: list[str] | None, **more: int | None
) -> dict[str, Any]:
    """The search-only sessions' options given on the command line (`DeferredSession`'s names)."""
    given = {"search_limit": limit, "max_active": active, "pinned": tuple(pin or ()), **more}
    return {key: value for key, value in given.items() if value is not None and value != ()}


@app.command("import-openapi")
def import_openapi(
    spec: Annotated[
        str, typer.Argument(metavar="SPEC", help="OpenAPI 3.0/3.1 document: a file or URL.")
    ],
    *,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Write the tools here (.yaml, .json); else stdout.",
        ),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option("--base-url", metavar="URL", help="The API's address (default: its server)."),
    ] = None,
    include: Annotated[
        list[str] | None,
        typer.Option(
            "--include", metavar="ID|TAG", help="Only these operation ids or tags; repeatable."
        ),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude", metavar="ID|TAG", help="Leave out these operation ids or tags; repeatable."
        ),
    ] = None,
    tag: Annotated[
        list[str] | None,
        typer.Option("--tag", metavar="TAG", help="Only operations with this tag; repeatable."),
    ] = None,
    env_prefix: Annotated[
        str | None,
        typer.Option(
            "--env-prefix",
            metavar="PREFIX",
            help="Credential variables' prefix: scheme api_key reads PREFIX_API_KEY.",
        ),
    ] = None,
    security_env: Annotated[
        list[str] | None,
        typer.Option(
            "--security-env",
            metavar="SCHEME=VAR",
            help="The variable a security scheme reads; repeatable (wins over the prefix).",
        ),
    ] = None,
    allow_private: PrivateOpt = False,
    json_: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Write HTTP tools for an OpenAPI document's operations to a configuration file."""
    from forge._cli.openapi import import_command
    from forge.tools.config.openapi import OpenAPIError

    try:
        import_command(
            spec, output=output, base_url=base_url, include=include, exclude=exclude, tags=tag,
            env_prefix=env_prefix, security_env=security_env or [], allow_private=allow_private,
            as_json=json_,
        )  # fmt: skip
    except OpenAPIError as exc:
        code = EXIT_NOT_FOUND if exc.reason == "file not found" else EXIT_VALIDATION
        raise Failure(code, str(exc)) from None


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
