"""Reading tool definitions from YAML, JSON and TOML files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forge.tools.config._limits import MAX_DEPTH, parse_int

__all__ = ["SUFFIXES", "FileMissing", "FileProblem", "read_definitions"]

SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml"}


class FileProblem(Exception):
    """A file that cannot be read as a list of tool definitions (internal).

    `load_tools` turns it into a `ConfigIssue` of its report (or a `ConfigError`).
    """


class FileMissing(FileProblem):
    """A file that does not exist (internal)."""


def read_definitions(path: Path) -> list[Any]:
    """Return the raw tool definitions of one file.

    A file holds either a list of definitions or a mapping with a ``tools``
    list (TOML: ``[[tools]]`` tables). YAML is read with the safe loader, so
    tags such as ``!!python/object`` are refused, and with bounds
    (`forge.tools.config._yaml`): a definition whose aliases expand past the
    per-tool limit is read as a refused stand-in (skipped by `load_tools`), and
    aliases expanding past the whole-file limit fail the file.

    Raises:
        FileMissing: The file does not exist.
        FileProblem: The file is unreadable, not parseable, or not shaped as
            above; the message says which and how to fix it.
    """
    kind = SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise FileProblem(
            f"unsupported file type {path.suffix or '(none)'!r}; use .yaml, .yml, .json or .toml"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileMissing("file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FileProblem(f"cannot read the file: {exc}") from None
    data = _parse(kind, text)
    if isinstance(data, dict):
        unknown = sorted(set(data) - {"tools"})
        if unknown:
            raise FileProblem(
                f"unknown top-level key(s) {', '.join(map(repr, unknown))}; "
                "put the definitions in a 'tools' list"
            )
        data = data.get("tools", [])
    if data is None:
        return []
    if not isinstance(data, list):
        raise FileProblem(
            f"expected a list of tool definitions (or a 'tools' list), got {type(data).__name__}"
        )
    return data


def _parse(kind: str, text: str) -> Any:
    try:
        return _parse_as(kind, text)
    except RecursionError:
        raise FileProblem(
            f"the {kind.upper()} nests too deeply for its parser; flatten it "
            f"(at most {MAX_DEPTH} levels)"
        ) from None


def _parse_as(kind: str, text: str) -> Any:
    if kind == "json":
        try:
            return json.loads(text, parse_int=parse_int)
        except json.JSONDecodeError as exc:
            raise FileProblem(
                f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
            ) from None
    if kind == "toml":
        import tomllib

        try:
            return tomllib.loads(text)
        except (tomllib.TOMLDecodeError, ValueError) as exc:  # ValueError: a too-long integer
            raise FileProblem(f"invalid TOML: {exc}") from None
    import yaml

    from forge.tools.config._yaml import AliasBomb, load_yaml

    try:
        return load_yaml(text)
    except AliasBomb as exc:
        raise FileProblem(str(exc)) from None
    except yaml.YAMLError as exc:
        raise FileProblem(f"invalid YAML: {' '.join(str(exc).split())}") from None
