"""OpenAPI documents to HTTP tool definitions: names, schemas, security, filters, errors."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forge.core.errors import DuplicateToolError
from forge.tools import ToolRegistry
from forge.tools.config.openapi import OpenAPIError, import_openapi
from forge.tools.config.openapi._security import env_name
from forge.tools.schema import is_valid_name
from tests.conftest import corpus

BASE = "https://api.example.com/v1"


def doc(paths: dict[str, Any], version: str = "3.0.3", **extra: Any) -> dict[str, Any]:
    """A minimal valid document around ``paths``."""
    return {"openapi": version, "info": {"title": "Test API", "version": "1"},
            "servers": [{"url": BASE}], "paths": paths, **extra}  # fmt: skip


def op(**fields: Any) -> dict[str, Any]:
    """An operation with a response (required by OpenAPI)."""
    return {"responses": {"200": {"description": "OK"}}, **fields}


def only(result: Any) -> dict[str, Any]:
    """The one definition of an import."""
    assert len(result.definitions) == 1, result.skipped
    definition: dict[str, Any] = result.definitions[0]
    return definition


def test_vendored_files_match_their_checksums() -> None:
    """The vendored documents are the upstream files, byte for byte (SHA256SUMS)."""
    folder = corpus("openapi")
    lines = (folder / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 5
    for line in lines:
        digest, name = line.split()
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name


def test_petstore_30_operations_become_tools() -> None:
    """Each operation id is a tool name; the octet-stream upload is skipped with its reason."""
    result = import_openapi(corpus("openapi", "swagger-petstore", "petstore-3.0.yaml"),
                            base_url=BASE)  # fmt: skip
    names = [t.name for t in result.tools]
    assert len(names) == 18
    assert {"addPet", "getPetById", "findPetsByTags", "deleteUser"} <= set(names)
    assert result.total == result.selected == 19
    [skip] = result.skipped
    assert skip.operation == "POST /pet/{petId}/uploadImage (uploadFile)"
    assert "application/octet-stream" in skip.reason
    assert skip.where == "/paths/~1pet~1{petId}~1uploadImage/post"
    pet = result.tools[names.index("getPetById")]
    assert pet.tags == ("pet",)
    assert pet.category.value == "api"
    assert pet.annotations.read_only is True
    assert pet.parameters["required"] == ["petId"]
    delete = result.tools[names.index("deletePet")]
    assert delete.annotations.destructive is True


def test_tictactoe_31_body_header_and_security() -> None:
    """3.1: a string body is one ``body`` argument, a header parameter is mapped, bearer auth."""
    result = import_openapi(corpus("openapi", "oai-learn", "tictactoe-3.1.yaml"), base_url=BASE,
                            env_prefix="Tic Tac Toe")  # fmt: skip
    put = next(d for d in result.definitions if d["name"] == "put-square")
    assert put["parameters"]["properties"]["body"]["enum"] == [".", "X", "O"]
    assert put["parameters"]["required"] == ["row", "column", "body"]
    impl = put["implementation"]
    assert impl["body"] == "body"
    assert impl["header_params"] == {"progressUrl": "progressUrl"}
    assert impl["url"] == BASE + "/board/{row}/{column}"
    assert impl["headers"] == {"Authorization": "Bearer ${TIC_TAC_TOE_BEARER_HTTP_AUTHENTICATION}"}
    board = next(d for d in result.definitions if d["name"] == "get-board")
    assert board["implementation"]["headers"] == {"api-key": "${TIC_TAC_TOE_DEFAULT_API_KEY}"}
    assert set(result.env) == {
        "TIC_TAC_TOE_DEFAULT_API_KEY", "TIC_TAC_TOE_BEARER_HTTP_AUTHENTICATION"
    }  # fmt: skip


def test_petstore_31_with_a_null_ref_is_refused_naming_the_place() -> None:
    """The upstream 3.1 Petstore's unquoted ``$ref: #/...`` (a YAML comment) is named."""
    with pytest.raises(OpenAPIError) as caught:
        import_openapi(corpus("openapi", "swagger-petstore", "petstore-3.1.yaml"))
    assert caught.value.path == "/components/schemas/Pet/properties/petDetails/$ref"
    assert "quote a ref" in caught.value.reason


def test_schema_rewrites_for_requests() -> None:
    """Refs inlined, nullable, allOf merged, readOnly dropped, enums, defaults and formats kept."""
    components = {"schemas": {
        "Base": {"type": "object", "required": ["id", "name"], "properties": {
            "id": {"type": "integer", "readOnly": True},
            "name": {"type": "string", "nullable": True, "x-internal": 1},
        }},
        "Pet": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"type": "object", "properties": {
            "kind": {"type": "string", "enum": ["cat", "dog"], "default": "cat"},
            "born": {"type": "string", "format": "date"},
            "score": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            "note": {"nullable": True, "enum": ["a"]},
        }}]},
    }}  # fmt: skip
    body = {"required": True, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Pet"}}}}  # fmt: skip
    definition = only(import_openapi(doc(
        {"/pets": {"post": op(operationId="addPet", requestBody=body)}}, components=components
    )))  # fmt: skip
    props = definition["parameters"]["properties"]
    assert "id" not in props
    assert props["name"] == {"type": ["string", "null"]}
    assert props["kind"] == {"type": "string", "enum": ["cat", "dog"], "default": "cat"}
    assert props["born"]["format"] == "date"
    assert props["score"] == {"type": "number", "exclusiveMinimum": 0}
    assert props["note"]["enum"] == ["a", None]
    assert definition["parameters"]["required"] == ["name"]
    assert definition["implementation"]["body"] == {k: k for k in ("name", "kind", "born",
                                                                   "score", "note")}  # fmt: skip


def test_31_type_arrays_oneof_and_recursion() -> None:
    """3.1 type arrays stay; oneOf bodies are one argument; a recursive ref stops expanding."""
    components = {"schemas": {"Node": {"type": "object", "properties": {
        "label": {"type": ["string", "null"]},
        "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
    }}}}  # fmt: skip
    body = {"content": {"application/json": {"schema": {"oneOf": [
        {"$ref": "#/components/schemas/Node"}, {"type": "string"}]}}}}  # fmt: skip
    definition = only(import_openapi(doc(
        {"/tree": {"put": op(operationId="putTree", requestBody=body)}}, "3.1.0",
        components=components,
    )))  # fmt: skip
    schema = definition["parameters"]["properties"]["body"]
    node = schema["oneOf"][0]
    assert node["properties"]["label"] == {"type": ["string", "null"]}
    assert "recursive" in node["properties"]["children"]["items"]["description"]
    assert "required" not in definition["parameters"]


def test_parameters_colliding_with_body_properties_are_renamed() -> None:
    """A body property named like a parameter becomes ``body_<name>``; wire names are kept."""
    body = {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["id"],
                    "properties": {"id": {"type": "string"}},
                }
            }
        },
    }
    parameters = [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
        {"name": "id", "in": "query", "schema": {"type": "string"}},
        {"name": "X-Trace.Id", "in": "header", "schema": {"type": "string"}},
        {"name": "sess", "in": "cookie", "schema": {"type": "string"}},
        {"name": "Accept", "in": "header", "schema": {"type": "string"}},
    ]  # fmt: skip
    definition = only(import_openapi(doc({"/items/{id}": {
        "parameters": parameters[:1], "patch": op(parameters=parameters[1:], requestBody=body)
    }})))  # fmt: skip
    props = definition["parameters"]["properties"]
    assert list(props) == ["id", "query_id", "X-Trace_Id", "sess", "body_id"]
    assert definition["parameters"]["required"] == ["id", "body_id"]
    impl = definition["implementation"]
    assert impl["url"] == BASE + "/items/{id}"
    assert impl["query"] == {"id": "query_id"}
    assert impl["header_params"] == {"X-Trace.Id": "X-Trace_Id"}
    assert impl["cookie_params"] == {"sess": "sess"}
    assert impl["body"] == {"id": "body_id"}
    assert definition["name"] == "patch_items_id"


def test_missing_and_duplicate_operation_ids() -> None:
    """Without an id the name is method and path; a taken name gets ``_2``, with a warning."""
    result = import_openapi(doc({
        "/a b/{x}": {"get": op(), "parameters": [
            {"name": "x", "in": "path", "required": True, "schema": {"type": "string"}}]},
        "/one": {"get": op(operationId="same")},
        "/two": {"get": op(operationId="same")},
        "/3": {"get": op(operationId="3rd.op")},
    }))  # fmt: skip
    assert [t.name for t in result.tools] == ["get_a_b_x", "same", "same_2", "op_3rd_op"]
    assert any("'same' is taken" in w for w in result.warnings)
    assert result.tools[0].description == "GET /a b/{x}."


def test_security_schemes_read_environment_variables() -> None:
    """apiKey in header, query and cookie, bearer, basic and oauth2 each read one variable."""
    schemes = {
        "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
        "q": {"type": "apiKey", "in": "query", "name": "token"},
        "c": {"type": "apiKey", "in": "cookie", "name": "sid"},
        "bearer": {"type": "http", "scheme": "bearer"},
        "basicAuth": {"type": "http", "scheme": "Basic"},
        "oauth": {"type": "oauth2", "flows": {"clientCredentials": {
            "tokenUrl": "https://x/token", "scopes": {}}}},
        "digest": {"type": "http", "scheme": "digest"},
    }  # fmt: skip
    paths = {f"/{n}": {"get": op(operationId=n, security=[{n: []}])} for n in schemes}
    paths["/both"] = {"get": op(operationId="both", security=[{"key": [], "q": []}])}
    paths["/open"] = {"get": op(operationId="open", security=[{}, {"key": []}])}
    result = import_openapi(
        doc(paths, components={"securitySchemes": schemes}), env_prefix="acme",
        security_env={"bearer": "MY_TOKEN"},
    )  # fmt: skip
    impl = {d["name"]: d["implementation"] for d in result.definitions}
    assert impl["key"]["headers"] == {"X-Key": "${ACME_KEY}"}
    assert impl["q"]["url"] == BASE + "/q?token=${ACME_Q}"
    assert impl["c"]["headers"] == {"Cookie": "sid=${ACME_C}"}
    assert impl["bearer"]["headers"] == {"Authorization": "Bearer ${MY_TOKEN}"}
    assert impl["basicAuth"]["headers"] == {"Authorization": "Basic ${ACME_BASIC_AUTH}"}
    assert impl["oauth"]["headers"] == {"Authorization": "Bearer ${ACME_OAUTH}"}
    assert impl["both"]["headers"] == {"X-Key": "${ACME_KEY}"}
    assert "headers" not in impl["open"]
    [skip] = result.skipped
    assert skip.operation == "GET /digest (digest)"
    assert "'digest'" in skip.reason


def test_filters_by_operation_id_and_tag() -> None:
    """include/exclude match operation ids, tool names and tags; tags= keeps tagged ones."""
    source = corpus("openapi", "swagger-petstore", "petstore-3.0.yaml")
    assert {t.name for t in import_openapi(source, base_url=BASE, include=["getPetById",
                                                                           "user"]).tools} == {
        "getPetById", "createUser", "createUsersWithListInput", "loginUser", "logoutUser",
        "getUserByName", "updateUser", "deleteUser",
    }  # fmt: skip
    stores = import_openapi(source, base_url=BASE, tags=["store"], exclude=["deleteOrder"])
    assert [t.name for t in stores.tools] == ["getInventory", "placeOrder", "getOrderById"]
    assert (stores.selected, stores.total) == (3, 19)


def test_server_variables_and_relative_servers() -> None:
    """Server variables take their defaults; a relative server needs base_url."""
    servers = [
        {
            "url": "https://{region}.example.com/{v}",
            "variables": {"region": {"default": "eu"}, "v": {"default": "v2"}},
        }
    ]
    definition = only(import_openapi(doc({"/x": {"get": op(operationId="x")}}, servers=servers)))
    assert definition["implementation"]["url"] == "https://eu.example.com/v2/x"
    relative = doc({"/x": {"get": op(operationId="x")}}, servers=[{"url": "/api"}])
    with pytest.raises(OpenAPIError, match="not absolute; pass base_url") as caught:
        import_openapi(relative)
    assert caught.value.path == "/servers/0"
    definition = only(import_openapi(relative, base_url="${API_BASE}"))
    assert definition["implementation"]["url"] == "${API_BASE}/x"


def test_invalid_documents_are_refused_with_their_place(tmp_path: Path) -> None:
    """Structure errors, outside refs, Swagger 2 and unreadable files each name the problem."""
    bad = doc({"/x": {"get": {"responses": {"200": {"description": 5}}}}})
    with pytest.raises(OpenAPIError) as caught:
        import_openapi(bad)
    assert caught.value.path == "/paths/~1x/get/responses/200"
    assert '{"description":5} is not valid under any of the schemas' in caught.value.reason
    remote = doc({"/x": {"get": op(parameters=[{"$ref": "other.yaml#/p"}])}})
    with pytest.raises(OpenAPIError, match="points outside the document") as caught:
        import_openapi(remote)
    assert caught.value.path == "/paths/~1x/get/parameters/0/$ref"
    with pytest.raises(OpenAPIError, match=r"Swagger 2\.0 is not supported"):
        import_openapi({"swagger": "2.0", "info": {}, "paths": {}})
    with pytest.raises(OpenAPIError, match="file not found"):
        import_openapi(tmp_path / "absent.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("openapi: [3.0\n")
    with pytest.raises(OpenAPIError, match="invalid YAML"):
        import_openapi(broken)
    dangling = doc({"/x": {"get": op(operationId="x", parameters=[
        {"$ref": "#/components/parameters/nope"}])}})  # fmt: skip
    result = import_openapi(dangling)
    assert "does not resolve" in result.skipped[0].reason


def test_json_document_and_registry(tmp_path: Path) -> None:
    """A JSON file works as YAML does; tools go into a registry, all or none."""
    import json

    path = tmp_path / "api.json"
    path.write_text(json.dumps(doc({"/x": {"get": op(operationId="x", deprecated=True)}})))
    registry = ToolRegistry()
    result = import_openapi(path, registry=registry)
    assert registry.get_or_raise("x").metadata.deprecated is True
    assert result.tools[0] is registry.get_or_raise("x")
    with pytest.raises(DuplicateToolError):
        import_openapi(path, registry=registry)


@given(st.text(max_size=80), st.sampled_from(["get", "post"]), st.text(max_size=40))
def test_tool_names_are_always_valid(operation_id: str, method: str, path: str) -> None:
    """Whatever the operation id or path, the tool name is one every provider accepts."""
    from forge.tools.config.openapi import _base_name
    from forge.tools.config.openapi._operations import Operation

    spec = {"operationId": operation_id} if operation_id else {}
    name = _base_name(Operation(method, "/" + path, spec, {}))
    assert is_valid_name(name), name


@given(st.text(max_size=30), st.text(min_size=1, max_size=30))
def test_env_names_are_always_variable_names(prefix: str, scheme: str) -> None:
    """Environment variable names are upper snake case identifiers."""
    name = env_name(prefix, scheme)
    assert name.isidentifier()
    assert name == name.upper()


def test_readme_example(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The configuration guide's OpenAPI example runs as written (from the repository root)."""
    import re

    root = Path(__file__).resolve().parents[5]
    page = root / "docs" / "guides" / "configuration.md"
    text = page.read_text(encoding="utf-8")
    found = re.search(r"<!-- openapi-example -->\n```python\n(.*?)\n```", text, re.DOTALL)
    assert found is not None
    monkeypatch.chdir(root)
    exec(compile(found.group(1), str(page), "exec", dont_inherit=True), {})
    printed = capsys.readouterr().out
    assert printed.startswith("11 ('PETSTORE_PETSTORE_AUTH', 'PETSTORE_API_KEY') [")
    assert "uploadFile" in printed


@pytest.mark.parametrize(
    ("impl", "match"),
    [
        ({"body": "absent"}, r"^http 'body' names 'absent', not a parameter \(tool 't'\)$"),
        ({"header_params": {"X-A": "absent"}}, "http 'header_params' maps 'absent'"),
        ({"cookie_params": 3}, "'cookie_params' must be a list of parameter names"),
        ({"body": 3}, "or one parameter's name: its value is the whole body"),
    ],
)
def test_http_keys_the_import_writes_are_checked(impl: dict[str, Any], match: str) -> None:
    """The http keys the import relies on are checked when a file is loaded, one message each."""
    from forge.core.errors import ToolDefinitionError
    from forge.tools.config import HandlerRegistry, build_tool

    definition = {
        "name": "t", "description": "T.", "parameters": {"type": "object", "properties": {}},
        "implementation": {"type": "http", "url": BASE, **impl},
    }  # fmt: skip
    with pytest.raises(ToolDefinitionError, match=match):
        build_tool(definition, builtins=HandlerRegistry("b"), internal=HandlerRegistry("i"))


def test_a_credential_header_replaces_a_header_parameter_of_its_name() -> None:
    """A header parameter named like the apiKey header is left out: the credential is sent."""
    schemes = {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}
    parameters = [{"name": "x-key", "in": "header", "required": True, "schema": {"type": "string"}}]
    definition = only(import_openapi(doc(
        {"/x": {"get": op(operationId="x", parameters=parameters, security=[{"key": []}])}},
        components={"securitySchemes": schemes},
    ), env_prefix="A"))  # fmt: skip
    assert definition["parameters"] == {"type": "object", "properties": {}}
    assert definition["implementation"]["headers"] == {"X-Key": "${A_KEY}"}
    assert "header_params" not in definition["implementation"]
