"""``forge-tools import-openapi``: an OpenAPI document to a tool configuration file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge._cli import render

if TYPE_CHECKING:
    from forge.tools.config.openapi import OpenAPIImport

__all__ = ["MAX_SKIPS_SHOWN", "import_command"]

MAX_SKIPS_SHOWN = 50


def import_command(
    spec: str,
    *,
    output: Path | None,
    base_url: str | None,
    include: list[str] | None,
    exclude: list[str] | None,
    tags: list[str] | None,
    env_prefix: str | None,
    security_env: list[str],
    allow_private: bool,
    as_json: bool,
) -> OpenAPIImport:
    """Convert ``spec`` and write the definitions to ``output`` (stdout without it).

    Raises:
        OpenAPIError: The document is unusable or a ``SCHEME=VAR`` is malformed (the
            caller maps it to an exit code).
    """
    from forge.tools.config.openapi import OpenAPIError, import_openapi

    result = import_openapi(
        spec, base_url=base_url, include=include, exclude=exclude, tags=tags,
        env_prefix=env_prefix, security_env=_pairs(security_env),
        allow_private_network=allow_private,
    )  # fmt: skip
    text = _serialise(list(result.definitions), json_file=output is not None and _is_json(output))
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise OpenAPIError(str(output), "", f"cannot write the tools: {exc}") from None
    _report(result, output, as_json=as_json)
    return result


def _pairs(items: list[str]) -> dict[str, str]:
    """``--security-env SCHEME=VAR`` options as a mapping."""
    from forge.tools.config.openapi import OpenAPIError

    pairs: dict[str, str] = {}
    for item in items:
        scheme, sep, variable = item.partition("=")
        if not sep or not scheme:
            raise OpenAPIError(
                "--security-env", "", f"{item!r} is not SCHEME=VAR (the security scheme's name "
                "in the document, '=', the environment variable)",
            )  # fmt: skip
        pairs[scheme] = variable
    return pairs


def _is_json(path: Path) -> bool:
    return path.suffix.lower() == ".json"


def _serialise(definitions: list[dict[str, Any]], *, json_file: bool) -> str:
    if json_file:
        return json.dumps({"tools": definitions}, indent=2, ensure_ascii=False) + "\n"
    import yaml

    return yaml.safe_dump({"tools": definitions}, sort_keys=False, allow_unicode=True, width=100)


def _report(result: OpenAPIImport, output: Path | None, *, as_json: bool) -> None:
    """The summary on stderr (stdout may hold the definitions): counts, skips, variables."""
    if as_json:
        summary = {
            "title": result.title, "operations": result.total, "selected": result.selected,
            "tools": len(result.tools), "env": list(result.env),
            "skipped": [{"operation": s.operation, "where": s.where, "reason": s.reason}
                        for s in result.skipped],
            "warnings": list(result.warnings),
        }  # fmt: skip
        sys.stderr.write(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
        return
    where = f" to {output}" if output is not None else ""
    sys.stderr.write(
        f"{result.title}: {len(result.tools)} tool(s){where} from {result.selected} of "
        f"{result.total} operation(s); {len(result.skipped)} skipped\n"
    )
    for skip in result.skipped[:MAX_SKIPS_SHOWN]:
        render.warning(f"skipped {skip.operation}: {skip.reason}")
    if len(result.skipped) > MAX_SKIPS_SHOWN:
        render.warning(f"... and {len(result.skipped) - MAX_SKIPS_SHOWN} more skipped (--json)")
    for message in result.warnings:
        render.warning(message)
    if result.env:
        sys.stderr.write(f"credentials are read from: {', '.join(result.env)}\n")
