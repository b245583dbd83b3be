"""Running one HTTP tool call: build the request, guard the target, read the reply."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import string
import urllib.parse
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from forge.core.errors import BlockedAddressError
from forge.tools.config._network import NetworkPolicy, resolve_checked
from forge.tools.config._redact import redact
from forge.tools.config.http import HttpSpec, expand_env, is_credential_header
from forge.tools.values.results import ErrorKind, ToolResult

if TYPE_CHECKING:
    import httpx

__all__ = ["http_handler"]

MAX_REDIRECTS = 5
MAX_ERROR_BODY = 500
_ENV_NAME = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)")
_REDIRECTS = {301, 302, 303, 307, 308}


class _TooLarge(Exception):
    """The response body passed its size limit (internal: caught in this module)."""


class _Unreachable(Exception):
    """No connection to ``host``: its name did not resolve or every address refused (internal)."""

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(f"{host}: {reason}")
        self.host = host
        self.reason = reason


def http_handler(
    tool_name: str, spec: HttpSpec, *, policy: NetworkPolicy
) -> Callable[[dict[str, Any]], Coroutine[Any, Any, ToolResult]]:
    """Return the async handler that performs ``spec`` with a call's arguments."""

    async def call(arguments: dict[str, Any], /) -> ToolResult:
        used: dict[str, str] = {}
        result = await _call(tool_name, spec, arguments, policy=policy, used=used)
        if result.success or not used:
            return result
        return result.replace(error=redact(result.error or "", used))

    return call


async def _call(
    tool_name: str,
    spec: HttpSpec,
    arguments: dict[str, Any],
    *,
    policy: NetworkPolicy,
    used: dict[str, str],
) -> ToolResult:
    """One call; its messages may still hold environment values (``used``)."""
    try:
        method, url, headers, params, body = _request_parts(tool_name, spec, arguments, used)
    except LookupError as exc:
        return ToolResult.fail(
            f"Tool {tool_name!r} is misconfigured: {exc}. The arguments cannot fix this; "
            "do not retry it.",
            retryable=False,
        )
    except _BadArgument as exc:
        errors = [{"path": f, "kind": exc.kind, "message": exc.detail} for f in exc.fields]
        return ToolResult.fail(f"{exc}.", error_kind=ErrorKind.INVALID_ARGUMENTS, errors=errors)
    try:
        async with asyncio.timeout(spec.timeout):
            return await _exchange(
                spec,
                method,
                url=url,
                headers=headers,
                params=params,
                body=body,
                policy=policy,
            )
    except TimeoutError:
        return ToolResult.fail(
            f"{method} {_shown(url)} timed out after {spec.timeout:g} s; retry later.",
            error_kind=ErrorKind.TIMEOUT,
        )
    except BlockedAddressError as exc:
        return ToolResult.fail(str(exc), error_kind=ErrorKind.DENIED)
    except _TooLarge:
        return ToolResult.fail(
            f"the response to {method} {_shown(url)} is larger than the "
            f"{spec.max_response_bytes} byte limit; ask for less data."
        )
    except _Unreachable as exc:
        return ToolResult.fail(_unreachable_message(spec, method, url, exc, used), retryable=True)
    except _http_errors() as exc:
        return ToolResult.fail(
            f"{method} {_shown(url)} failed: {type(exc).__name__}: {exc}. The server could not "
            "be reached or broke off the exchange; retrying the same call later may help, "
            "different arguments will not.",
            retryable=True,
        )


def _unreachable_message(
    spec: HttpSpec, method: str, url: str, exc: _Unreachable, used: dict[str, str]
) -> str:
    """Name the host and how to change it, so an offline run does not read like a bug.

    A host that came from the environment is named by its variable, never by its value.
    """
    variables = [name for name, value in used.items() if exc.host in value]
    host = f"the host set by ${{{variables[0]}}}" if variables else exc.host
    configured = sorted(set(_ENV_NAME.findall(spec.url.partition("?")[0])))
    where = (
        f"the environment variable {' or '.join(configured)} sets its address"
        if configured
        else "its address is the url in the tool's configuration"
    )
    return (
        f"{method} {_shown(url)} failed: {host} could not be reached ({exc.reason}). "
        f"The tool needs network access to that host ({where}); retrying the same call "
        "later may help, different arguments will not."
    )


def _http_errors() -> tuple[type[Exception], ...]:
    import httpx

    return OSError, httpx.HTTPError, httpx.InvalidURL


def _shown(url: str) -> str:
    """The URL without its userinfo and query string (which may carry secrets) for messages."""
    scheme, sep, rest = url.split("?", 1)[0].partition("://")
    authority, slash, path = rest.partition("/")
    return scheme + sep + authority.rpartition("@")[2] + slash + path


def _request_parts(
    name: str, spec: HttpSpec, arguments: dict[str, Any], used: dict[str, str]
) -> tuple[str, str, dict[str, str], list[tuple[str, str]], Any]:
    path_values = {}
    for param in spec.path_params:
        if param not in arguments or arguments[param] is None:
            raise LookupError(f"the url needs the parameter {param!r}, which was not given")
        path_values[param] = urllib.parse.quote(_text(arguments[param]), safe="")
    path, mark, query = spec.url.partition("?")
    path = expand_env(path, "the url", template=True, used=used)
    _check_segments(path, path_values)
    url = path + mark + expand_env(query, "the url", template=True, quoted=True, used=used)
    url = url.format(**path_values)
    headers = {k: expand_env(v, f"the header {k!r}", used=used) for k, v in spec.headers}
    headers.update(_argument_headers(spec, arguments, headers))
    params = [
        (wire, _text(item))
        for wire, param in spec.query
        if arguments.get(param) is not None
        for item in _repeated(arguments[param])
    ]
    body = None
    if spec.body_param is not None:
        body = arguments.get(spec.body_param)
    elif spec.body is not None:
        body = {wire: arguments[param] for wire, param in spec.body if param in arguments}
    return spec.method, url, headers, params, body


def _repeated(value: Any) -> list[Any]:
    """A list argument in the query is the parameter repeated (OpenAPI's form style)."""
    return list(value) if isinstance(value, list) else [value]


def _argument_headers(
    spec: HttpSpec, arguments: dict[str, Any], configured: dict[str, str]
) -> dict[str, str]:
    """The headers and cookies filled from arguments (cookies after a configured ``Cookie``)."""
    taken = {k.lower() for k in configured}  # a configured header (a credential) wins
    out = {
        wire: _header_value(param, arguments[param])
        for wire, param in spec.header_params
        if arguments.get(param) is not None and wire.lower() not in taken
    }
    cookies = [
        f"{wire}={urllib.parse.quote(_text(arguments[param]), safe='')}"
        for wire, param in spec.cookie_params
        if arguments.get(param) is not None
    ]
    if cookies:
        given = next((v for k, v in configured.items() if k.lower() == "cookie"), "")
        for key in [k for k in configured if k.lower() == "cookie"]:
            configured.pop(key)
        out["Cookie"] = "; ".join([given, *cookies] if given else cookies)
    return out


class _BadArgument(ValueError):
    """An argument cannot be used in the request (internal: caught in this module)."""

    def __init__(
        self,
        message: str,
        fields: list[str],
        kind: str = "path_segment",
        detail: str = "'.' and '..' are not allowed",
    ) -> None:
        super().__init__(message)
        self.fields = fields
        self.kind = kind
        self.detail = detail


def _check_segments(path: str, values: dict[str, str]) -> None:
    """Refuse arguments that make a path segment ``.`` or ``..`` (which would climb)."""
    for piece in path.split("/"):
        fields = [f for _, f, _, _ in string.Formatter().parse(piece) if f]
        if fields and urllib.parse.unquote(piece.format(**values)) in (".", ".."):
            names = " and ".join(repr(f) for f in fields)
            plural = "s" if len(fields) > 1 else ""
            raise _BadArgument(
                f"the argument{plural} {names} cannot make the URL path segment "
                f"{piece.format(**values)!r}: '.' and '..' would leave the path; "
                "pass another value",
                fields,
            )


def _header_value(param: str, value: Any) -> str:
    """An argument as a header value: printable ASCII only (no line breaks to inject headers)."""
    text = _text(value)
    if not text.isascii() or not text.isprintable():
        raise _BadArgument(
            f"the argument {param!r} is sent as a header, whose value must be printable ASCII "
            "(no line breaks or other control characters); pass another value",
            [param], kind="header_value", detail="printable ASCII only",
        )  # fmt: skip
    return text


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value, separators=(",", ":"))


async def _exchange(
    spec: HttpSpec,
    method: str,
    *,
    url: str,
    headers: dict[str, str],
    params: list[tuple[str, str]],
    body: Any,
    policy: NetworkPolicy,
) -> ToolResult:
    import httpx

    target = httpx.URL(url)
    if params:  # after the url's own query parameters
        target = target.copy_with(params=[*target.params.multi_items(), *params])
    async with httpx.AsyncClient(trust_env=False, follow_redirects=False) as client:
        for _ in range(MAX_REDIRECTS + 1):
            response = await _send(
                client,
                method,
                target,
                headers=headers,
                body=body,
                spec=spec,
                policy=policy,
            )
            status, location = response[0], response[1]
            if status in _REDIRECTS and location:
                origin = _origin(target)
                target = target.join(location)
                if target.scheme not in ("http", "https"):
                    return ToolResult.fail(
                        f"refused a redirect to a {target.scheme!r} URL; retrying will not help",
                        retryable=False,
                    )
                if _origin(target) != origin:
                    headers = _without_credentials(spec, headers)
                    target = target.copy_with(userinfo=b"")
                if status == 303 or (status in (301, 302) and method == "POST"):
                    method, body = "GET", None
                continue
            return _result(method, str(target), response)
    return ToolResult.fail(
        f"{method} {_shown(url)} redirected more than {MAX_REDIRECTS} times; "
        "retrying will not help",
        retryable=False,
    )


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    default = 443 if url.scheme == "https" else 80
    return url.scheme, url.host, url.port or default


def _without_credentials(spec: HttpSpec, headers: dict[str, str]) -> dict[str, str]:
    """The headers another origin may see: none that names or carries a credential.

    A redirect to another scheme, host or port drops ``Authorization``,
    ``Cookie``, every secret-looking header and every header filled from the
    environment, as browsers and ``requests`` drop ``Authorization``. A 307 or
    308 still re-sends the method and body (RFC 9110), as ``requests`` does.
    """
    dropped = {name.lower() for name, value in spec.headers if is_credential_header(name, value)}
    dropped |= {"authorization", "proxy-authorization", "cookie"}
    return {k: v for k, v in headers.items() if k.lower() not in dropped}


async def _send(
    client: httpx.AsyncClient,
    method: str,
    target: httpx.URL,
    *,
    headers: dict[str, str],
    body: Any,
    spec: HttpSpec,
    policy: NetworkPolicy,
) -> tuple[int, str | None, str, str, bytes]:
    if target.scheme not in ("http", "https") or not target.host:
        raise OSError(f"cannot request {target}")
    import httpx

    port = target.port or (443 if target.scheme == "https" else 80)
    try:
        addresses = await resolve_checked(target.host, port, policy=policy)
    except socket.gaierror:
        raise _Unreachable(target.host, "its name did not resolve") from None
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    client.cookies.clear()  # cookies set by one hop never travel to the next
    for position, address in enumerate(addresses, start=1):
        request = client.build_request(
            method, target.copy_with(host=address),
            headers={**headers, "Host": target.netloc.decode("ascii")},
            json=body, extensions=extensions,
        )  # fmt: skip
        try:
            response = await client.send(request, stream=True)
            break
        except httpx.ConnectError:
            if position == len(addresses):
                raise _Unreachable(target.host, "no connection to its address") from None
    try:
        data = await _read_limited(response, spec.max_response_bytes)
    finally:
        await response.aclose()
    return (
        response.status_code,
        response.headers.get("location"),
        response.reason_phrase,
        response.headers.get("content-type", ""),
        data,
    )


async def _read_limited(response: httpx.Response, limit: int) -> bytes:
    """Read the (decoded) body, stopping as soon as it exceeds ``limit`` bytes."""
    data = bytearray()
    async for chunk in response.aiter_bytes():
        data.extend(chunk)
        if len(data) > limit:
            raise _TooLarge
    return bytes(data)


def _result(method: str, url: str, response: tuple[int, str | None, str, str, bytes]) -> ToolResult:
    status, _, reason, content_type, raw = response
    text = raw.decode("utf-8", errors="replace")
    content: Any = text
    if "json" in content_type.lower():
        try:
            content = json.loads(text)
        except ValueError:
            content = text
    if 200 <= status < 300:
        return ToolResult.ok(content, status=status)
    excerpt = text[:MAX_ERROR_BODY] + ("..." if len(text) > MAX_ERROR_BODY else "")
    retry = "retrying may help" if status >= 500 or status == 429 else "retrying will not help"
    return ToolResult.fail(
        f"{method} {_shown(url)} returned HTTP {status} {reason}: {excerpt} ({retry})",
        status=status,
    )
