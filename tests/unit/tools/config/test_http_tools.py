"""HTTP tools from configuration against a real server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from forge.core.errors import ToolDefinitionError, ToolValidationError
from forge.tools import ToolRegistry
from forge.tools.config import HandlerRegistry, build_tool, load_tools

LOCAL = ["127.0.0.1"]


def http_tool(
    impl: dict[str, Any], properties: dict[str, Any] | None = None, allow: Any = LOCAL
) -> ToolRegistry:
    """Build a one-tool registry from an http implementation."""
    definition = {
        "name": "call_api",
        "description": "Call the test API.",
        "type": "function",
        "handler": "call_api",
        "parameters": {"type": "object", "properties": properties or {}},
        "implementation": {"type": "http", **impl},
    }
    tool = build_tool(
        definition,
        builtins=HandlerRegistry("builtin"),
        internal=HandlerRegistry("internal"),
        allow_private_network=allow,
    )
    return ToolRegistry([tool])


STRING = {"type": "string"}


def test_url_template_and_query_mapping(http_server: str) -> None:
    """Path placeholders are URL-quoted and the other arguments of a GET become the query."""
    registry = http_tool(
        {"url": http_server + "/users/{user_id}/posts"},
        {"user_id": STRING, "tag": STRING, "limit": {"type": "integer"}},
    )
    result = registry.execute("call_api", {"user_id": "a b/c", "tag": "x", "limit": 3})
    assert result.success, result.error
    assert result.output["path"] == "/users/a%20b%2Fc/posts"
    assert result.output["query"] == {"tag": ["x"], "limit": ["3"]}
    assert result.metadata["status"] == 200


def test_explicit_query_and_body_mapping(http_server: str) -> None:
    """A query map renames parameters and a body list sends the others as JSON."""
    registry = http_tool(
        {"method": "POST", "url": http_server + "/items", "query": {"q": "term"},
         "body": ["title", "count"]},
        {"term": STRING, "title": STRING, "count": {"type": "integer"}},
    )  # fmt: skip
    result = registry.execute("call_api", {"term": "t", "title": "hi", "count": 2})
    assert result.output["method"] == "POST"
    assert result.output["query"] == {"q": ["t"]}
    assert result.output["body"] == {"title": "hi", "count": 2}


def test_post_sends_remaining_arguments_as_json_body(http_server: str) -> None:
    """Without a mapping, a POST sends every non-path argument in the JSON body."""
    registry = http_tool(
        {"method": "post", "url": http_server + "/things/{kind}"},
        {"kind": STRING, "name": STRING, "tags": {"type": "array"}},
    )
    out = registry.execute("call_api", {"kind": "k", "name": "n", "tags": ["a"]}).output
    assert out["path"] == "/things/k"
    assert out["body"] == {"name": "n", "tags": ["a"]}


def test_headers_come_from_the_environment(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """${VAR} in a header is read from the environment at call time."""
    monkeypatch.setenv("FORGE_TEST_TOKEN", "s3cret")
    registry = http_tool(
        {"url": http_server + "/h", "headers": {"Authorization": "Bearer ${FORGE_TEST_TOKEN}",
                                                "Accept": "application/json"}},
    )  # fmt: skip
    headers = registry.execute("call_api", {}).output["headers"]
    assert headers["authorization"] == "Bearer s3cret"
    assert headers["accept"] == "application/json"


def test_missing_environment_variable_is_an_error_result(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A header variable that is not set fails the call, naming the variable."""
    monkeypatch.delenv("FORGE_TEST_ABSENT", raising=False)
    registry = http_tool(
        {"url": http_server + "/h", "headers": {"X-Api-Key": "${FORGE_TEST_ABSENT}"}}
    )
    result = registry.execute("call_api", {})
    assert not result.success
    assert "FORGE_TEST_ABSENT" in (result.error or "")


def test_literal_secret_header_is_rejected() -> None:
    """A secret-looking header with a literal value is refused at load time."""
    with pytest.raises(ToolDefinitionError, match="environment variables"):
        http_tool({"url": "https://api.example.com/", "headers": {"Authorization": "Bearer abc"}})


def test_timeout_is_an_error_result(http_server: str) -> None:
    """A server slower than the timeout gives a timeout result."""
    registry = http_tool({"url": http_server + "/slow", "timeout": 0.3})
    result = registry.execute("call_api", {})
    assert not result.success
    assert result.error_kind == "timeout"
    assert "timed out" in (result.error or "")


def test_response_over_the_size_limit(http_server: str) -> None:
    """A response larger than max_response_bytes is refused."""
    registry = http_tool({"url": http_server + "/big", "max_response_bytes": 1000})
    result = registry.execute("call_api", {})
    assert not result.success
    assert "1000 byte limit" in (result.error or "")


def test_text_response(http_server: str) -> None:
    """A non-JSON response comes back as text."""
    assert http_tool({"url": http_server + "/text"}).execute("call_api", {}).output == "plain café"


@pytest.mark.parametrize(("code", "retry"), [(404, "will not help"), (503, "may help")])
def test_non_2xx_is_an_error_result(http_server: str, code: int, retry: str) -> None:
    """A non-2xx status is a failed result with the status and the body excerpt."""
    result = http_tool({"url": http_server + f"/status/{code}"}).execute("call_api", {})
    assert not result.success
    assert f"HTTP {code}" in (result.error or "")
    assert f"status {code}" in (result.error or "")
    assert retry in (result.error or "")
    assert result.metadata["status"] == code


def test_redirect_within_allowed_targets_is_followed(http_server: str) -> None:
    """A redirect to an allowed address is followed (303 turns a POST into a GET)."""
    registry = http_tool(
        {"method": "POST", "url": http_server + "/redirect",
         "query": {"to": "to", "code": "code"}},
        {"to": STRING, "code": STRING},
    )  # fmt: skip
    result = registry.execute("call_api", {"to": http_server + "/landed", "code": "303"})
    assert result.success, result.error
    assert result.output["path"] == "/landed"
    assert result.output["method"] == "GET"


@pytest.mark.parametrize(
    "target",
    ["http://127.0.0.2:9/x", "http://169.254.169.254/latest/meta-data", "http://10.1.2.3/"],
)
def test_redirect_to_a_private_target_is_refused(http_server: str, target: str) -> None:
    """A redirect to a loopback, link-local or private address not allowed is refused."""
    registry = http_tool(
        {"url": http_server + "/redirect", "query": ["to"]}, {"to": STRING}, allow=LOCAL
    )
    result = registry.execute("call_api", {"to": target})
    assert not result.success
    assert result.error_kind == "denied"
    assert "refused to connect" in (result.error or "")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1:{port}/x", "loopback"),
        ("http://localhost:{port}/x", "loopback"),
        ("http://[::1]:{port}/x", "loopback"),
        ("http://10.0.0.7/x", "private"),
        ("http://192.168.1.1/x", "private"),
        ("http://169.254.169.254/x", "link-local"),
        ("http://0.0.0.0:{port}/x", "unspecified"),
    ],
)
def test_private_targets_refused_by_default(http_server: str, url: str, reason: str) -> None:
    """Without permission, loopback, private and link-local targets are refused after DNS."""
    port = http_server.rsplit(":", 1)[1]
    registry = http_tool({"url": url.format(port=port)}, allow=False)
    result = registry.execute("call_api", {})
    assert not result.success
    assert result.error_kind == "denied"
    article = "an" if reason[0] in "aeiou" else "a"
    assert f"{article} {reason} address" in (result.error or "")


def test_placeholder_in_host_is_rejected() -> None:
    """The model's arguments may not choose the host."""
    with pytest.raises(ToolDefinitionError, match="placeholder in its host"):
        http_tool({"url": "http://{host}/x"}, {"host": STRING})


@pytest.mark.parametrize(
    ("impl", "match"),
    [
        ({"url": "ftp://x/"}, "http:// or https://"),
        ({"url": "http://x/{nope}"}, "not a parameter"),
        ({"url": "http://x/", "method": "TRACE"}, "is not one of"),
        ({"url": "http://x/", "timeout": 0}, "positive number"),
        ({"url": "http://x/", "query": ["absent"]}, "not a parameter"),
        ({"url": "http://x/", "body": 3}, "list of parameter names"),
        ({"url": "http://x/", "verb": "GET"}, "unknown http implementation key"),
        ({}, "needs a 'url'"),
    ],
)
def test_invalid_http_definitions(impl: dict[str, Any], match: str) -> None:
    """Bad http implementations are rejected with a reason."""
    with pytest.raises(ToolDefinitionError, match=match):
        http_tool(impl)


def test_every_problem_of_an_http_implementation_is_reported_at_once() -> None:
    """Several mistakes in one http implementation are all named in one error."""
    with pytest.raises(ToolDefinitionError) as info:
        http_tool({
            "method": "TRACE", "url": "http://x/{nope}", "verb": "GET",
            "headers": {"X-Api-Key": "literal"}, "body": ["absent"], "timeout": -1,
        })  # fmt: skip
    for part in ["unknown http implementation key(s) ['verb']", "'TRACE' is not one of",
                 "{nope} is not a parameter", "environment variables", "maps 'absent'",
                 "'timeout' must be a positive number"]:  # fmt: skip
        assert part in info.value.message


def test_http_tool_from_a_file(http_server: str, tmp_path: Path) -> None:
    """An http tool loaded from a JSON file runs through the registry."""
    path = tmp_path / "api.json"
    path.write_text(json.dumps([{
        "name": "lookup", "description": "Look up an item.", "type": "function",
        "handler": "lookup", "parameters": {"type": "object", "properties": {"id": STRING},
                                            "required": ["id"]},
        "implementation": {"type": "http", "url": http_server + "/items/{id}"},
    }]))  # fmt: skip
    report = load_tools(path, allow_private_network=True)
    assert report.ok
    assert report.registry.execute("lookup", {"id": "7"}).output["path"] == "/items/7"


def test_network_policy_values() -> None:
    """The policy accepts booleans, one address, networks, and rejects junk with a reason."""
    import ipaddress

    from forge.tools.config._network import NetworkPolicy

    assert NetworkPolicy.coerce(True).allow_all
    single = NetworkPolicy.coerce("10.0.0.5")
    assert single.allows(ipaddress.ip_address("10.0.0.5"))
    assert not single.allows(ipaddress.ip_address("10.0.0.6"))
    assert NetworkPolicy.coerce(single) is single
    with pytest.raises(ToolDefinitionError, match="invalid allow_private_network"):
        http_tool({"url": "http://x/"}, allow=["not an address"])


def test_public_addresses_are_not_refused() -> None:
    """Public addresses pass the check; reserved and IPv4-mapped loopback do not."""
    import ipaddress

    from forge.tools.config._network import address_refusal

    assert address_refusal(ipaddress.ip_address("93.184.216.34")) is None
    assert address_refusal(ipaddress.ip_address("::ffff:127.0.0.1")) == "loopback"
    assert address_refusal(ipaddress.ip_address("100.64.0.1")) == "reserved"
    assert address_refusal(ipaddress.ip_address("fe80::1")) == "link-local"
    assert address_refusal(ipaddress.ip_address("224.0.0.1")) == "multicast"


def test_server_from_the_environment(http_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """${VAR} chooses the server; braces in its value are not read as placeholders."""
    monkeypatch.setenv("FORGE_TEST_BASE", http_server + "/v{1}")
    registry = http_tool({"url": "${FORGE_TEST_BASE}/items/{id}"}, {"id": STRING})
    assert registry.execute("call_api", {"id": "7"}).output["path"] == "/v%7B1%7D/items/7"
    monkeypatch.delenv("FORGE_TEST_BASE")
    failed = registry.execute("call_api", {"id": "7"})
    assert not failed.success
    assert "FORGE_TEST_BASE" in (failed.error or "")


def test_each_resolved_address_is_tried(http_server: str) -> None:
    """A name with several addresses (localhost: ::1 and 127.0.0.1) reaches the one listening."""
    port = http_server.rsplit(":", 1)[1]
    registry = http_tool({"url": f"http://localhost:{port}/hello"}, allow=True)
    result = registry.execute("call_api", {})
    assert result.success, result.error
    assert result.output["headers"]["host"] == f"localhost:{port}"


@pytest.mark.parametrize("code", ["301", "302", "303", "307", "308"])
def test_credentials_are_dropped_on_a_cross_origin_redirect(
    http_server: str, other_http_server: str, monkeypatch: pytest.MonkeyPatch, code: str
) -> None:
    """Another origin (here another port) never gets the configured credentials."""
    monkeypatch.setenv("FORGE_TEST_TOKEN", "s3cret-token")
    monkeypatch.setenv("FORGE_TEST_PASSWORD", "pw-s3cret")
    base = http_server.replace("http://", "http://user:${FORGE_TEST_PASSWORD}@")
    registry = http_tool(
        {"method": "POST", "url": base + "/redirect", "query": {"to": "to", "code": "code"},
         "body": ["note"],
         "headers": {"Authorization": "Bearer ${FORGE_TEST_TOKEN}",
                     "Cookie": "s=${FORGE_TEST_TOKEN}", "X-Api-Key": "${FORGE_TEST_TOKEN}",
                     "Accept": "application/json"}},
        {"to": STRING, "code": STRING, "note": STRING},
    )  # fmt: skip
    result = registry.execute(
        "call_api", {"to": other_http_server + "/landed", "code": code, "note": "n"}
    )
    assert result.success, result.error
    seen = result.output
    assert seen["path"] == "/landed"
    for header in ("authorization", "cookie", "x-api-key"):
        assert header not in seen["headers"]
    assert "s3cret" not in json.dumps(seen)
    assert seen["headers"]["accept"] == "application/json"
    # 307 and 308 keep the method and body (RFC 9110 15.4), as requests does.
    assert seen["method"] == ("POST" if code in ("307", "308") else "GET")
    assert seen["body"] == ({"note": "n"} if code in ("307", "308") else None)


def test_credentials_are_kept_on_a_same_origin_redirect(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A redirect within the origin keeps the headers, the method and the body (307)."""
    monkeypatch.setenv("FORGE_TEST_TOKEN", "s3cret-token")
    registry = http_tool(
        {"method": "POST", "url": http_server + "/redirect", "query": {"to": "to", "code": "code"},
         "body": ["note"], "headers": {"Authorization": "Bearer ${FORGE_TEST_TOKEN}"}},
        {"to": STRING, "code": STRING, "note": STRING},
    )  # fmt: skip
    result = registry.execute("call_api", {"to": "/landed", "code": "307", "note": "n"})
    assert result.success, result.error
    assert result.output["headers"]["authorization"] == "Bearer s3cret-token"
    assert result.output["method"] == "POST"
    assert result.output["body"] == {"note": "n"}


def test_configured_query_string_is_kept(http_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The url's own query, with ${VAR} and {param} filled in, is merged with the arguments."""
    monkeypatch.setenv("FORGE_TEST_KEY", "k&1 #x")
    registry = http_tool(
        {"url": http_server + "/fixed?format=json&appid=${FORGE_TEST_KEY}&city={city}"},
        {"city": STRING, "units": STRING},
    )
    result = registry.execute("call_api", {"city": "São Paulo&x=1", "units": "metric"})
    assert result.success, result.error
    assert result.output["path"] == "/fixed"
    assert result.output["query"] == {
        "format": ["json"], "appid": ["k&1 #x"], "city": ["São Paulo&x=1"], "units": ["metric"],
    }  # fmt: skip


@pytest.mark.parametrize("value", ["..", ".", "%2e%2e", "%2E", "../admin", "a/../../b", "/x"])
def test_a_path_parameter_stays_one_segment(http_server: str, value: str) -> None:
    """'.' and '..' are refused, naming the parameter; '/' and '%' are percent-encoded."""
    registry = http_tool({"url": http_server + "/users/{user_id}/posts"}, {"user_id": STRING})
    if value in ("..", "."):
        with pytest.raises(ToolValidationError, match=r"'user_id' .* path segment") as info:
            registry.execute("call_api", {"user_id": value})
        assert [e.path for e in info.value.errors] == ["user_id"]
    else:
        result = registry.execute("call_api", {"user_id": value})
        assert result.success, result.error
        path = result.output["path"]
        assert path.startswith("/users/")
        assert path.endswith("/posts")
        assert path.count("/") == 3, path


def test_path_parameters_cannot_join_into_a_dot_segment(http_server: str) -> None:
    """Two placeholders in one segment that together spell '..' are refused too."""
    registry = http_tool({"url": http_server + "/a/{x}{y}/b"}, {"x": STRING, "y": STRING})
    with pytest.raises(ToolValidationError) as info:
        registry.execute("call_api", {"x": ".", "y": "."})
    assert [e.path for e in info.value.errors] == ["x", "y"]
    assert "arguments 'x' and 'y'" in str(info.value)


def test_dots_in_the_query_are_plain_values(http_server: str) -> None:
    """Only the path is guarded: '..' as a query value is sent as it is."""
    registry = http_tool({"url": http_server + "/q?name={name}"}, {"name": STRING})
    result = registry.execute("call_api", {"name": ".."})
    assert result.success, result.error
    assert result.output["query"] == {"name": [".."]}


def test_a_bad_header_value_does_not_echo_the_secret(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token with a trailing newline fails without its value in the message."""
    monkeypatch.setenv("FORGE_TEST_TOKEN", "sk-very-secret-123\n")
    registry = http_tool(
        {"url": http_server + "/h", "headers": {"Authorization": "Bearer ${FORGE_TEST_TOKEN}"}}
    )
    result = registry.execute("call_api", {})
    assert not result.success
    assert "sk-very-secret" not in (result.error or "")
    assert "${FORGE_TEST_TOKEN}" in (result.error or "")


def test_environment_values_in_the_url_are_redacted_from_errors(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """${VAR} values in the path and the userinfo never appear in an HTTP error."""
    monkeypatch.setenv("FORGE_TEST_SEGMENT", "tenant-s3cret/é x")
    monkeypatch.setenv("FORGE_TEST_PASSWORD", "pw-s3cret")
    base = http_server.replace("http://", "http://user:${FORGE_TEST_PASSWORD}@")
    registry = http_tool({"url": base + "/status/${FORGE_TEST_SEGMENT}/400"})
    result = registry.execute("call_api", {})
    assert not result.success
    assert result.metadata["status"] == 400
    error = result.error or ""
    assert "returned HTTP 400" in error
    assert "s3cret" not in error
    assert "${FORGE_TEST_SEGMENT}" in error


def test_an_invalid_server_from_the_environment_is_a_redacted_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server variable httpx cannot parse fails the call, naming the variable, not its value."""
    monkeypatch.setenv("FORGE_TEST_HOST", "secret-host\x01.example")
    result = http_tool({"url": "http://${FORGE_TEST_HOST}/x"}).execute("call_api", {})
    assert not result.success
    assert "InvalidURL" in (result.error or "")
    assert "secret-host" not in (result.error or "")
    assert "${FORGE_TEST_HOST}" in (result.error or "")


def test_an_unresolvable_host_names_it_and_says_the_tool_needs_the_network() -> None:
    """A name that does not resolve is a clear, retryable message, not a raw ``gaierror``."""
    result = http_tool({"url": "http://api.nowhere.invalid/x"}).execute("call_api", {})
    assert not result.success
    error = result.error or ""
    assert "api.nowhere.invalid could not be reached (its name did not resolve)" in error
    assert "needs network access" in error
    assert "the url in the tool's configuration" in error
    assert "gaierror" not in error
    assert result.metadata["retryable"] is True


def test_a_closed_port_names_the_host() -> None:
    """Every address refusing the connection reads the same way as an unresolvable name."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = http_tool({"url": f"http://127.0.0.1:{port}/x"}).execute("call_api", {})
    error = result.error or ""
    assert "127.0.0.1 could not be reached (no connection to its address)" in error
    assert "ConnectError" not in error


def test_an_unreachable_host_from_the_environment_is_named_by_its_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The message says which variable sets the address, and never shows the value."""
    monkeypatch.setenv("FORGE_TEST_BASE", "http://private-s3cret.invalid")
    result = http_tool({"url": "${FORGE_TEST_BASE}/x"}).execute("call_api", {})
    error = result.error or ""
    assert "the host set by ${FORGE_TEST_BASE} could not be reached" in error
    assert "the environment variable FORGE_TEST_BASE sets its address" in error
    assert "s3cret" not in error


def test_the_bundled_exchange_rate_offline_says_how_to_point_it_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The example's http tool, its server unreachable, names the variable that moves it."""
    from forge.examples import example_registry

    monkeypatch.setenv("FORGE_EXAMPLES_HTTP_BASE", "http://rates.invalid")
    result = example_registry().execute("exchange_rate", {"base": "EUR", "symbols": "USD"})
    error = result.error or ""
    assert "could not be reached" in error
    assert "FORGE_EXAMPLES_HTTP_BASE sets its address" in error
