"""Where `forge.mcp.serve` listens, and the rule for exposing it beyond this machine."""

from __future__ import annotations

from forge.core.errors import ForgeError
from forge.mcp._loopback import is_loopback

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "MCP_PATH",
    "MIN_TOKEN_LENGTH",
    "SHUTDOWN_GRACE_SECONDS",
    "TOKEN_ENV",
    "InsecureBindError",
    "check_bind",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MCP_PATH = "/mcp"
TOKEN_ENV = "FORGE_TOOLS_TOKEN"
"""The environment variable the command line reads the bearer token from."""
MIN_TOKEN_LENGTH = 16
"""The shortest token accepted for a bind beyond loopback."""
SHUTDOWN_GRACE_SECONDS = 2


class InsecureBindError(ForgeError, ValueError):
    """Serving HTTP on a non-loopback address without a bearer token."""


def check_bind(host: str, token: str | None) -> None:
    """Refuse to expose the tools beyond this machine without a usable token.

    A token must not contain whitespace or control characters (it could not be sent in a
    header); beyond loopback it must be there and at least `MIN_TOKEN_LENGTH` characters.

    Raises:
        InsecureBindError: A token that breaks these rules, named without showing it.
    """
    if token and any(c.isspace() or not c.isprintable() for c in token):
        raise InsecureBindError(
            f"refusing to serve on {host!r}: the bearer token contains whitespace or control "
            f"characters (a trailing newline, say), which cannot be sent in an Authorization "
            f"header. Set {TOKEN_ENV} to the token alone"
        )
    if is_loopback(host):
        return
    if not token:
        raise InsecureBindError(
            f"refusing to serve on {host!r} without a bearer token: anyone who can reach it "
            f"could call the tools. Set {TOKEN_ENV} to a secret (clients then send "
            f"'Authorization: Bearer <token>'), or bind to 127.0.0.1"
        )
    if len(token) < MIN_TOKEN_LENGTH:
        raise InsecureBindError(
            f"refusing to serve on {host!r} with a bearer token of {len(token)} characters: "
            f"beyond loopback it must have at least {MIN_TOKEN_LENGTH}, so it cannot be "
            f"guessed. Set {TOKEN_ENV} to a random secret, e.g. the output of "
            "'python -c \"import secrets; print(secrets.token_urlsafe(32))\"'"
        )
