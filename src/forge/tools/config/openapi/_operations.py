"""One OpenAPI operation to one ``http`` tool definition (the configuration file's shape).

The tool's parameters are the operation's path, query, header and cookie
parameters and its JSON request body: an object body's properties sit beside
the parameters (a property named like a parameter becomes ``body_<name>``),
any other body is one ``body`` argument. Names that are not valid property
names are rewritten (``user.id`` → ``user_id``) and mapped back to their wire
names in the request.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from forge.tools.config.openapi._errors import OpenAPIError, pointer
from forge.tools.config.openapi._schemas import SchemaConverter
from forge.tools.config.openapi._security import Auth, Unsupported, pick_auth

__all__ = ["Operation", "Settings", "operation_definition", "operations"]

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_SUPPORTED = {"get", "put", "post", "delete", "head", "patch"}
_IGNORED_HEADERS = {"accept", "content-type", "authorization"}
_NOT_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_JSON = re.compile(r"^(application/([\w.+-]*\+)?json|text/json|\*/\*)(;.*)?$", re.IGNORECASE)
MAX_DESCRIPTION = 1024


@dataclass(frozen=True, slots=True)
class Operation:
    """One operation of the document, with what it inherits from its path item."""

    method: str
    path: str
    spec: dict[str, Any]
    path_item: dict[str, Any]

    @property
    def where(self) -> str:
        """Its JSON pointer in the document: ``/paths/~1pets~1{petId}/get``."""
        return pointer(("paths", self.path, self.method))

    @property
    def label(self) -> str:
        """``GET /pets/{petId}``."""
        return f"{self.method.upper()} {self.path}"

    @property
    def tags(self) -> list[str]:
        """The operation's tags."""
        return [str(t) for t in self.spec.get("tags") or [] if isinstance(t, str | int)]


@dataclass(frozen=True, slots=True)
class Settings:
    """What every operation of one import shares."""

    converter: SchemaConverter
    base_url: str
    """The server of operations that name none (``base_url``, or the document's first)."""
    override_url: bool
    """Whether ``base_url`` was given by the caller (then operation servers are ignored)."""
    security: Any
    """The document's security requirements (an operation's own replace them)."""
    schemes: Mapping[str, Any]
    env_prefix: str | None
    """The caller's prefix of credential variables (``None``: only ``env_names``)."""
    env_names: Mapping[str, str]
    """The environment variable of a security scheme, by scheme name."""


def operations(document: Mapping[str, Any]) -> Iterator[Operation]:
    """Every operation under ``paths``, in document order."""
    for path, item in (document.get("paths") or {}).items():
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            if isinstance(item.get(method), dict):
                yield Operation(method, str(path), item[method], item)


def operation_definition(
    op: Operation, name: str, settings: Settings
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The ``http`` tool definition of ``op`` named ``name``, and the security schemes
    it uses that have no variable (it is sent without their credentials).

    Raises:
        Unsupported: The operation cannot be sent by an HTTP tool (the message says why).
        OpenAPIError: A ref in it does not resolve.
    """
    if op.method not in _SUPPORTED:
        raise Unsupported(f"the method {op.method.upper()} is not supported by HTTP tools")
    security = op.spec.get("security", settings.security)
    auth = pick_auth(
        security, settings.schemes, prefix=settings.env_prefix, names=settings.env_names
    )
    request = _Request(settings.converter)
    for parameter in _parameters(op, settings.converter):
        request.add_parameter(parameter)
    body = op.spec.get("requestBody")
    if body is not None:
        request.add_body(settings.converter.resolve(body))
    request.drop_shadowed(auth.headers)
    definition: dict[str, Any] = {
        "name": name,
        "description": _description(op),
        "parameters": request.schema(),
        "implementation": request.implementation(op, _server(op, settings), auth),
        "category": "api",
    }
    if op.tags:
        definition["tags"] = op.tags
    if op.spec.get("summary"):
        definition["title"] = " ".join(str(op.spec["summary"]).split())
    if op.spec.get("deprecated") is True:
        definition["deprecated"] = True
    definition["annotations"] = _annotations(op.method)
    return definition, tuple(auth.missing)


def _parameters(op: Operation, converter: SchemaConverter) -> list[dict[str, Any]]:
    """The operation's parameters: the path item's, overridden by the operation's own."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for source in (op.path_item.get("parameters"), op.spec.get("parameters")):
        for raw in source or []:
            parameter = converter.resolve(raw)
            if isinstance(parameter, dict) and "name" in parameter:
                found[(str(parameter["name"]), str(parameter.get("in")))] = parameter
    return list(found.values())


class _Request:
    """The tool's properties and how each one reaches the request."""

    def __init__(self, converter: SchemaConverter) -> None:
        self.converter = converter
        self.properties: dict[str, Any] = {}
        self.required: list[str] = []
        places = ("path", "query", "header", "cookie")
        self.places: dict[str, dict[str, str]] = {place: {} for place in places}
        self.body: dict[str, str] | str | None = None

    def claim(self, wanted: str, prefix: str) -> str:
        """A free property name for ``wanted``: sanitised, then ``<prefix>_`` and a number."""
        name = _NOT_NAME.sub("_", wanted).strip("_")[:60] or prefix
        if name in self.properties:
            name = f"{prefix}_{name}"[:64]
        base, n = name, 2
        while name in self.properties:
            name, n = f"{base[:60]}_{n}", n + 1
        return name

    def add_parameter(self, parameter: dict[str, Any]) -> None:
        where, wire = str(parameter.get("in")), str(parameter["name"])
        if where == "header" and wire.lower() in _IGNORED_HEADERS:
            return
        if where not in self.places:
            raise Unsupported(f"parameter {wire!r} is in {where!r}")
        _check_style(parameter, where, wire)
        schema = self.converter.request_schema(_parameter_schema(parameter, wire))
        if not isinstance(schema, dict):
            schema = {}
        if parameter.get("description") and "description" not in schema:
            schema["description"] = str(parameter["description"])
        if parameter.get("deprecated") is True:
            schema["deprecated"] = True
        if "example" in parameter and "examples" not in schema:
            schema["examples"] = [parameter["example"]]
        name = self.claim(wire, where)
        self.properties[name] = schema
        self.places[where][wire] = name
        if where == "path" or parameter.get("required") is True:
            self.required.append(name)

    def add_body(self, body: Any) -> None:
        if not isinstance(body, dict):
            return
        content = body.get("content") or {}
        media = next((m for m in content if _JSON.match(str(m))), None)
        if media is None:
            kinds = ", ".join(sorted(map(str, content))) or "no media type"
            raise Unsupported(f"the request body is {kinds}; only JSON bodies are supported")
        raw = (content[media] or {}).get("schema", {})
        schema = self.converter.request_schema(raw)
        required = body.get("required") is True
        if _flat_object(schema):
            self.body = {}
            for prop, prop_schema in schema["properties"].items():
                name = self.claim(str(prop), "body")
                self.properties[name] = prop_schema
                self.body[str(prop)] = name
                if required and prop in (schema.get("required") or []):
                    self.required.append(name)
            return
        name = self.claim("body", "request")
        if isinstance(schema, dict) and body.get("description") and "description" not in schema:
            schema["description"] = str(body["description"])
        self.properties[name] = schema if isinstance(schema, dict | bool) else {}
        self.body = name
        if required:
            self.required.append(name)

    def drop_shadowed(self, credentials: Mapping[str, str]) -> None:
        """Leave out header parameters a credential header replaces (the argument is unused)."""
        names = {h.lower() for h in credentials}
        for wire in [w for w in self.places["header"] if w.lower() in names]:
            self.properties.pop(self.places["header"].pop(wire))
        self.required = [r for r in self.required if r in self.properties]

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "object", "properties": self.properties}
        if self.required:
            out["required"] = list(dict.fromkeys(self.required))
        return out

    def implementation(self, op: Operation, server: str, auth: Auth) -> dict[str, Any]:
        path = literal(op.path)
        for wire, name in self.places["path"].items():
            path = path.replace("{" + wire + "}", "{" + name + "}")
        url = server.rstrip("/") + path
        if auth.query:
            url += "?" + "&".join(f"{k}={v}" for k, v in auth.query)
        impl: dict[str, Any] = {"type": "http", "method": op.method.upper(), "url": url}
        headers = dict(auth.headers)
        if auth.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in auth.cookies)
        if headers:
            impl["headers"] = headers
        impl["query"] = dict(self.places["query"])
        if self.places["header"]:
            impl["header_params"] = dict(self.places["header"])
        if self.places["cookie"]:
            impl["cookie_params"] = dict(self.places["cookie"])
        if self.body is not None:
            impl["body"] = self.body
        return impl


def _parameter_schema(parameter: dict[str, Any], wire: str) -> Any:
    if "schema" in parameter:
        return parameter["schema"]
    content = parameter.get("content")
    if isinstance(content, dict) and content:
        return (next(iter(content.values())) or {}).get("schema", {})
    raise Unsupported(f"parameter {wire!r} has neither 'schema' nor 'content'")


def _check_style(parameter: dict[str, Any], where: str, wire: str) -> None:
    """Refuse serialisations the HTTP tool does not produce (named in the skip reason)."""
    style = parameter.get("style")
    default = {"query": "form", "cookie": "form"}.get(where, "simple")
    if style not in (None, default):
        raise Unsupported(f"{where} parameter {wire!r} uses style {style!r}")
    if where == "query" and parameter.get("explode") is False:
        raise Unsupported(f"query parameter {wire!r} is not exploded (explode: false)")


def _flat_object(schema: Any) -> bool:
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return False
    composed = {"allOf", "anyOf", "oneOf", "not", "if", "$ref"} & set(schema)
    return not composed and schema.get("type", "object") == "object"


def _server(op: Operation, settings: Settings) -> str:
    if settings.override_url:
        return settings.base_url
    for holder in (op.spec, op.path_item):
        servers = holder.get("servers")
        if isinstance(servers, list) and servers and isinstance(servers[0], dict):
            return server_url(servers[0], settings.converter.source, op.where)
    return settings.base_url


def server_url(server: Mapping[str, Any], source: str, where: str) -> str:
    """A server object's URL with its variables' defaults filled in, as `literal` text.

    Raises:
        OpenAPIError: The URL is relative or a variable has no default.
    """
    url = str(server.get("url", ""))
    variables = server.get("variables") or {}
    for name in re.findall(r"\{([^}]+)\}", url):
        default = (variables.get(name) or {}).get("default")
        if default is None:
            raise OpenAPIError(source, where, f"server variable {name!r} has no default")
        url = url.replace("{" + name + "}", str(default))
    if not url.startswith(("http://", "https://")):
        raise OpenAPIError(
            source, where, f"the server URL {url!r} is not absolute; pass base_url "
            "(--base-url) with the API's address",
        )  # fmt: skip
    return literal(url).replace("{", "%7B").replace("}", "%7D")  # no {param} in a server


def literal(text: str) -> str:
    """Document text for a tool's URL: ``$`` percent-encoded, so no ``${VAR}`` is read."""
    return text.replace("$", "%24")


def _description(op: Operation) -> str:
    parts = [str(op.spec.get(k)).strip() for k in ("summary", "description") if op.spec.get(k)]
    if len(parts) == 2 and parts[1].startswith(parts[0]):
        parts = parts[1:]
    text = "\n\n".join(parts) or f"{op.label}."
    if len(text) > MAX_DESCRIPTION:
        text = text[: MAX_DESCRIPTION - 3].rstrip() + "..."
    return text


def _annotations(method: str) -> dict[str, bool]:
    if method in ("get", "head"):
        return {"read_only": True, "open_world": True}
    return {
        "read_only": False,
        "destructive": method == "delete",
        "idempotent": method in ("put", "delete"),
        "open_world": True,
    }
