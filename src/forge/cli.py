"""The ``forge-tools`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from forge.tools import Tool, ToolRegistry

EXIT_OK = 0
EXIT_USAGE = 2


def _registry() -> ToolRegistry:
    from forge.examples import example_registry

    return example_registry()


def _summary(t: Tool) -> dict[str, object]:
    return {
        "name": t.name,
        "category": t.category.value,
        "description": t.description.split("\n", 1)[0],
        "parameters": list(t.parameters.get("properties", {})),
    }


def _list(registry: ToolRegistry, as_json: bool) -> int:
    rows = [_summary(t) for t in registry.list_all()]
    if as_json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    widths = [max([len(h)] + [len(str(r[h])) for r in rows]) for h in ("name", "category")]
    print(f"{'NAME':<{widths[0]}}  {'CATEGORY':<{widths[1]}}  DESCRIPTION")
    for r in rows:
        print(f"{r['name']!s:<{widths[0]}}  {r['category']!s:<{widths[1]}}  {r['description']}")
    print(f"\n{len(rows)} tools")
    return EXIT_OK


def _add_serve(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser(
        "serve",
        help="serve the tools over MCP (stdio or streamable HTTP)",
        description="Serve the tools over MCP. HTTP binds to 127.0.0.1 unless --host says "
        "otherwise; set FORGE_TOOLS_TOKEN to require 'Authorization: Bearer <token>' "
        "(mandatory for any non-loopback host).",
    )
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765; 0 = any)")
    serve.add_argument(
        "--tools", metavar="MODULE:ATTR", help="serve these tools instead of the bundled examples"
    )


def _serve(args: argparse.Namespace) -> int:
    try:
        from forge.tools.integrations.mcp.command import load_registry, run_serve
    except ImportError as exc:
        print(f"forge-tools serve: {exc}", file=sys.stderr)
        return 1
    try:
        registry = load_registry(args.tools) if args.tools else _registry()
    except ValueError as exc:
        print(f"forge-tools serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return run_serve(registry, transport=args.transport, host=args.host, port=args.port)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = argparse.ArgumentParser(prog="forge-tools", description="Work with forge-tools tools.")
    commands = parser.add_subparsers(dest="command")
    list_cmd = commands.add_parser("list", help="list the tools (default)")
    list_cmd.add_argument("--json", action="store_true", help="print JSON for scripts")
    _add_serve(commands)
    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    registry = _registry()
    return _list(registry, getattr(args, "json", False))


if __name__ == "__main__":
    sys.exit(main())
