"""Reading an OpenAPI document from an ``http(s)`` URL, within a size limit and a deadline.

The host name is resolved once and every address checked as HTTP tools check
theirs; the connection then goes to a checked address (the name is kept for the
``Host`` header and TLS), so a second DNS answer cannot swap in another one.
The body is read in chunks and dropped as soon as it passes `MAX_DOCUMENT_BYTES`
or the whole exchange passes `FETCH_DEADLINE` (give or take one `STALL`, the
longest a single read may wait). A compressed body (gzip or deflate) is inflated
here, a bounded piece at a time, so the limit holds for what it inflates to: a
small compressed "bomb" never expands whole in memory. Redirects are not followed.
"""

from __future__ import annotations

import ipaddress
import socket
import time
import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from forge.tools.config.openapi._errors import OpenAPIError

if TYPE_CHECKING:
    import httpx

    from forge.tools.config._network import NetworkPolicy

__all__ = ["FETCH_DEADLINE", "MAX_DOCUMENT_BYTES", "fetch"]

MAX_DOCUMENT_BYTES = 20 * 1024 * 1024
"""The largest document read (a file or a response body), in bytes."""
FETCH_DEADLINE = 30.0
"""Seconds for the whole fetch of a document: connecting, the headers and every chunk."""
STALL = 5.0
"""The longest wait for any one step (a chunk, say): the deadline is checked between steps."""
_PIECE = 1024 * 1024
"""The most bytes one step of inflating a compressed body may produce."""
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


class _Expired(Exception):
    """The deadline passed (internal: becomes an `OpenAPIError`)."""


def fetch(url: str, allow_private: Any) -> str:
    """GET the document at ``url`` from a checked address.

    Raises:
        OpenAPIError: The host does not resolve or resolves to a refused address,
            the server fails or answers other than 200, or the body passes the
            size limit or the deadline.
    """
    import httpx

    from forge.tools.config._network import NetworkPolicy

    policy = NetworkPolicy.coerce(allow_private)
    deadline = time.monotonic() + FETCH_DEADLINE
    try:
        target = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise OpenAPIError(url, "", f"not a valid URL: {exc}") from None
    addresses = _checked_addresses(url, target, policy)
    try:
        with httpx.Client(trust_env=False, follow_redirects=False) as client:
            return _get(client, url, target, addresses, deadline)
    except (_Expired, httpx.TimeoutException):
        raise _timeout(url, deadline) from None
    except (httpx.HTTPError, httpx.InvalidURL, OSError) as exc:
        raise OpenAPIError(url, "", f"cannot fetch the document: {exc}") from None


def _timeout(url: str, deadline: float) -> OpenAPIError:
    if time.monotonic() >= deadline:
        reason = f"fetching the document took longer than {FETCH_DEADLINE:g} s (the limit)"
    else:
        reason = f"the server sent nothing for {STALL:g} s (the limit)"
    return OpenAPIError(url, "", reason + "; download the document and import the file")


def _checked_addresses(url: str, target: httpx.URL, policy: NetworkPolicy) -> list[str]:
    from forge.tools.config._network import address_refusal

    port = target.port or (443 if target.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(target.host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError, ValueError) as exc:
        raise OpenAPIError(url, "", f"cannot resolve the host: {exc}") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        reason = address_refusal(address)
        if reason is not None and not policy.allows(address):
            raise OpenAPIError(
                url, "", f"the host resolves to the {reason} address {address}; pass "
                "allow_private_network (--allow-private-network) to read it",
            )  # fmt: skip
    if not addresses:
        raise OpenAPIError(url, "", "cannot resolve the host: no address")
    return addresses


def _get(
    client: httpx.Client, url: str, target: httpx.URL, addresses: list[str], deadline: float
) -> str:
    import httpx

    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    for position, address in enumerate(addresses, start=1):
        headers = {"Host": target.netloc.decode("ascii"), "Accept-Encoding": "gzip, deflate"}
        request = client.build_request(
            "GET", target.copy_with(host=address), headers=headers,
            timeout=min(_remaining(deadline), STALL), extensions=extensions,
        )  # fmt: skip
        try:
            response = client.send(request, stream=True)
        except httpx.ConnectError:
            if position == len(addresses):
                raise
            continue
        try:
            return _body(response, url, deadline)
        finally:
            response.close()
    raise AssertionError("unreachable: the last address raises or returns")


def _body(response: httpx.Response, url: str, deadline: float) -> str:
    if response.status_code != 200:
        raise OpenAPIError(url, "", f"fetching the document returned HTTP {response.status_code}")
    too_large = OpenAPIError(
        url, "", f"the document is larger than {MAX_DOCUMENT_BYTES:,} bytes (the limit); "
        "import a smaller one (only the operations you need)",
    )  # fmt: skip
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_DOCUMENT_BYTES:
        raise too_large
    data = bytearray()
    for chunk in _inflated(response, url):
        data.extend(chunk)
        if len(data) > MAX_DOCUMENT_BYTES:
            raise too_large
        _remaining(deadline)
    try:
        return data.decode(response.charset_encoding or "utf-8")
    except (LookupError, UnicodeDecodeError) as exc:
        raise OpenAPIError(url, "", f"the document is not text in its encoding: {exc}") from None


def _inflated(response: httpx.Response, url: str) -> Iterator[bytes]:
    """The body's bytes as sent, inflated if compressed: no step yields more than `_PIECE`."""
    coding = response.headers.get("content-encoding", "").strip().lower()
    if coding in ("", "identity"):
        yield from response.iter_raw()
        return
    if coding not in _WBITS:
        raise OpenAPIError(
            url, "", f"the document is sent with Content-Encoding {coding[:40]!r}, which is not "
            "read here (gzip and deflate are); download it and import the file",
        )  # fmt: skip
    inflater: Any = None
    try:
        for chunk in response.iter_raw():
            if inflater is None:
                inflater = zlib.decompressobj(_wbits(coding, chunk))
            left = chunk
            while left:
                yield inflater.decompress(left, _PIECE)
                left = inflater.unconsumed_tail
        if inflater is not None:
            yield inflater.flush()
    except zlib.error as exc:
        raise OpenAPIError(url, "", f"the compressed document cannot be inflated: {exc}") from None


def _wbits(coding: str, first: bytes) -> int:
    """The window setting for a body that starts with ``first``: servers often send
    ``deflate`` without its zlib header (a raw stream)."""
    if coding == "deflate" and (len(first) < 2 or int.from_bytes(first[:2], "big") % 31 != 0):
        return -zlib.MAX_WBITS
    return _WBITS[coding]


def _remaining(deadline: float) -> float:
    """Seconds until ``deadline``; raises `_Expired` once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise _Expired
    return left
