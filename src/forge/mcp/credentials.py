"""Keeping a server's credentials out of what the MCP client and gateway say.

A server's headers, token and environment are secrets, and so are a URL's
userinfo and query values (``?key=...``). `header_problem` finds a header HTTP
cannot send before the HTTP stack sees it (its errors print the value);
`safe_url` writes a URL without them; `Secrets` takes them out of a text
(messages, results, logs). `guard_dependency_logs` filters the loggers of
the HTTP client and the MCP SDK, which print whole URLs (and, in errors,
header values), through the same rules.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Iterable, Mapping

from forge.core.errors import ForgeError
from forge.core.redaction import redact

__all__ = [
    "HeaderValueError",
    "Secrets",
    "guard_dependency_logs",
    "header_problem",
    "remember",
    "safe_url",
    "scrub_urls",
    "url_secrets",
]

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>]+")
_HIDDEN = "***"
_DEPENDENCIES = ("httpx2", "httpx", "httpcore2", "httpcore", "mcp")


class HeaderValueError(ForgeError, ValueError):
    """An HTTP header for an MCP server that cannot be sent (named; its value never shown)."""


def header_problem(name: str, value: str) -> str | None:
    """Why the header ``name: value`` cannot be sent, without the value; ``None`` if it can."""
    if not _TOKEN.fullmatch(name):
        return "its name is not a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~)"
    if value.endswith(("\n", "\r")):
        return (
            "its value ends with a line break (often the last line of a .env file or a "
            "secret file): remove it"
        )
    if any(c in "\r\n\0" for c in value):
        return "its value holds a line break or NUL, which would end the header"
    if not value.isascii() or not all(c == "\t" or c.isprintable() for c in value):
        return "its value holds a control or non-ASCII character: only printable ASCII is sent"
    if value != value.strip(" \t"):
        return "its value starts or ends with whitespace, which HTTP drops or refuses"
    return None


def safe_url(url: str) -> str:
    """``url`` without its userinfo, query values (``?key=***``) and fragment."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    rest, _, query = rest.split("#", 1)[0].partition("?")
    authority, slash, path = rest.partition("/")
    shown = f"{scheme}://{authority.rpartition('@')[2]}{slash}{path}"
    if not query:
        return shown
    keys = [p.partition("=")[0] + "=" + _HIDDEN if "=" in p else _HIDDEN for p in query.split("&")]
    return f"{shown}?{'&'.join(keys)}"


def scrub_urls(text: str) -> str:
    """``text`` with every URL in it written as `safe_url` writes it."""
    return _URL.sub(lambda match: safe_url(match.group(0)), text)


def url_secrets(url: str) -> dict[str, str]:
    """The secret parts of ``url`` (userinfo, each query value), by a label naming each."""
    import urllib.parse

    rest = url.partition("://")[2].split("#", 1)[0]
    rest, _, query = rest.partition("?")
    userinfo = rest.partition("/")[0].rpartition("@")[0]
    found = {"url.userinfo": urllib.parse.unquote(userinfo)} if userinfo else {}
    for key, value in urllib.parse.parse_qsl(query, keep_blank_values=True):
        if value:
            found[f"url.{key}"] = value
    return found


class Secrets:
    """Values to take out of texts, each replaced by ``${label}`` (its forms too: stripped,
    escaped, percent-encoded); URLs are written without their secret parts.

    Args:
        values: Label (``headers.Authorization``, ``env.API_KEY``, ...) to secret value.
    """

    def __init__(self, values: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        pairs = values.items() if isinstance(values, Mapping) else values
        # Longest first, so a value inside another is never replaced half-way.
        self._pairs = sorted(((k, v) for k, v in pairs if v), key=lambda p: -len(p[1]))

    def __bool__(self) -> bool:
        return bool(self._pairs)

    def scrub(self, text: str) -> str:
        """``text`` without the secrets."""
        for label, value in self._pairs:
            text = redact(text, {label: value})
        return scrub_urls(text)


class _Remembered:
    """The credentials of every HTTP connection made so far (never forgotten: few, and in memory
    anyway), as one `Secrets` that the log filter reads without locking."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._labels: dict[str, str] = {}
        self.secrets = Secrets()

    def add(self, values: Mapping[str, str]) -> None:
        with self._lock:
            fresh = {v: k for k, v in values.items() if v and v not in self._labels}
            if fresh:
                self._labels.update(fresh)
                self.secrets = Secrets((label, value) for value, label in self._labels.items())


_REMEMBERED = _Remembered()


def remember(values: Mapping[str, str]) -> None:
    """Add credentials (headers, URL parts) to those the dependency loggers never print."""
    _REMEMBERED.add(values)


class _Scrubbing(logging.Filter):
    """Rewrites a record's message (and traceback) without URLs' secrets or remembered ones."""

    def filter(self, record: logging.LogRecord) -> bool:
        known = _REMEMBERED.secrets
        text = record.getMessage()
        clean = known.scrub(text)
        if clean != text:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = known.scrub(logging.Formatter().formatException(record.exc_info))
        return True


_FILTER = _Scrubbing()


def guard_dependency_logs() -> None:
    """Filter the loggers of httpx(2), httpcore(2) and the MCP SDK (those created so far)."""
    with contextlib.suppress(ImportError):  # httpx2 imports it on its first request
        import httpcore2  # noqa: F401
    names = [
        name
        for name in list(logging.root.manager.loggerDict)
        if name.split(".", 1)[0] in _DEPENDENCIES
    ]
    for name in {*names, *_DEPENDENCIES}:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
