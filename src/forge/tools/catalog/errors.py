"""What the catalog refuses: a request it cannot act on, a destructive run not confirmed."""

from __future__ import annotations

from forge.core.errors import ForgeError

__all__ = ["BadRequestError", "ConfirmationRequiredError"]


class BadRequestError(ForgeError, ValueError):
    """A catalog request whose body or parameters cannot be used (HTTP 400).

    The message names what was wrong and what to send instead.
    """


class ConfirmationRequiredError(ForgeError, PermissionError):
    """Running a destructive tool without ``"confirm": true`` (HTTP 409); nothing ran."""

    def __init__(self, tool_name: str) -> None:
        self.tool_name = tool_name
        super().__init__(
            f"tool {tool_name!r} is marked destructive (destructiveHint): nothing was run. "
            'Send the run again with "confirm": true to run it'
        )
