"""Requests that change something must come from the catalog's own page (cross-site requests).

Any page the browser has open may send requests to the catalog: a page on another port
of this machine counts as the same *site* to the browser, so it even gets the session
cookie. `SameOriginWrites` therefore lets a state-changing request (any method but
``GET``, ``HEAD`` and ``OPTIONS``) through only when

- its ``Origin``, when sent, is the server's own: scheme, host and port (from ``Host``);
- its ``Sec-Fetch-Site``, when sent, says ``same-origin``;
- an API body is ``application/json``, which no form and no ``no-cors`` fetch can send;
- and it carries the CSRF token in ``X-Forge-CSRF``, unless it has the bearer token
  (browsers never send that header by themselves).

The CSRF token comes from ``GET /api/session`` (`CsrfTokens`): a page of another origin
cannot read that answer. It is an HMAC of the session id under a key made at start,
so a session's token dies with its session and with the server.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from forge.catalog._auth import cookie_value
from forge.core.auth import bearer_matches

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["CSRF_HEADER", "CsrfTokens", "SameOriginWrites"]

CSRF_HEADER = "x-forge-csrf"
"""The request header that carries the CSRF token."""
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_JSON = "application/json"


class CsrfTokens:
    """The CSRF token of each session (or of the server, when it has no sign-in)."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)

    def issue(self, session: str | None) -> str:
        """The token for ``session`` (``None``: no session)."""
        digest = hmac.new(self._key, (session or "").encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def valid(self, given: str | None, session: str | None) -> bool:
        """Whether ``given`` is the token of ``session`` (constant time)."""
        return given is not None and hmac.compare_digest(
            given.encode(), self.issue(session).encode()
        )


class SameOriginWrites:
    """ASGI middleware refusing state-changing requests that did not come from the catalog.

    Args:
        app: The catalog's routes.
        token: The server's bearer token, if it has one (then browsers sign in, and a CSRF
            token belongs to the session its cookie names).
        tokens: Issues and checks the CSRF tokens.
    """

    def __init__(self, app: ASGIApp, *, token: str | None, tokens: CsrfTokens) -> None:
        self.app = app
        self._token = token.encode() if token else None
        self._tokens = tokens

    def session(self, headers: Iterable[tuple[bytes, bytes]]) -> str | None:
        """The session a request's CSRF token belongs to (``None`` without sign-in)."""
        return cookie_value(headers) if self._token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass safe requests and the writes that came from the catalog; refuse the rest."""
        if scope["type"] != "http" or scope.get("method", "GET") in _SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, error, message = refusal
        await _refuse(scope, send, status, error, message)

    def _refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        headers: list[tuple[bytes, bytes]] = list(scope.get("headers", ()))
        found = {k: v.decode("latin-1") for k, v in reversed(headers)}
        own = _own_origin(scope.get("scheme", "http"), found.get(b"host"))
        origin = found.get(b"origin")
        if origin is not None and (own is None or _origin(origin) != own):
            return 403, "cross_origin", (
                "this request comes from a page of another origin: the catalog takes changes "
                "only from its own page (same scheme, host and port)"
            )  # fmt: skip
        site = found.get(b"sec-fetch-site")
        if site is not None and site.strip().lower() not in ("same-origin", "none"):
            return 403, "cross_origin", (
                f"this request comes from another site (Sec-Fetch-Site: {site.strip()[:20]}): "
                "the catalog takes changes only from its own page"
            )  # fmt: skip
        if not scope.get("path", "").startswith("/api/"):
            return None  # the sign-in form, which posts a form and has no session yet
        media = found.get(b"content-type", "").partition(";")[0].strip().lower()
        if media != _JSON:
            shown = f"{media[:40]!r}" if media else "none"
            return 415, "unsupported_media_type", (
                f"the request body must be JSON sent with 'Content-Type: {_JSON}' (got {shown})"
            )  # fmt: skip
        if self._token is not None and bearer_matches(headers, self._token):
            return None
        if not self._tokens.valid(found.get(CSRF_HEADER.encode()), self.session(headers)):
            return 403, "csrf", (
                f"this request lacks the catalog's CSRF token: send the 'csrf' value of "
                f"GET /api/session in the '{CSRF_HEADER}' header (the catalog's page does), "
                "or authenticate with 'Authorization: Bearer <token>'"
            )  # fmt: skip
        return None


def _origin(value: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an ``Origin`` value, or ``None`` (``null``, malformed)."""
    try:
        parts = urlsplit(value.strip())
        scheme, host, port = parts.scheme.lower(), parts.hostname, parts.port
    except ValueError:
        return None
    if scheme not in _DEFAULT_PORTS or not host or "@" in parts.netloc:
        return None
    if parts.path or parts.query or parts.fragment:
        return None
    return scheme, host, port if port is not None else _DEFAULT_PORTS[scheme]


def _own_origin(scheme: str, host: str | None) -> tuple[str, str, int] | None:
    """The server's origin as this request names it: its scheme and its ``Host``."""
    if not host or any(c in host for c in "/?#@\\"):
        return None
    return _origin(f"{scheme}://{host}")


async def _refuse(scope: Scope, send: Send, status: int, error: str, message: str) -> None:
    if scope.get("path", "").startswith("/api/"):
        body = json.dumps({"error": error, "message": message}).encode()
        content_type = b"application/json"
    else:
        body, content_type = message.encode(), b"text/plain; charset=utf-8"
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
               (b"cache-control", b"no-store")]  # fmt: skip
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
