"""Who may use the catalog when the server has a token: the bearer header or a login cookie.

``Authorization: Bearer <token>`` works as on ``/mcp``. A browser signs in once by
posting the token to ``/login`` and gets the ``forge_catalog`` cookie: an opaque random
session id (never the token), ``HttpOnly`` and ``SameSite=Strict``. Sessions live in
memory, expire, and are bounded in number. The cookie only opens the catalog: the MCP
endpoint is not behind this check.
"""

from __future__ import annotations

import hashlib
import html
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable

__all__ = ["COOKIE", "PUBLIC_ASSETS", "Sessions", "cookie_value", "login_page"]

COOKIE = "forge_catalog"
SESSION_SECONDS = 12 * 3600
MAX_SESSIONS = 1024


def cookie_value(headers: Iterable[tuple[bytes, bytes]], name: str = COOKIE) -> str | None:
    """The value of cookie ``name`` in the request's ``Cookie`` headers, or ``None``."""
    for key, value in headers:
        if key != b"cookie":
            continue
        for pair in value.decode("latin-1").split(";"):
            found, sep, content = pair.strip().partition("=")
            if sep and found == name:
                return content
    return None


class Sessions:
    """Signed-in browsers: random ids kept as hashes, expiring, at most `MAX_SESSIONS`."""

    def __init__(self, lifetime: float = SESSION_SECONDS, limit: int = MAX_SESSIONS) -> None:
        self._lifetime = lifetime
        self._limit = limit
        self._expiry: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def create(self) -> str:
        """A new session id (the oldest session goes when there are too many)."""
        session = secrets.token_urlsafe(32)
        with self._lock:
            self._expiry[_digest(session)] = time.monotonic() + self._lifetime
            while len(self._expiry) > self._limit:
                self._expiry.popitem(last=False)
        return session

    def valid(self, session: str | None) -> bool:
        """Whether ``session`` is a live session id."""
        if not session:
            return False
        key = _digest(session)
        with self._lock:
            expiry = self._expiry.get(key)
            if expiry is None:
                return False
            if expiry < time.monotonic():
                del self._expiry[key]
                return False
            return True


def _digest(session: str) -> str:
    return hashlib.sha256(session.encode("utf-8", "replace")).hexdigest()


PUBLIC_ASSETS = frozenset({"/static/app.css", "/static/favicon.svg"})
"""What the sign-in page loads before anyone signs in: the catalog's look, no tool data."""


def login_page(error: str | None = None) -> bytes:
    """The sign-in page: a token form in the catalog's style (no script, no tool data)."""
    alert = (
        f'<p class="notice" role="alert" id="token-error">{html.escape(error)}</p>\n'
        if error
        else ""
    )
    described = "token-hint token-error" if error else "token-hint"
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>Sign in · forge-tools catalog</title>\n"
        '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">\n'
        '<link rel="stylesheet" href="/static/app.css">\n'
        "</head>\n<body>\n"
        '<header class="top" role="banner"><h1>forge-tools catalog</h1></header>\n'
        '<main id="main" class="sign-in">\n'
        '<form class="sign-in-form" method="post" action="/login" '
        'aria-labelledby="sign-in-heading">\n'
        '<h2 id="sign-in-heading">Sign in</h2>\n'
        f"{alert}"
        '<label for="token">Access token</label>\n'
        '<p id="token-hint" class="hint">This server needs the token it was started with '
        "(<code>FORGE_TOOLS_TOKEN</code> for <code>forge-tools serve</code>).</p>\n"
        f'<input id="token" name="token" type="password" autocomplete="current-password" '
        f'aria-describedby="{described}" required autofocus>\n'
        '<button type="submit">Sign in</button>\n'
        "</form>\n</main>\n</body>\n</html>\n"
    ).encode()
