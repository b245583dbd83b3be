"""Tools imported from the vendored OpenAPI documents call a real server on 127.0.0.1."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from forge.tools import ErrorKind, ToolRegistry, ToolValidationError
from forge.tools.config.openapi import OpenAPIError, OpenAPIImport, import_openapi
from tests.conftest import corpus

pytestmark = pytest.mark.slow  # a server thread, and the 1.2 MB document

LOCAL = ["127.0.0.1"]


def registry_for(result: OpenAPIImport) -> ToolRegistry:
    """A registry of an import's tools."""
    return ToolRegistry(list(result.tools))


@pytest.fixture(scope="module")
def openai_api(http_server: str) -> OpenAPIImport:
    """OpenAI's API description pointed at the echo server, imported once for the module."""
    return import_openapi(
        corpus("openapi", "openai", "openapi.yaml"), base_url=http_server + "/v1",
        env_prefix="OpenAI API", allow_private_network=LOCAL,
    )  # fmt: skip


@pytest.fixture
def petstore(http_server: str, monkeypatch: pytest.MonkeyPatch) -> ToolRegistry:
    """The Swagger Petstore 3.0 tools against the echo server, with both credentials set."""
    monkeypatch.setenv("PETSTORE_API_KEY", "k-123")
    monkeypatch.setenv("PETSTORE_PETSTORE_AUTH", "tok en")
    result = import_openapi(
        corpus("openapi", "swagger-petstore", "petstore-3.0.yaml"),
        base_url=http_server + "/api/v3", env_prefix="PETSTORE", allow_private_network=LOCAL,
    )  # fmt: skip
    return registry_for(result)


def seen(registry: ToolRegistry, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call a tool and return what the echo server received."""
    result = registry.execute(name, arguments)
    assert result.success, result.error
    output: dict[str, Any] = result.output
    return output


def test_path_parameter_and_api_key_header(petstore: ToolRegistry) -> None:
    """GET with the path parameter substituted and the apiKey header from the environment."""
    got = seen(petstore, "getPetById", {"petId": 7})
    assert (got["method"], got["path"]) == ("GET", "/api/v3/pet/7")
    assert got["headers"]["api_key"] == "k-123"
    assert got["body"] is None


def test_path_parameter_is_escaped(petstore: ToolRegistry) -> None:
    """A path argument with a space and a slash stays in its segment."""
    got = seen(petstore, "deleteUser", {"username": "a b/c"})
    assert (got["method"], got["path"]) == ("DELETE", "/api/v3/user/a%20b%2Fc")


def test_array_query_is_repeated(petstore: ToolRegistry) -> None:
    """An array query parameter is sent exploded (form style): ?tags=a&tags=b."""
    got = seen(petstore, "findPetsByTags", {"tags": ["a", "b"]})
    assert got["query"] == {"tags": ["a", "b"]}
    assert got["headers"]["authorization"] == "Bearer tok en"


def test_json_body_with_oauth_token(petstore: ToolRegistry) -> None:
    """A POST sends the body properties as JSON, with the OAuth2 token as a bearer token."""
    pet = {"name": "Rex", "photoUrls": ["u"], "status": "sold", "category": {"id": 1}}
    got = seen(petstore, "addPet", pet)
    assert (got["method"], got["path"]) == ("POST", "/api/v3/pet")
    assert got["body"] == pet
    assert got["headers"]["authorization"] == "Bearer tok en"
    assert got["headers"]["content-type"] == "application/json"


def test_header_parameter_and_query(petstore: ToolRegistry) -> None:
    """A header parameter comes from the arguments; query parameters from theirs."""
    got = seen(petstore, "deletePet", {"petId": 3, "api_key": "from-model"})
    assert got["headers"]["api_key"] == "from-model"
    got = seen(petstore, "updatePetWithForm", {"petId": 3, "name": "Tom"})
    assert (got["path"], got["query"]) == ("/api/v3/pet/3", {"name": ["Tom"]})


def test_bad_arguments_are_refused_before_the_request(petstore: ToolRegistry) -> None:
    """Arguments are checked against the imported schema (the enum, the required path id)."""
    with pytest.raises(ToolValidationError, match='"lost" is not one of'):
        petstore.execute("findPetsByStatus", {"status": "lost"})
    with pytest.raises(ToolValidationError, match="petId"):
        petstore.execute("getPetById", {})


def test_missing_credential_is_a_clear_failure(
    petstore: ToolRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without its variable the tool fails naming the variable, never sending the request."""
    monkeypatch.delenv("PETSTORE_API_KEY")
    result = petstore.execute("getPetById", {"petId": 1})
    assert not result.success
    assert "PETSTORE_API_KEY" in (result.error or "")


def test_localhost_needs_explicit_permission(http_server: str) -> None:
    """Without allow_private_network a loopback base URL is refused at call time."""
    result = import_openapi(
        corpus("openapi", "oai-learn", "petstore-3.0.yaml"), base_url=http_server
    )
    outcome = registry_for(result).execute("listPets", {"limit": 2})
    assert outcome.error_kind == ErrorKind.DENIED
    assert "loopback" in (outcome.error or "")


def test_tictactoe_31_string_body_and_basic_auth(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3.1: a string body is sent as JSON, with the progress header and a bearer token."""
    monkeypatch.setenv("TTT_BEARER", "jwt")
    result = import_openapi(
        corpus("openapi", "oai-learn", "tictactoe-3.1.yaml"), base_url=http_server,
        security_env={"bearerHttpAuthentication": "TTT_BEARER"}, allow_private_network=LOCAL,
    )  # fmt: skip
    got = seen(registry_for(result), "put-square",
               {"row": 1, "column": 3, "body": "X", "progressUrl": "https://p/1"})  # fmt: skip
    assert (got["method"], got["path"], got["body"]) == ("PUT", "/board/1/3", "X")
    assert got["headers"]["progressurl"] == "https://p/1"
    assert got["headers"]["authorization"] == "Bearer jwt"


def test_large_real_api_counts_every_operation(openai_api: OpenAPIImport) -> None:
    """OpenAI's API: 119 of 126 operations convert; the 7 others are listed with why."""
    assert (openai_api.total, len(openai_api.tools), len(openai_api.skipped)) == (126, 119, 7)
    reasons = sorted(s.reason for s in openai_api.skipped)
    assert sum("multipart/form-data" in r for r in reasons) == 6
    assert sum("style 'deepObject'" in r for r in reasons) == 1
    assert openai_api.env == ("OPENAI_API_API_KEY_AUTH",)
    assert any(w.startswith("OpenAPI check: ") for w in openai_api.warnings)


def test_large_real_api_calls_a_local_server(
    openai_api: OpenAPIImport, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its chat completion tool, pointed at the local server, sends the JSON body and the key."""
    monkeypatch.setenv("OPENAI_API_API_KEY_AUTH", "sk-test")
    registry = registry_for(openai_api)
    messages = [{"role": "user", "content": "hi"}]
    got = seen(registry, "createChatCompletion", {"model": "m", "messages": messages})
    assert (got["method"], got["path"]) == ("POST", "/v1/chat/completions")
    assert got["body"] == {"model": "m", "messages": messages}
    assert got["headers"]["authorization"] == "Bearer sk-test"
    got = seen(registry, "retrieveModel", {"model": "gpt-4o"})
    assert got["path"] == "/v1/models/gpt-4o"


def test_cookies_from_the_environment_and_the_arguments(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An apiKey cookie and a cookie parameter share one Cookie header; the query key is sent."""
    monkeypatch.setenv("SHOP_SID", "s1")
    monkeypatch.setenv("SHOP_QK", "q&1")
    schemes = {"sid": {"type": "apiKey", "in": "cookie", "name": "sid"},
               "qk": {"type": "apiKey", "in": "query", "name": "key"}}  # fmt: skip
    parameters = [{"name": "theme", "in": "cookie", "schema": {"type": "string"}}]
    document = {
        "openapi": "3.0.3", "info": {"title": "Shop", "version": "1"},
        "paths": {"/cart": {"get": {"operationId": "cart", "parameters": parameters,
                                    "security": [{"sid": [], "qk": []}],
                                    "responses": {"200": {"description": "OK"}}}}},
        "components": {"securitySchemes": schemes},
    }  # fmt: skip
    result = import_openapi(document, base_url=http_server, env_prefix="Shop",
                            allow_private_network=LOCAL)  # fmt: skip
    got = seen(registry_for(result), "cart", {"theme": "dark mode"})
    assert got["headers"]["cookie"] == "sid=s1; theme=dark%20mode"
    assert got["query"] == {"key": ["q&1"]}


@pytest.fixture(scope="module")
def spec_server() -> Iterator[str]:
    """The vendored documents served over HTTP on 127.0.0.1."""
    handler = functools.partial(_QuietFiles, directory=str(corpus("openapi")))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Keep test output quiet."""


def test_document_from_a_url(spec_server: str) -> None:
    """A document is read from a URL; a loopback one needs allow_private_network too."""
    url = spec_server + "/oai-learn/petstore-3.0.yaml"
    result = import_openapi(url, allow_private_network=LOCAL)
    assert [t.name for t in result.tools] == ["listPets", "createPets", "showPetById"]
    assert result.tools[0].metadata.extra["implementation"] == "http"
    with pytest.raises(OpenAPIError, match=r"resolves to the loopback address 127\.0\.0\.1"):
        import_openapi(url)
    with pytest.raises(OpenAPIError, match="returned HTTP 404"):
        import_openapi(spec_server + "/absent.yaml", allow_private_network=LOCAL)
    with pytest.raises(OpenAPIError, match="invalid YAML: mapping values are not allowed"):
        import_openapi(spec_server + "/README.md", allow_private_network=LOCAL)


def test_header_arguments_cannot_inject_headers(petstore: ToolRegistry) -> None:
    """A header argument with a line break or non-ASCII text is an invalid argument."""
    for value in ("x\r\nInjected: 1", "café"):
        with pytest.raises(ToolValidationError, match="must be printable ASCII") as caught:
            petstore.execute("deletePet", {"petId": 1, "api_key": value})
        assert caught.value.errors[0].path == "api_key"


def test_a_configured_header_wins_over_a_header_argument(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a hand-written file, an argument cannot replace a configured credential header."""
    from forge.tools.config import HandlerRegistry, build_tool

    monkeypatch.setenv("SHOP_KEY", "secret")
    definition = {
        "name": "t", "description": "T.",
        "parameters": {"type": "object", "properties": {"k": {"type": "string"},
                                                        "r": {"type": "string"}}},
        "implementation": {"type": "http", "url": http_server + "/x",
                           "headers": {"X-Key": "${SHOP_KEY}"},
                           "header_params": {"x-key": "k", "X-Request": "r"}},
    }  # fmt: skip
    tool = build_tool(definition, builtins=HandlerRegistry("b"), internal=HandlerRegistry("i"),
                      allow_private_network=LOCAL)  # fmt: skip
    got = seen(ToolRegistry([tool]), "t", {"k": "mine", "r": "7"})
    assert (got["headers"]["x-key"], got["headers"]["x-request"]) == ("secret", "7")
