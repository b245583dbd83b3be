"""Hostile OpenAPI documents: environment templates, bombs, odd values, huge or slow fetches."""

from __future__ import annotations

import json
import socket
import threading
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from forge.tools import ToolRegistry
from forge.tools.config.openapi import OpenAPIError, import_openapi
from forge.tools.config.openapi import _fetch as fetch_module

LOCAL = ["127.0.0.1"]
HEAD = (
    'openapi: 3.0.3\ninfo: {title: T, version: "1"}\nservers: [{url: "https://api.example.com"}]\n'
)
OK = {"200": {"description": "OK"}}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return path


# Text from a document is literal; credentials only from what the caller names.


@pytest.mark.slow  # a server thread
def test_document_text_is_never_read_as_an_environment_variable(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """${VAR} in a path or server is sent as written; a title never picks a credential."""
    monkeypatch.setenv("DB_PASSWORD", "hunter2")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live")
    parameter = {"name": "DB_PASSWORD", "in": "path", "required": True,
                 "schema": {"type": "string"}}  # fmt: skip
    document = {
        "openapi": "3.0.3", "info": {"title": "OpenAI", "version": "1"},
        "servers": [{"url": http_server + "/{v}",
                     "variables": {"v": {"default": "s${DB_PASSWORD}"}}}],
        "paths": {"/items/${DB_PASSWORD}": {"get": {
            "operationId": "item", "parameters": [parameter], "responses": OK}}},
        "components": {"securitySchemes": {
            "api_key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}},
        "security": [{"api_key": []}],
    }  # fmt: skip
    result = import_openapi(document, allow_private_network=LOCAL)
    assert result.env == ()
    assert any("security scheme 'api_key' has no credential variable" in w
               for w in result.warnings)  # fmt: skip
    call = ToolRegistry(list(result.tools)).execute("item", {"DB_PASSWORD": "x"})
    assert call.success, call.error
    assert call.output["path"] == "/s%24%7BDB_PASSWORD%7D/items/%24x"
    assert "x-api-key" not in call.output["headers"]
    sent = json.dumps(call.output)
    assert "hunter2" not in sent
    assert "sk-live" not in sent


def test_credentials_come_only_from_the_variables_the_caller_names() -> None:
    """Per scheme: security_env, else the caller's prefix; else the scheme is not sent."""
    schemes = {
        "api_key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
        "bearer": {"type": "http", "scheme": "bearer"},
        "q": {"type": "apiKey", "in": "query", "name": "k${DB_PASSWORD}"},
        "c": {"type": "apiKey", "in": "cookie", "name": "${DB_PASSWORD}"},
    }
    paths = {f"/{n}": {"get": {"operationId": n, "security": [{n: []}], "responses": OK}}
             for n in schemes}  # fmt: skip
    document = {"openapi": "3.0.3", "info": {"title": "OpenAI", "version": "1"},
                "servers": [{"url": "https://api.example.com"}], "paths": paths,
                "components": {"securitySchemes": schemes}}  # fmt: skip
    bare = import_openapi(document)
    assert bare.env == ()
    assert all("headers" not in d["implementation"] for d in bare.definitions)
    named = import_openapi(document, security_env={"api_key": "MY_KEY", "q": "MY_Q"})
    impl = {d["name"]: d["implementation"] for d in named.definitions}
    assert impl["api_key"]["headers"] == {"X-Api-Key": "${MY_KEY}"}
    assert impl["q"]["url"] == "https://api.example.com/q?k%24%7BDB_PASSWORD%7D=${MY_Q}"
    assert "headers" not in impl["bearer"]
    assert set(named.env) == {"MY_KEY", "MY_Q"}
    prefixed = import_openapi(document, env_prefix="ACME")
    impl = {d["name"]: d["implementation"] for d in prefixed.definitions}
    assert impl["bearer"]["headers"] == {"Authorization": "Bearer ${ACME_BEARER}"}
    [skip] = prefixed.skipped
    assert skip.operation == "GET /c (c)"
    assert "not a valid name" in skip.reason
    with pytest.raises(OpenAPIError, match="'\\$\\{X\\}' is not an environment variable name"):
        import_openapi(document, security_env={"api_key": "${X}"})
    with pytest.raises(OpenAPIError, match="'_' has no letter or digit"):
        import_openapi(document, env_prefix="_")


# The configuration files' limits: aliases, depth; $refs inlined.


def test_a_yaml_alias_bomb_is_refused_naming_the_limit(tmp_path: Path) -> None:
    """Aliases expanding past the configuration files' limit are an OpenAPIError, at once."""
    lines = ["x-a0: &a0 [lol]"]
    lines += [f"x-a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 5)}]" for i in range(1, 10)]
    path = _write(tmp_path, "bomb.yaml", HEAD + "\n".join(lines) + "\npaths: {}\n")
    limit = r"expand to more than 100,000 nodes .*\(the limit per document\)"
    with pytest.raises(OpenAPIError, match=limit):
        import_openapi(path)


def test_refs_that_fan_out_are_refused_naming_the_limit() -> None:
    """Schemas each using the next one twice stop at the inlining limit, not after minutes."""
    levels = 17
    schemas: dict[str, Any] = {
        f"S{i}": {"type": "object", "properties": {
            "a": {"$ref": f"#/components/schemas/S{i + 1}"},
            "b": {"$ref": f"#/components/schemas/S{i + 1}"}}}
        for i in range(levels)
    }  # fmt: skip
    schemas[f"S{levels}"] = {"type": "string"}
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}
    document = {
        "openapi": "3.0.3", "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/x": {"post": {"operationId": "x", "requestBody": body, "responses": OK}}},
        "components": {"schemas": schemas},
    }  # fmt: skip
    with pytest.raises(OpenAPIError, match=r"\$refs expand to more than 100,000 schema nodes"):
        import_openapi(document)


# Valid YAML that JSON spells differently.


def test_unquoted_response_codes_import(tmp_path: Path) -> None:
    """``200:`` unquoted (an integer key in YAML) is the response code, as in JSON."""
    text = HEAD + (
        "paths:\n  /pets:\n    get:\n      operationId: listPets\n"
        "      parameters:\n      - {name: since, in: query, schema: {type: string, "
        "example: 2024-01-31}}\n"
        "      responses:\n        200:\n          description: OK\n"
        "        404:\n          description: missing\n"
    )
    result = import_openapi(_write(tmp_path, "pets.yaml", text))
    [tool] = result.tools
    assert tool.name == "listPets"
    assert tool.parameters["properties"]["since"]["examples"] == ["2024-01-31"]


# Mutated documents raise only OpenAPIError.

_DEEP_JSON = '{"openapi": "3.0.3", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
_CASES = {
    "recursive alias": ("a.yaml", HEAD + "paths: &p {/x: *p}\n", "recursive alias"),
    "100,000-deep JSON": ("d.json", _DEEP_JSON, "more than 100 levels deep"),
    "lone surrogate": ("s.json", '{"openapi": "3.0.3", "info": {"title": "\\ud800"}}',
                       "lone surrogate"),
    "binary value": ("b.yaml", HEAD + "x-b: !!binary aGk=\npaths: {}\n", "bytes value is not"),
    "set value": ("t.yaml", HEAD + "x-s: !!set {a, b}\npaths: {}\n", "set value is not"),
    "infinity": ("i.yaml", HEAD + "x-i: .inf\npaths: {}\n", "not a JSON number"),
    "5,000-digit integer": ("n.json", '{"openapi": "3.0.3", "x": ' + "9" * 5_000 + "}",
                            "invalid JSON"),
    "5,000-digit YAML integer": ("n.yaml", HEAD + "x-n: " + "9" * 5_000 + "\npaths: {}\n",
                                 "integer of 5000 digits"),
    "a key twice": ("k.yaml", HEAD + "paths: {}\nx-k: {200: a, '200': b}\n", "appears twice"),
    "impossible date": ("e.yaml", HEAD + "x-d: 2024-13-45\npaths: {}\n", "invalid YAML value"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(_CASES))
def test_mutated_documents_raise_only_openapi_error(tmp_path: Path, case: str) -> None:
    """Recursion, odd YAML values and invalid Unicode are OpenAPIError naming what, not crashes."""
    name, text, match = _CASES[case]
    with pytest.raises(OpenAPIError, match=match):
        import_openapi(_write(tmp_path, name, text))


def test_mutated_mappings_raise_only_openapi_error() -> None:
    """A mapping that contains itself, nests without end or holds objects is an OpenAPIError."""
    looped: dict[str, Any] = {"openapi": "3.0.3"}
    looped["paths"] = looped
    deep: list[Any] = []
    node = deep
    for _ in range(100_000):
        node.append([])
        node = node[0]
    for document, match in [
        (looped, "contains itself"), ({"openapi": "3.0.3", "x": deep}, "levels deep"),
        ({"openapi": "3.0.3", "x": object()}, "object value is not JSON"),
        ({"openapi": "3.0.3", ("a", 1): 1}, "a key is a tuple"),
        ({"openapi": "3.0.3", "x": "\udcff"}, "lone surrogate"),
        ({"openapi": "3.0.3", "x": [10**5000]}, "longer than Python reads"),
    ]:  # fmt: skip
        with pytest.raises(OpenAPIError, match=match):
            import_openapi(document)


# Remote documents: size, deadline, and the address that was checked.


class _RawServer:
    """A TCP server on 127.0.0.1 that answers each connection with ``reply(sock)``."""

    def __init__(self, reply: Callable[[socket.socket, threading.Event], None]) -> None:
        self.reply = reply
        self.stop = threading.Event()
        self.connections = 0
        self.finished = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            sock, _ = self.listener.accept()
        except OSError:
            return
        self.connections += 1
        with sock:
            sock.recv(65536)
            try:
                self.reply(sock, self.stop)
            except OSError:
                pass
            finally:
                self.finished.set()

    def close(self) -> None:
        self.stop.set()
        if self.connections == 0:  # wake the accept() no client reached
            with socket.socket() as waker:
                waker.connect(("127.0.0.1", self.port))
        self.thread.join(timeout=30)
        self.listener.close()


@pytest.fixture
def raw_server() -> Iterator[Callable[..., _RawServer]]:
    servers: list[_RawServer] = []

    def start(reply: Callable[[socket.socket, threading.Event], None]) -> _RawServer:
        servers.append(_RawServer(reply))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


_HEADERS = b"HTTP/1.1 200 OK\r\nContent-Type: application/yaml\r\nConnection: close\r\n\r\n"


@pytest.mark.slow  # a server thread
def test_a_huge_remote_document_is_dropped_past_the_limit(
    raw_server: Callable[..., _RawServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading stops at the size limit: the server cannot deliver the rest of its body."""
    monkeypatch.setattr(fetch_module, "MAX_DOCUMENT_BYTES", 1024 * 1024)
    sent = {"all": False}

    def huge(sock: socket.socket, stop: threading.Event) -> None:
        sock.sendall(_HEADERS)
        chunk = b"#" * 65536 + b"\n"
        for _ in range(1024):  # 64 MiB, far past the limit and the socket buffers
            sock.sendall(chunk)
        sent["all"] = True

    server = raw_server(huge)
    with pytest.raises(OpenAPIError, match=r"larger than 1,048,576 bytes \(the limit\)"):
        import_openapi(f"http://127.0.0.1:{server.port}/doc.yaml", allow_private_network=LOCAL)
    assert server.finished.wait(timeout=60)
    assert sent["all"] is False


@pytest.mark.slow  # a server thread
def test_a_trickled_remote_document_stops_at_the_deadline(
    raw_server: Callable[..., _RawServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body sent a byte at a time ends at the overall deadline, not when the server stops."""
    monkeypatch.setattr(fetch_module, "FETCH_DEADLINE", 0.5)

    def trickle(sock: socket.socket, stop: threading.Event) -> None:
        sock.sendall(_HEADERS + b"openapi: 3.0.3\n#")
        for _ in range(2_000):  # 20 s at most, so a broken client fails instead of hanging
            if stop.wait(0.01):
                return
            sock.sendall(b"#")

    server = raw_server(trickle)
    with pytest.raises(OpenAPIError, match=r"took longer than 0\.5 s \(the limit\)"):
        import_openapi(f"http://127.0.0.1:{server.port}/doc.yaml", allow_private_network=LOCAL)


@pytest.mark.slow  # a server thread
def test_a_stalled_remote_document_stops_at_the_stall_limit(
    raw_server: Callable[..., _RawServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that goes quiet after its headers is given up on well before the deadline."""
    monkeypatch.setattr(fetch_module, "STALL", 0.2)

    def quiet(sock: socket.socket, stop: threading.Event) -> None:
        sock.sendall(_HEADERS + b"openapi: 3.0.3\n")
        stop.wait(60)

    server = raw_server(quiet)
    with pytest.raises(OpenAPIError, match=r"sent nothing for 0\.2 s \(the limit\)"):
        import_openapi(f"http://127.0.0.1:{server.port}/doc.yaml", allow_private_network=LOCAL)


def _compressed(body: bytes, wbits: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return packer.compress(body) + packer.flush()


def _encoded_reply(coding: str, body: bytes) -> Callable[[socket.socket, threading.Event], None]:
    def reply(sock: socket.socket, stop: threading.Event) -> None:
        head = (
            "HTTP/1.1 200 OK\r\nContent-Type: application/yaml\r\n"
            f"Content-Encoding: {coding}\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n"
        )
        sock.sendall(head.encode() + body)

    return reply


@pytest.mark.slow  # a server thread
def test_a_compressed_bomb_is_dropped_past_the_limit_in_bounded_memory(
    raw_server: Callable[..., _RawServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """256 MiB of zeros gzipped to about 250 KB: the limit holds for what the body inflates to,
    and inflating never holds much more than the limit (a piece at a time, not a chunk whole)."""
    monkeypatch.setattr(fetch_module, "MAX_DOCUMENT_BYTES", 1024 * 1024)
    bomb = _compressed(b"0" * (256 * 1024 * 1024), 16 + zlib.MAX_WBITS)
    warm = raw_server(_encoded_reply("gzip", _compressed(b"[]", 16 + zlib.MAX_WBITS)))
    with pytest.raises(OpenAPIError):  # imports what a fetch needs, outside the measure
        import_openapi(f"http://127.0.0.1:{warm.port}/d.yaml", allow_private_network=LOCAL)
    server = raw_server(_encoded_reply("gzip", bomb))
    tracemalloc.start()
    try:
        with pytest.raises(OpenAPIError, match=r"larger than 1,048,576 bytes \(the limit\)"):
            import_openapi(f"http://127.0.0.1:{server.port}/d.yaml", allow_private_network=LOCAL)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, f"{peak:,} bytes at the peak"


@pytest.mark.slow  # a server thread
@pytest.mark.parametrize(
    ("coding", "wbits"),
    [("gzip", 16 + zlib.MAX_WBITS), ("deflate", zlib.MAX_WBITS), ("deflate", -zlib.MAX_WBITS)],
    ids=["gzip", "deflate", "raw-deflate"],
)
def test_a_compressed_document_imports(
    raw_server: Callable[..., _RawServer], coding: str, wbits: int
) -> None:
    """gzip and deflate bodies (with or without the zlib header) are read as their text."""
    document = (
        HEAD
        + "paths:\n  /items:\n    get:\n      operationId: list_items\n"
        + ("      responses: {'200': {description: OK}}\n")
    )
    server = raw_server(_encoded_reply(coding, _compressed(document.encode(), wbits)))
    imported = import_openapi(f"http://127.0.0.1:{server.port}/d.yaml", allow_private_network=LOCAL)
    assert [tool.name for tool in imported.tools] == ["list_items"]


@pytest.mark.slow  # a server thread
def test_an_encoding_that_is_not_read_is_refused_by_name(
    raw_server: Callable[..., _RawServer],
) -> None:
    server = raw_server(_encoded_reply("br", b"\x8b\x00\x80openapi"))
    with pytest.raises(OpenAPIError, match="Content-Encoding 'br', which is not read here"):
        import_openapi(f"http://127.0.0.1:{server.port}/d.yaml", allow_private_network=LOCAL)


@pytest.mark.slow  # a server thread
def test_the_fetch_connects_to_the_address_that_was_checked(
    raw_server: Callable[..., _RawServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name that resolves public, then loopback, is fetched from the public address checked."""
    public = "93.184.215.14"
    answers: list[str] = []
    real_resolve, real_connect = socket.getaddrinfo, socket.create_connection

    def resolve(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "rebind.test":
            return real_resolve(host, port, *args, **kwargs)
        answers.append(public if not answers else "127.0.0.1")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answers[-1], port))]

    connected: list[str] = []

    def connect(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        connected.append(address[0])
        if address[0] == public:  # stands in for the internet: nothing is sent out
            raise ConnectionRefusedError("refused by the test")
        return real_connect(address, *args, **kwargs)

    def document(sock: socket.socket, stop: threading.Event) -> None:
        sock.sendall(_HEADERS + HEAD.encode() + b"paths: {}\n")

    server = raw_server(document)
    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    monkeypatch.setattr(socket, "create_connection", connect)
    with pytest.raises(OpenAPIError, match="cannot fetch the document"):
        import_openapi(f"http://rebind.test:{server.port}/doc.yaml")
    assert connected == [public]
    assert server.connections == 0
