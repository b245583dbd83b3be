"""The HTTP server against hostile clients: DNS rebinding, slow sockets, session floods, tokens.

Real uvicorn servers on loopback addresses, raw sockets and the official client.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_harness import wait_for
from thread_server import ThreadServer
from waiting_tools import registry as waiting_registry

from forge.mcp import HttpLimits, InsecureBindError
from forge.mcp._hosts import HostPolicy
from forge.mcp._http import BearerAuth
from forge.mcp.command import run_serve
from forge.mcp.serve import MIN_TOKEN_LENGTH, check_bind
from forge.tools import ToolRegistry

TOKEN = "a-test-token-long-enough-for-any-bind"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
PARTIAL = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: applic"


@pytest.fixture
def start() -> Iterator[Callable[..., ThreadServer]]:
    """Start in-process servers of the waiting tools; all are stopped in teardown."""
    started: list[ThreadServer] = []

    def run(**options: Any) -> ThreadServer:
        server = ThreadServer(waiting_registry, **options)
        started.append(server)
        return server

    yield run
    for server in started:
        server.stop()


def client_from(address: str) -> httpx.Client:
    """An HTTP client whose connections come from ``address`` (another client, to the server)."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=20)


def initialize(http: httpx.Client, url: str, **headers: str) -> httpx.Response:
    """Open a session with a raw ``initialize``."""
    return http.post(url, json=INIT, headers={**HEADERS, **headers})


def list_tools(http: httpx.Client, url: str, session: str, **headers: str) -> int:
    """The status of ``tools/list`` in ``session``."""
    request = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    session_headers = {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    answer = http.post(url, json=request, headers={**HEADERS, **session_headers, **headers})
    return answer.status_code


def add_with_client(url: str, token: str | None = None) -> str:
    """Initialize and call ``add`` with the official client."""

    async def body() -> str:
        auth = {"Authorization": f"Bearer {token}"} if token else None
        async with (
            create_mcp_http_client(headers=auth) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            result = await client.call_tool("add", {"a": 1, "b": 2})
            return str(result.content[0].text)

    return asyncio.run(asyncio.wait_for(body(), 60))


def slow_socket(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A connection that sends half a request and stalls."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=20, source_address=(source, 0))
    sock.sendall(PARTIAL)
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed ``sock`` (any answer it sent is read and dropped)."""
    sock.setblocking(False)
    try:
        while True:
            if not sock.recv(4096):
                return True
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


# -- DNS rebinding -----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("host", ["127.0.0.2", "LOCALHOST", "::1", "127.9.8.7", "127.0.0.1"])
def test_a_foreign_host_or_origin_is_refused_on_every_loopback_bind(
    start: Callable[..., ThreadServer], host: str
) -> None:
    """Host: attacker.example gets 421 and a foreign Origin 403 on any loopback bind."""
    server = start(host=host)
    with httpx.Client(timeout=20) as http:
        for foreign in ("attacker.example", f"attacker.example:{server.port}"):
            assert initialize(http, server.url, Host=foreign).status_code == 421
        assert initialize(http, server.url, Origin="http://attacker.example").status_code == 403
        assert initialize(http, server.url, Origin="null").status_code == 403
        assert initialize(http, server.url, Host=f"localhost:{server.port}").status_code == 200
        origin = f"http://127.0.0.1:{server.port}"
        assert initialize(http, server.url, Origin=origin).status_code == 200


@pytest.mark.slow
def test_a_public_bind_answers_its_addresses_and_the_allowed_hosts_only(
    start: Callable[..., ThreadServer],
) -> None:
    """Bound to 0.0.0.0 with --allowed-host tools.example: other names are refused."""
    server = start(host="0.0.0.0", token=TOKEN, allowed_hosts=["tools.example"])
    url = f"http://127.0.0.1:{server.port}/mcp"
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(timeout=20) as http:
        assert initialize(http, url, Host="attacker.example", **auth).status_code == 421
        assert initialize(http, url, Host="attacker.example").status_code == 421
        assert initialize(http, url, Host=f"tools.example:{server.port}", **auth).status_code == 200
        assert initialize(http, url, Host="TOOLS.example", **auth).status_code == 200
        assert initialize(http, url, Origin="https://evil.example", **auth).status_code == 403
        assert initialize(http, url, **auth).status_code == 200
    assert add_with_client(url, TOKEN) == "3"


@pytest.mark.parametrize(
    ("bind", "allowed", "host", "expected"),
    [("127.0.0.2", (), "127.0.0.2", True), ("127.0.0.2", (), "127.0.0.1", True),
     ("127.0.0.2", (), "10.0.0.1", False), ("localhost", (), "localhost.", True),
     ("::1", (), "::1", True), ("127.0.0.1", (), "attacker.example", False),
     ("127.0.0.1", ("tools.example",), "tools.example", True),
     ("0.0.0.0", (), "10.1.2.3", True), ("0.0.0.0", (), "rebind.example", False),
     ("0.0.0.0", ("*",), "rebind.example", True), ("tools.lan", (), "tools.lan", True)],
)  # fmt: skip
def test_host_policy(bind: str, allowed: tuple[str, ...], host: str, expected: bool) -> None:
    """Loopback binds take loopback names; others their addresses; both the allowed names."""
    assert HostPolicy(bind, allowed).host_allowed(host) is expected


@pytest.mark.parametrize("bad", ["http://tools.example", "tools.example/mcp", "", "a b"])
def test_an_allowed_host_that_is_no_host_name_is_refused_at_start(bad: str) -> None:
    """An --allowed-host with a scheme, a path or spaces exits 1 naming the value."""
    with pytest.raises(ValueError, match="is not a host name or an IP address"):
        HostPolicy("127.0.0.1", [bad])


def test_run_serve_reports_a_bad_allowed_host(capsys: pytest.CaptureFixture[str]) -> None:
    """The command line prints the allowed-host error and exits 1 before serving."""
    code = run_serve(
        ToolRegistry(), transport="http", host="127.0.0.1", port=0, allowed_hosts=["x/y"]
    )
    assert code == 1
    assert "allowed host 'x/y'" in capsys.readouterr().err


# -- tokens ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "rule"),
    [(" ", "whitespace"), ("\t\n", "whitespace"), (TOKEN + "\n", "whitespace"),
     ("short-token", f"at least {MIN_TOKEN_LENGTH}"), ("", "without a bearer token")],
)  # fmt: skip
def test_a_public_bind_refuses_a_blank_or_short_token(token: str, rule: str) -> None:
    """Whitespace, control characters or fewer than 16 characters are refused, naming the rule."""
    with pytest.raises(InsecureBindError, match=rule) as raised:
        check_bind("0.0.0.0", token)
    assert token.strip() == "" or token.strip() not in str(raised.value)


def test_run_serve_refuses_a_whitespace_token_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """FORGE_TOOLS_TOKEN=' ' on a public bind exits 1 saying why."""
    monkeypatch.setenv("FORGE_TOOLS_TOKEN", " ")
    assert run_serve(ToolRegistry(), transport="http", host="0.0.0.0", port=0) == 1
    assert "whitespace" in capsys.readouterr().err


def test_the_token_is_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every check goes through hmac.compare_digest."""
    seen: list[tuple[bytes, bytes]] = []
    compare = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        seen.append((a, b))
        return compare(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    auth = BearerAuth(lambda *_: None, TOKEN)  # type: ignore[arg-type,return-value]
    scope = {"type": "http", "headers": [(b"authorization", f"bearer {TOKEN}".encode())]}
    assert auth._authorized(scope)
    assert seen == [(TOKEN.encode(), TOKEN.encode())]


@pytest.mark.slow
def test_the_bearer_scheme_is_case_insensitive(start: Callable[..., ThreadServer]) -> None:
    """'bearer', 'BEARER' and 'Bearer' all work; another scheme or token does not."""
    server = start(token=TOKEN)
    with httpx.Client(timeout=20) as http:
        for scheme in ("bearer", "BEARER", "Bearer", "bEaReR"):
            answer = initialize(http, server.url, Authorization=f"{scheme} {TOKEN}")
            assert answer.status_code == 200
        assert initialize(http, server.url, Authorization=f"Basic {TOKEN}").status_code == 401
        assert initialize(http, server.url, Authorization="bearer wrong").status_code == 401
        assert initialize(http, server.url, Authorization=f"bearer{TOKEN}").status_code == 401


# -- slow and incomplete requests -----------------------------------------------------------


@pytest.mark.slow
def test_requests_stalling_in_their_headers_or_body_are_closed(
    start: Callable[..., ThreadServer],
) -> None:
    """Half the headers, or headers and part of the body, and the server hangs up."""
    server = start(token=TOKEN, limits=HttpLimits(header_timeout=0.3, body_timeout=0.3))
    silent = socket.create_connection(("127.0.0.1", server.port), timeout=20)
    headers = slow_socket(server.port)
    body = socket.create_connection(("127.0.0.1", server.port), timeout=20)
    body.sendall(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\n"
        + f"Authorization: Bearer {TOKEN}\r\nContent-Length: 1000\r\n\r\n".encode()
        + b'{"jsonrpc": '
    )
    for sock in (silent, headers, body):
        with sock:
            assert sock.recv(4096) == b""  # closed, not answered


@pytest.mark.slow
def test_an_unauthenticated_request_is_answered_before_its_body(
    start: Callable[..., ThreadServer],
) -> None:
    """Without the token, 401 comes back although the announced body never arrives."""
    server = start(token=TOKEN)
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
        sock.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 4000000\r\n\r\n"
        )
        assert sock.recv(4096).startswith(b"HTTP/1.1 401 ")


@pytest.mark.slow
def test_slow_sockets_push_out_only_their_own_connections(
    start: Callable[..., ThreadServer],
) -> None:
    """Slow sockets beyond a client's cap, or the server's, close; other clients are served."""
    limits = HttpLimits(max_connections_per_client=8, max_connections=20)
    server = start(token=TOKEN, limits=limits)
    sources = [f"127.0.0.{n}" for n in range(2, 7)]
    stalled = [slow_socket(server.port, source) for source in sources for _ in range(15)]
    try:
        assert wait_for(lambda: sum(not closed_by_server(s) for s in stalled) <= 20)
        assert add_with_client(server.url, TOKEN) == "3"
        with client_from("127.0.0.2") as attacker_address:
            auth = {"Authorization": f"Bearer {TOKEN}"}
            assert initialize(attacker_address, server.url, **auth).is_success
    finally:
        for sock in stalled:
            sock.close()


# -- sessions --------------------------------------------------------------------------


@pytest.mark.slow
def test_a_session_flood_evicts_the_flooders_own_sessions(
    start: Callable[..., ThreadServer],
) -> None:
    """40 initializes from one client leave its last 5 open; another client still gets in."""
    server = start(limits=HttpLimits(max_sessions_per_client=5, max_sessions=8))
    with client_from("127.0.0.2") as flooder, client_from("127.0.0.3") as other:
        kept = initialize(other, server.url).headers["mcp-session-id"]
        sessions = [initialize(flooder, server.url).headers["mcp-session-id"] for _ in range(40)]
        assert [list_tools(flooder, server.url, s) for s in sessions[-5:]] == [200] * 5
        assert list_tools(flooder, server.url, sessions[0]) == 404
        assert list_tools(other, server.url, kept) == 200
    assert add_with_client(server.url) == "3"


@pytest.mark.slow
def test_at_the_overall_cap_the_biggest_client_gives_way(
    start: Callable[..., ThreadServer],
) -> None:
    """With 4 sessions overall, a client holding 3 loses its oldest to a newcomer."""
    server = start(limits=HttpLimits(max_sessions_per_client=3, max_sessions=4))
    with client_from("127.0.0.2") as big, client_from("127.0.0.3") as small:
        mine = initialize(small, server.url).headers["mcp-session-id"]
        theirs = [initialize(big, server.url).headers["mcp-session-id"] for _ in range(3)]
        newcomer = initialize(small, server.url).headers["mcp-session-id"]
        assert list_tools(big, server.url, theirs[0]) == 404
        assert [list_tools(small, server.url, s) for s in (mine, newcomer)] == [200, 200]
        assert [list_tools(big, server.url, s) for s in theirs[1:]] == [200, 200]


@pytest.mark.slow
def test_idle_sessions_expire(start: Callable[..., ThreadServer]) -> None:
    """A session without requests for session_idle_timeout is closed (then 404)."""
    server = start(limits=HttpLimits(session_idle_timeout=0.3))
    with httpx.Client(timeout=20) as http:
        session = initialize(http, server.url).headers["mcp-session-id"]
        statuses = []
        for _ in range(20):  # each request restarts the idle clock: wait longer in between
            time.sleep(1)
            statuses.append(list_tools(http, server.url, session))
            if statuses[-1] == 404:
                break
        assert statuses[-1] == 404


@pytest.mark.parametrize("field", ["header_timeout", "max_sessions", "disconnect_grace"])
@pytest.mark.parametrize("value", [0, -1, float("inf"), float("nan"), "5", True])
def test_limits_must_be_positive_numbers(field: str, value: Any) -> None:
    """A zero, negative, infinite or non-number limit is refused naming the field."""
    with pytest.raises((ValueError, TypeError), match=f"HttpLimits.{field}"):
        HttpLimits(**{field: value})


def test_session_ids_flow_as_json() -> None:
    """The raw initialize body is the one the SDK accepts (a guard for the helpers above)."""
    assert json.loads(json.dumps(INIT))["method"] == "initialize"


def test_the_command_line_takes_allowed_hosts(capsys: pytest.CaptureFixture[str]) -> None:
    """`serve --allowed-host` reaches the server: a bad one exits 1 naming it."""
    from forge.cli import main

    code = main(["serve", "--transport", "http", "--port", "0", "--allowed-host", "a.example",
                 "--allowed-host", "http://b.example"])  # fmt: skip
    assert code == 1
    assert "allowed host 'http://b.example'" in capsys.readouterr().err
