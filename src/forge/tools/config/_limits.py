"""Bounds on what a configuration file may hold, so a hostile file fails fast and alone.

A value the file parser could not represent (an integer too long for Python to read,
YAML nested deeper than `MAX_DEPTH`) is read as a `Refused` marker; `definition_problem`
finds it, and `load_tools` skips that one definition with the reason.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "MAX_FILE_ALIAS_NODES",
    "Refused",
    "definition_problem",
    "parse_int",
]

MAX_DEPTH = 100
"""How deeply a definition's values may nest (mappings and lists), counted from the file."""

_FLOAT_MAX = int(sys.float_info.max)
MAX_ALIAS_NODES = 100_000
"""How many nodes the YAML aliases (``*name``) of one tool definition may expand to."""

MAX_FILE_ALIAS_NODES = 1_000_000
"""How many nodes a YAML file's aliases may expand to, in total (refused definitions aside)."""


@dataclass(frozen=True, slots=True)
class Refused:
    """Stands in for a value the file parser refused to build (internal)."""

    reason: str
    """What the value was, where, and the limit it broke."""


def parse_int(text: str) -> int | Refused:
    """``int(text)``, or a `Refused` marker for an integer too long to read."""
    try:
        return int(text)
    except ValueError:
        digits = sum(ch.isdigit() for ch in text)
        return Refused(
            f"an integer of {digits} digits is longer than Python reads "
            "(4300 digits); write it as a string or a smaller number"
        )


def definition_problem(definition: Any) -> str | None:
    """Why ``definition`` cannot be built (a `Refused` value or too deep), or ``None``."""
    stack: list[tuple[Any, int, str]] = [(definition, 2, "")]  # in the file's list
    while stack:
        value, depth, path = stack.pop()
        if isinstance(value, Refused):
            return f"{value.reason} (at {_short(path)})"
        if isinstance(value, float) and not math.isfinite(value):
            return f"{value} is not a JSON number (at {_short(path)}); use a finite number"
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _FLOAT_MAX:
            return (
                f"an integer of {len(str(abs(value)))} digits is larger than a JSON number can "
                f"hold (at {_short(path)}); use a number below 1e308"
            )
        children: Any
        if isinstance(value, dict):
            children = value.items()
        elif isinstance(value, list):
            children = enumerate(value)
        else:
            continue
        if depth > MAX_DEPTH:
            return (
                f"the definition nests more than {MAX_DEPTH} levels deep (at {_short(path)}); "
                "flatten it"
            )
        for key, child in children:
            stack.append((child, depth + 1, f"{path}/{key}" if path else str(key)))
    return None


def _short(path: str) -> str:
    parts = path.split("/") if path else []
    if not parts:
        return "the definition"
    return "/".join(parts[:6]) + ("/..." if len(parts) > 6 else "")
