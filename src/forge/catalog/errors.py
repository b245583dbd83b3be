"""What the catalog refuses: a request it cannot act on, a run that may destroy, unconfirmed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge.core.errors import ForgeError

if TYPE_CHECKING:
    from forge.tools.values.metadata import ToolAnnotations

__all__ = ["BadRequestError", "ConfirmationRequiredError", "needs_confirmation"]


def needs_confirmation(hints: ToolAnnotations) -> bool:
    """Whether a run asks for ``"confirm": true`` first: unless the tool says it is harmless.

    As MCP reads the hints: a tool is destructive unless it is marked read-only
    (``readOnlyHint``) or not destructive (``destructiveHint: false``); an unannotated tool is.
    """
    return hints.read_only is not True and hints.destructive is not False


class BadRequestError(ForgeError, ValueError):
    """A catalog request whose body or parameters cannot be used (HTTP 400).

    The message names what was wrong and what to send instead.
    """


class ConfirmationRequiredError(ForgeError, PermissionError):
    """Running a tool that may be destructive without ``"confirm": true`` (HTTP 409); nothing ran.

    Args:
        tool_name: The tool.
        marked: Whether the tool says it is destructive (else it says nothing either way).
    """

    def __init__(self, tool_name: str, *, marked: bool = True) -> None:
        self.tool_name = tool_name
        why = (
            "is marked destructive (destructiveHint)"
            if marked
            else "is marked neither read-only nor non-destructive, so it may be destructive "
            "(MCP's default for destructiveHint)"
        )
        super().__init__(
            f"tool {tool_name!r} {why}: nothing was run. "
            'Send the run again with "confirm": true to run it'
        )
