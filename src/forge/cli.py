"""The ``forge-tools`` command line.

Every command works on the bundled example tools, or on the tools of the
configuration files given with ``--config`` (repeatable) and of the Python
code given with ``--tools MODULE:ATTR`` (both, if both are given). An invalid
definition is skipped, with one line on stderr naming its file, tool and
reason; ``--strict`` (``--strict-config`` on ``show`` and ``export``) makes
any problem fatal. Tables are for people; ``--json`` prints JSON for scripts.
Errors go to stderr, without a traceback.

Exit codes:
    0: success (skipped definitions are only warned about).
    1: the tool ran and returned a failed result.
    2: usage error (unknown command or option, malformed ``--args`` JSON,
       a ``--tools`` reference that cannot be loaded).
    3: not found (no tool by that name, unknown provider, missing configuration file).
    4: validation failure (arguments rejected by the schema, a configuration file
       that cannot be parsed, any invalid definition with ``--strict``, and
       ``validate`` finding an error).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from forge._cli import startup
from forge._cli.exits import (
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_TOOL_FAILED,
    EXIT_USAGE,
    EXIT_VALIDATION,
)

__all__ = [
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_TOOL_FAILED",
    "EXIT_USAGE",
    "EXIT_VALIDATION",
    "main",
]


# A desktop client or an IDE starts ``forge-tools serve`` for every session and waits for its
# first answer: served without building the command-line app (typer, rich), which only
# parses these few words. Anything else, or any failure before serving, goes to the app.
_BUNDLED_OVER_STDIO = (["serve"], ["serve", "--transport", "stdio"], ["serve", "--transport=stdio"])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] != ["serve"]:
        return _run(args)
    startup.pause()
    try:
        return _serve(args)
    finally:
        startup.resume()


def _serve(args: list[str]) -> int:
    if args in _BUNDLED_OVER_STDIO:
        try:
            code = _serve_bundled_over_stdio()
        except KeyboardInterrupt:  # before serving: as the app says it
            from forge._cli import render

            return render.error("interrupted", 130)
        if code is not None:
            return code
    return _run(args)


def _run(args: list[str]) -> int:
    from forge._cli.app import run

    return run(args)


def _serve_bundled_over_stdio() -> int | None:
    """``forge-tools serve`` of the bundled tools over stdio; ``None`` if it cannot start."""
    try:
        from forge.examples import example_registry
        from forge.mcp.command import run_serve
        from forge.mcp.serve import DEFAULT_HOST, DEFAULT_PORT

        registry = example_registry()
    except Exception:  # the app reports it, its usual way
        return None
    startup.serving()
    return run_serve(registry, transport="stdio", host=DEFAULT_HOST, port=DEFAULT_PORT)


if __name__ == "__main__":
    sys.exit(main())
