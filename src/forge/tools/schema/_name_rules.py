"""Tool name rules: the set of names every provider accepts."""

from __future__ import annotations

import re
from typing import Any

from forge.core.errors import ToolDefinitionError

__all__ = ["MAX_NAME_LENGTH", "NAME_PATTERN", "check_name", "is_valid_name"]

NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"
MAX_NAME_LENGTH = 64
_NAME_RE = re.compile(NAME_PATTERN)
_FIRST = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_REST = _FIRST | set("0123456789-")


def is_valid_name(name: object) -> bool:
    """Return whether ``name`` is a valid tool name."""
    return isinstance(name, str) and _NAME_RE.match(name) is not None and "\n" not in name


def check_name(name: Any) -> str:
    """Return ``name`` if it is a valid tool name, else raise `ToolDefinitionError`.

    The error quotes the name and says exactly which part breaks the rule.
    """
    if is_valid_name(name):
        return str(name)
    shown = repr(name)
    if not isinstance(name, str):
        reason = f"a tool name must be a string, got {type(name).__name__}"
    elif not name:
        reason = "a tool name must not be empty"
    elif len(name) > MAX_NAME_LENGTH:
        reason = f"it is {len(name)} characters long; the limit is {MAX_NAME_LENGTH}"
    elif name[0] not in _FIRST:
        reason = f"it starts with {name[0]!r}; a name must start with a letter or '_'"
    else:
        pos, bad = next((i, c) for i, c in enumerate(name) if c not in _REST)
        what = "a space" if bad == " " else repr(bad)
        reason = f"it contains {what} at position {pos}"
    raise ToolDefinitionError(
        name if isinstance(name, str) else "<invalid>",
        f"invalid tool name {shown}: {reason}. Tool names must match {NAME_PATTERN} "
        "(letters, digits, '_' and '-'), which every provider accepts",
    )
