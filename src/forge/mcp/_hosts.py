"""Which ``Host`` and ``Origin`` headers the HTTP server answers (DNS rebinding protection).

A web page can make a browser send requests to a server on the user's machine
by pointing its own domain at a local address (DNS rebinding); the request then
carries that domain in ``Host`` and the page's origin in ``Origin``. Names an
attacker could control are refused, whatever the bind address: a loopback bind
answers only loopback names and addresses, any other bind also its IP
addresses, and both the names allowed explicitly (``--allowed-host``).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from forge.mcp._http import ASGIApp, Receive, Scope, Send, is_loopback

__all__ = ["ANY_HOST", "HostGuard", "HostPolicy"]

ANY_HOST = "*"
"""The allowed host that turns the check off (a proxy in front checks instead)."""
_LABEL = r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?"
_NAME = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*$")
_PORT = re.compile(r"^[0-9]{1,5}$")


def _normalised(name: str) -> str:
    """``name`` lower-cased, without IPv6 brackets or a final dot."""
    return name.strip().lower().removeprefix("[").removesuffix("]").removesuffix(".")


def _split_host(value: str) -> str | None:
    """The host of a ``Host`` header value (``name``, ``name:port``, ``[v6]:port``), or ``None``."""
    value = value.strip()
    if value.startswith("["):
        host, bracket, rest = value[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and _PORT.match(rest[1:]))):
            return None
        return _normalised(host)
    host, colon, port = value.partition(":")
    if colon and not _PORT.match(port):
        return None
    return _normalised(host)


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


class HostPolicy:
    """The ``Host`` and ``Origin`` values a server bound to ``bind`` accepts.

    Args:
        bind: The address the server listens on.
        allowed: More host names (or addresses) to accept; ``"*"`` accepts any.

    Raises:
        ValueError: An allowed host that is not a host name or an address.
    """

    def __init__(self, bind: str, allowed: Sequence[str] = ()) -> None:
        self.loopback = is_loopback(bind)
        self.any = ANY_HOST in allowed
        self.names = {"localhost"} | {_allowed_name(a) for a in allowed if a != ANY_HOST}
        if not self.loopback:
            self.names.add(_normalised(bind))

    def host_allowed(self, host: str) -> bool:
        """Whether a request naming ``host`` (without its port) may be answered."""
        host = _normalised(host)
        if self.any or host in self.names:
            return True
        ip = _ip(host)
        if ip is None:
            return False
        return ip.is_loopback if self.loopback else True

    def refusal(self, headers: Iterable[tuple[bytes, bytes]]) -> tuple[int, str] | None:
        """The status and reason to refuse a request with these headers, or ``None``."""
        host = origin = None
        for key, value in headers:
            if key == b"host":
                host = value.decode("latin-1")
            elif key == b"origin":
                origin = value.decode("latin-1")
        if self.any:
            return None
        name = _split_host(host) if host else None
        if name is None or not self.host_allowed(name):
            return 421, "Invalid Host header"
        if origin is not None and not self._origin_allowed(origin):
            return 403, "Invalid Origin header"
        return None

    def _origin_allowed(self, origin: str) -> bool:
        parts = urlsplit(origin.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False
        name = _split_host(parts.netloc)
        return name is not None and self.host_allowed(name)


def _allowed_name(value: str) -> str:
    name = _normalised(value)
    if _ip(name) is None and not _NAME.match(name):
        raise ValueError(
            f"allowed host {value!r} is not a host name or an IP address: give one such as "
            "'tools.example.com' or '10.0.0.5' (no scheme, port or path), or '*' for any"
        )
    return name


class HostGuard:
    """ASGI middleware refusing requests whose ``Host`` (421) or ``Origin`` (403) is not allowed.

    It answers before anything else runs: before the token check, the body and any session.
    """

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a request from a name that is not allowed; pass the others on."""
        refusal = self.policy.refusal(scope.get("headers", ())) if scope["type"] == "http" else None
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, reason = refusal
        body = reason.encode()
        headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
