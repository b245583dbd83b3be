"""Requests from other pages of the machine, and event streams, against a real `serve_http`.

A page on another port of 127.0.0.1 or localhost is another origin but the same site, so
the browser sends it the session cookie; what such a page can send is replayed here over
httpx (the browser itself: ``tests/browser/test_cross_origin.py``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import httpx
import pytest

from forge.mcp import HttpLimits

from .conftest import Served

pytestmark = pytest.mark.slow
TOKEN = "catalog-origin-test-token-0123456789"
RUN = "/api/tools/wipe/run"
WIPE = b'{"arguments": {"table": "t"}, "confirm": true}'
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip
ACCEPT = {"accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def with_token() -> Iterator[Served]:
    """A server with a token, so browsers sign in."""
    server = Served(token=TOKEN)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def without_token() -> Iterator[Served]:
    """A server without a token (the default loopback bind)."""
    server = Served()
    yield server
    server.stop()


@pytest.fixture(params=["with_token", "without_token"])
def served(request: pytest.FixtureRequest) -> Served:
    """Each server in turn: the browser signed in, and no sign-in at all."""
    server: Served = request.getfixturevalue(request.param)
    return server


@pytest.fixture
def browser(served: Served) -> Iterator[httpx.Client]:
    """What a browser holds for the catalog: its session cookie when the server has a token."""
    with served.client(headers={}) as client:
        if served.token:
            assert client.post("/login", data={"token": TOKEN}).status_code == 303
            assert client.cookies.get("forge_catalog")
        yield client


def _wipes(client: httpx.Client) -> int:
    tools = client.get("/api/metrics").json()["tools"]
    calls: int = tools.get("wipe", {}).get("calls", 0)
    return calls


def test_writes_a_foreign_page_can_send_never_run_the_tool(
    served: Served, browser: httpx.Client
) -> None:
    """Form bodies, text/plain (no-cors fetch), another port or host name, a same-site fetch,
    no or a wrong CSRF token: refused (403 or 415) and nothing ran, signed in or not."""
    own = served.url
    other_port = served.port + 1 if served.port < 65535 else served.port - 1
    json_type = {"content-type": "application/json"}
    csrf = browser.get("/api/session").json()["csrf"]
    attacks: list[tuple[dict[str, str], bytes, int, str]] = [
        ({"content-type": "text/plain;charset=UTF-8"}, WIPE, 415, "unsupported_media_type"),
        ({"content-type": "text/plain", "origin": own, "x-forge-csrf": csrf}, WIPE, 415,
         "unsupported_media_type"),
        ({"content-type": "application/x-www-form-urlencoded"}, b"confirm=true", 415,
         "unsupported_media_type"),
        ({"content-type": "multipart/form-data; boundary=x"}, b"--x--", 415,
         "unsupported_media_type"),
        ({}, WIPE, 415, "unsupported_media_type"),
        ({**json_type, "origin": f"http://127.0.0.1:{other_port}", "x-forge-csrf": csrf}, WIPE,
         403, "cross_origin"),
        ({**json_type, "origin": f"http://localhost:{other_port}", "x-forge-csrf": csrf}, WIPE,
         403, "cross_origin"),
        ({**json_type, "origin": f"http://localhost:{served.port}", "x-forge-csrf": csrf}, WIPE,
         403, "cross_origin"),
        ({**json_type, "origin": f"https://127.0.0.1:{served.port}", "x-forge-csrf": csrf}, WIPE,
         403, "cross_origin"),
        ({**json_type, "origin": "null", "x-forge-csrf": csrf}, WIPE, 403, ""),  # the host check
        ({**json_type, "sec-fetch-site": "same-site", "x-forge-csrf": csrf}, WIPE, 403,
         "cross_origin"),
        ({**json_type, "origin": own}, WIPE, 403, "csrf"),
        ({**json_type, "origin": own, "x-forge-csrf": csrf + "x"}, WIPE, 403, "csrf"),
    ]  # fmt: skip
    for headers, body, status, error in attacks:
        response = browser.post(RUN, content=body, headers=headers)
        assert response.status_code == status, headers
        assert not error or response.json()["error"] == error, headers
        assert csrf not in response.text
    assert _wipes(browser) == 0
    mine = {**json_type, "origin": own, "sec-fetch-site": "same-origin", "x-forge-csrf": csrf}
    done = browser.post(RUN, content=WIPE, headers=mine)
    assert (done.status_code, done.json()["result"]) == (200, "wiped t")
    assert _wipes(browser) == 1


def test_a_csrf_token_belongs_to_its_session(with_token: Served) -> None:
    """Another session's token does not do; the bearer token needs none (no browser sends it)."""
    served = with_token
    with served.client(headers={}) as first, served.client(headers={}) as second:
        for client in (first, second):
            client.post("/login", data={"token": TOKEN})
        stolen = first.get("/api/session").json()["csrf"]
        assert second.get("/api/session").json()["csrf"] != stolen
        refused = second.post("/api/tools/echo/run", json={"arguments": {"text": "x"}},
                              headers={"x-forge-csrf": stolen})  # fmt: skip
        assert refused.status_code == 403
    with served.client() as bearer:
        answer = bearer.post("/api/tools/echo/run", json={"arguments": {"text": "x"}})
        assert answer.json()["result"] == "x"


def test_signing_in_from_another_origin_is_refused(with_token: Served) -> None:
    """The sign-in form posts only from the server's own origin."""
    served = with_token
    with served.client(headers={}) as client:
        foreign = {"origin": f"http://localhost:{served.port}"}
        refused = client.post("/login", data={"token": TOKEN}, headers=foreign)
        assert refused.status_code == 403
        assert "forge_catalog" not in client.cookies
        own = client.post("/login", data={"token": TOKEN}, headers={"origin": served.url})
        assert own.status_code == 303


def _open_streams(client: httpx.Client, stack: contextlib.ExitStack, count: int) -> list[int]:
    """Open ``count`` event streams and keep the live ones open; their statuses."""
    statuses = []
    for _ in range(count):
        response = stack.enter_context(client.stream("GET", "/api/events"))
        statuses.append(response.status_code)
        if response.status_code == 200:
            lines = response.iter_lines()
            assert next(lines).startswith("retry:")
            stack.callback(lines.close)
        else:
            response.read()
            assert response.json()["error"] == "too_many_streams"
            assert response.headers["retry-after"]
    return statuses


def test_event_streams_never_starve_mcp() -> None:
    """Streams have their own caps, below the connection caps: one address holding many, or
    four addresses, leave /mcp and the API answering everyone."""
    limits = HttpLimits(max_connections_per_client=8, max_connections=16)
    server = Served(token=TOKEN, limits=limits)
    clients: list[httpx.Client] = []

    def client(address: str) -> httpx.Client:
        transport = httpx.HTTPTransport(local_address=address)
        made = server.client(transport=transport)
        clients.append(made)
        return made

    try:
        with contextlib.ExitStack() as stack:
            flooder = client("127.0.0.1")
            assert _open_streams(flooder, stack, 8) == [200] * 4 + [429] * 4
            for n in (2, 3, 4):
                _open_streams(client(f"127.0.0.{n}"), stack, 4)
            for address in ("127.0.0.1", "127.0.0.5"):
                mcp = client(address).post("/mcp", json=INITIALIZE, headers=ACCEPT)
                assert mcp.status_code == 200, address
                assert client(address).get("/api/tools").status_code == 200
            assert _open_streams(client("127.0.0.6"), stack, 1) == [429]  # 8 open in all
    finally:
        for made in clients:
            made.close()
        server.stop()
