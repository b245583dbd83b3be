"""HTTP tools from configuration.

An ``http`` implementation describes one request::

    implementation:
      type: http
      method: GET                                   # default GET
      url: "https://api.example.com/users/{user_id}"  # {param} from the arguments
      headers: {Authorization: "Bearer ${API_TOKEN}"}  # ${VAR} from the environment
      query: [fields]              # or {wire_name: param}; default: the rest for GET
      body: [name, email]          # JSON body; default: the rest for POST/PUT/PATCH
                                   # (or one parameter's name: its value is the whole body)
      header_params: {X-Request-Id: request_id}  # headers from arguments (list or map)
      cookie_params: [session_hint]              # cookies from arguments (list or map)
      timeout: 10                  # seconds for the whole exchange
      max_response_bytes: 1048576

Secrets come only from environment variables, read at call time: a literal
value for a header such as ``Authorization`` or ``X-Api-Key`` is refused when
the file is loaded. ``{param}`` placeholders may appear only in the path and
query of the URL, never in its scheme, host or port; a path argument stays
within its segment (``/`` is encoded, ``.`` and ``..`` are refused), and
``${VAR}`` may be used in the URL to choose the server. The URL's own query
string is kept (its ``${VAR}`` values percent-encoded) and the ``query``
parameters follow it; a list argument in the query is sent as the parameter
repeated (``?tag=a&tag=b``). A configured header wins over a
``header_params`` one of the same name; cookies from ``cookie_params`` follow
any configured ``Cookie`` header. Private, loopback and link-local targets are refused,
after DNS resolution and on every redirect, unless the loader is given
``allow_private_network`` (``True``, or the networks allowed).
A redirect to another origin (scheme, host or port) drops the credentials:
``Authorization``, ``Cookie``, secret-looking headers, headers filled from the
environment and the URL's userinfo. Failure messages show every value read
from the environment as its ``${VAR}``.
"""

from __future__ import annotations

import os
import re
import string
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from forge.core.errors import ToolDefinitionError
from forge.tools.values import shown_number, timeout_problem

__all__ = ["HttpSpec", "is_credential_header", "parse_http_spec"]

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD")
DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_BYTES = 1_048_576
_KEYS = {
    "type", "method", "url", "headers", "query", "body", "header_params", "cookie_params",
    "timeout", "max_response_bytes",
}  # fmt: skip
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_SECRET_HEADER = re.compile(r"auth|key|token|secret|password|cookie|session", re.IGNORECASE)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HttpSpec:
    """A checked ``http`` implementation."""

    method: str
    url: str
    headers: tuple[tuple[str, str], ...]
    path_params: tuple[str, ...]
    query: tuple[tuple[str, str], ...]
    body: tuple[tuple[str, str], ...] | None
    timeout: float
    max_response_bytes: int
    header_params: tuple[tuple[str, str], ...] = ()
    cookie_params: tuple[tuple[str, str], ...] = ()
    body_param: str | None = None
    """The parameter whose value is the whole JSON body (``body: name``), if any."""


def expand_env(
    text: str,
    where: str,
    *,
    template: bool = False,
    quoted: bool = False,
    used: dict[str, str] | None = None,
) -> str:
    """Replace ``${VAR}`` / ``${VAR:-default}`` with environment values.

    With ``template`` the values' braces are doubled, so the result can still
    be filled with `str.format` without a value being read as a placeholder.
    With ``quoted`` the values are percent-encoded (for a URL's query).
    ``used`` collects the values read from the environment, by name.

    Raises:
        LookupError: A variable without default is not set (named, value never shown).
    """

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = os.environ.get(name)
        if found is None:
            if default is None:
                raise LookupError(f"environment variable {name} (used in {where}) is not set")
            found = default
        elif used is not None:
            used[name] = found
        if quoted:
            found = urllib.parse.quote(found, safe="")
        return found.replace("{", "{{").replace("}", "}}") if template else found

    return _ENV_REF.sub(value, text)


def is_credential_header(name: str, value: str) -> bool:
    """Whether a configured header is a credential: a secret-looking name or a ``${VAR}`` value."""
    return bool(_SECRET_HEADER.search(name) or _ENV_REF.search(value))


def parse_http_spec(name: str, impl: Mapping[str, Any], schema: Mapping[str, Any]) -> HttpSpec:
    """Check an ``http`` implementation against the tool's parameters.

    Raises:
        ToolDefinitionError: Naming every offending key and how to fix it
            (separated by ``"; "``).
    """
    problems: list[str] = []

    def check(fn: Callable[..., T], *args: Any) -> T:
        try:
            return fn(*args)
        except ToolDefinitionError as exc:
            problems.append(exc.message)
            # Never used: any problem is raised below, before the values are read.
            return None  # type: ignore[return-value]

    unknown = sorted(set(impl) - _KEYS)
    if unknown:
        problems.append(f"unknown http implementation key(s) {unknown}; allowed: {sorted(_KEYS)}")
    declared = schema.get("properties")
    properties = set(declared) if isinstance(declared, Mapping) else set()
    method = check(_method, name, impl.get("method", "GET"))
    path_params = check(_url_params, name, impl.get("url"), properties)
    headers = check(_headers, name, impl.get("headers") or {})
    query = check(_mapping, name, "query", impl.get("query"), properties)
    body_param = check(_body_param, name, impl.get("body"), properties)
    whole = isinstance(impl.get("body"), str)
    body = None if whole else check(_mapping, name, "body", impl.get("body"), properties)
    header_params = check(_mapping, name, "header_params", impl.get("header_params"), properties)
    cookie_params = check(_mapping, name, "cookie_params", impl.get("cookie_params"), properties)
    timeout = check(_seconds, name, impl.get("timeout", DEFAULT_TIMEOUT))
    max_bytes = check(_byte_count, name, impl.get("max_response_bytes", DEFAULT_MAX_BYTES))
    if problems:
        raise ToolDefinitionError(name, "; ".join(problems))
    mapped = (
        set(path_params)
        | {body_param}
        | {p for pairs in (query, body, header_params, cookie_params) for _, p in pairs or ()}
    )
    rest = tuple((p, p) for p in sorted(properties - mapped))
    if body_param is not None:
        query = rest if query is None else query
    elif query is None and body is None:
        if method in ("POST", "PUT", "PATCH"):
            query, body = (), rest
        else:
            query, body = rest, None
    return HttpSpec(
        method=method, url=impl["url"], headers=headers, path_params=path_params,
        query=query or (), body=body, timeout=timeout, max_response_bytes=max_bytes,
        header_params=header_params or (), cookie_params=cookie_params or (),
        body_param=body_param,
    )  # fmt: skip


def _method(name: str, value: Any) -> str:
    method = str(value).upper()
    if method not in METHODS:
        raise ToolDefinitionError(name, f"http method {method!r} is not one of {METHODS}")
    return method


def _url_params(name: str, url: Any, properties: set[str]) -> tuple[str, ...]:
    if not isinstance(url, str) or not url:
        raise ToolDefinitionError(name, "an http implementation needs a 'url' string")
    without_env = _ENV_REF.sub(lambda m: m.group(2) or "", url)
    scheme, sep, rest = without_env.partition("://")
    server_from_env = url.startswith("${") and not sep
    if not server_from_env and (not sep or scheme.lower() not in ("http", "https")):
        raise ToolDefinitionError(name, f"the url {url!r} must start with http:// or https://")
    authority = "" if server_from_env else re.split(r"[/?#]", rest, maxsplit=1)[0]
    if "{" in authority:
        raise ToolDefinitionError(
            name, f"the url {url!r} has a placeholder in its host; only the path and query "
            "may use {param} (choose the server with ${VAR} instead)",
        )  # fmt: skip
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(without_env) if f is not None]
    except ValueError as exc:
        raise ToolDefinitionError(name, f"the url {url!r} is not a valid template: {exc}") from None
    for field_name in fields:
        if field_name not in properties:
            raise ToolDefinitionError(
                name, f"the url placeholder {{{field_name}}} is not a parameter of the tool"
            )
    return tuple(dict.fromkeys(fields))


def _headers(name: str, headers: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(headers, Mapping):
        raise ToolDefinitionError(name, "http 'headers' must be a mapping of name to value")
    out = []
    for key, value in headers.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise ToolDefinitionError(name, f"http header {key!r} must map a string to a string")
        if _SECRET_HEADER.search(key) and not _ENV_REF.search(value):
            raise ToolDefinitionError(
                name, f"the header {key!r} holds a literal value; secrets must come from "
                f"environment variables, e.g. {key}: \"Bearer ${{API_TOKEN}}\"",
            )  # fmt: skip
        out.append((key, value))
    return tuple(out)


def _mapping(name: str, key: str, value: Any, properties: set[str]) -> Any:
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        pairs = tuple((v, v) for v in value)
    elif isinstance(value, Mapping) and all(isinstance(v, str) for v in value.values()):
        pairs = tuple((str(k), v) for k, v in value.items())
    else:
        raise ToolDefinitionError(
            name,
            f"http '{key}' must be a list of parameter names or a {{wire_name: param}} map"
            + (" (or one parameter's name: its value is the whole body)" if key == "body" else ""),
        )
    for _, param in pairs:
        if param not in properties:
            raise ToolDefinitionError(name, f"http '{key}' maps {param!r}, not a parameter")
    return pairs


def _body_param(name: str, value: Any, properties: set[str]) -> str | None:
    if not isinstance(value, str):
        return None
    if value not in properties:
        raise ToolDefinitionError(name, f"http 'body' names {value!r}, not a parameter")
    return value


def _seconds(name: str, value: Any) -> float:
    wrong = timeout_problem(value)
    if wrong is not None:
        raise ToolDefinitionError(name, f"http 'timeout' {wrong}")
    return float(value)


def _byte_count(name: str, value: Any) -> int:
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not whole or value < 1:
        raise ToolDefinitionError(
            name, "http 'max_response_bytes' must be a whole number of bytes, at least 1, "
            f"got {shown_number(value)}",
        )  # fmt: skip
    return int(value)
