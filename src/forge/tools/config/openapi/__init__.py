"""HTTP tools from an OpenAPI 3.0 or 3.1 document (needs the ``openapi`` extra).

`import_openapi` reads a document (a file, an ``http(s)`` URL, JSON or YAML,
or a mapping), checks it with ``openapi-spec-validator`` and turns each
operation into an ``http`` tool definition, the shape configuration files use
(`forge.tools.config.http`), then builds the tools exactly as `load_tools`
would. ``forge-tools import-openapi`` writes those definitions to a file.

- Names: the ``operationId`` (characters other than letters, digits, ``_`` and
  ``-`` become ``_``), or ``<method>_<path>`` without one; a taken name gets
  ``_2``, ``_3``, ... (each renaming is in the report's ``warnings``).
- Description: the summary and description; tags become tags (category
  ``api``); ``deprecated`` is kept; GET and HEAD are marked read-only.
- Server: the first server (variables at their defaults), unless ``base_url``.
- Security: see `forge.tools.config.openapi._security`; secrets come from
  the environment variables the caller names (``security_env``, ``env_prefix``)
  at call time, listed in the report's ``env``. Text from the document is
  literal: a ``${VAR}`` in its paths or servers is sent as written, never read.
- Operations that cannot be sent (a form or multipart body, a parameter style
  other than the default, a method such as TRACE, an unsupported security
  scheme) are skipped and listed with the reason in ``skipped``, never silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from forge.core.errors import MissingDependencyError, ToolDefinitionError
from forge.tools.config.openapi._errors import OpenAPIError

if TYPE_CHECKING:
    import os

    from forge.tools.model.tool import Tool
    from forge.tools.registry import ToolRegistry

__all__ = ["OpenAPIError", "OpenAPIImport", "SkippedOperation", "import_openapi"]

_NOT_NAME = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(frozen=True, slots=True, kw_only=True)
class SkippedOperation:
    """An operation that did not become a tool, and why."""

    operation: str
    """``GET /pets/{petId}`` (and its ``operationId``, when it has one)."""
    where: str
    """Its JSON pointer in the document."""
    reason: str
    """What the HTTP tool cannot send, or what is wrong in the document."""

    def __str__(self) -> str:
        return f"{self.operation}: {self.reason}"


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenAPIImport:
    """What `import_openapi` made of a document."""

    title: str
    """The API's ``info.title``."""
    definitions: tuple[dict[str, Any], ...]
    """The tool definitions, as a configuration file holds them."""
    tools: tuple[Tool, ...]
    """The compiled tools, one per definition (registered if a registry was given)."""
    skipped: tuple[SkippedOperation, ...]
    """Operations that did not become tools (left out by a filter are not listed)."""
    selected: int
    """How many operations the filters kept (``len(tools) + len(skipped)``)."""
    total: int
    """How many operations the document has."""
    env: tuple[str, ...]
    """The environment variables the tools read: credentials (and the server, if
    ``base_url`` names one)."""
    warnings: tuple[str, ...]
    """Renamed tools and the findings of the library's deeper document checks."""


def import_openapi(
    source: str | os.PathLike[str] | Mapping[str, Any],
    *,
    base_url: str | None = None,
    include: Iterable[str] | None = None,
    exclude: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    env_prefix: str | None = None,
    security_env: Mapping[str, str] | None = None,
    allow_private_network: bool | Iterable[str] = False,
    registry: ToolRegistry | None = None,
) -> OpenAPIImport:
    """Turn an OpenAPI 3.0/3.1 document's operations into HTTP tools.

    Args:
        source: A file path, an ``http(s)`` URL (JSON or YAML) or the parsed document.
        base_url: The API's address, instead of the document's first server (required
            when that one is relative). ``${VAR}`` reads it from the environment.
        include: Keep only operations whose ``operationId``, tool name or tag is listed.
        exclude: Leave out operations whose ``operationId``, tool name or tag is listed.
        tags: Keep only operations with one of these tags.
        env_prefix: Prefix of the credential variables: scheme ``api_key`` reads
            ``<PREFIX>_API_KEY``. Every ``<PREFIX>_*`` variable is then open to the
            document's scheme names, so choose a prefix used by this API alone.
        security_env: The variable of a security scheme, by scheme name (overrides the
            prefix). A scheme with neither is not sent (listed in ``warnings``).
        allow_private_network: Let the tools (and reading ``source``) reach private and
            loopback addresses: ``True`` or the networks allowed, as for `load_tools`.
        registry: Register the tools here (all or none: a taken name raises).

    Raises:
        OpenAPIError: The document cannot be read or is invalid (naming where in it).
        MissingDependencyError: The ``openapi`` extra is not installed.
        DuplicateToolError: A tool's name is taken in ``registry`` (nothing registered).
    """
    try:
        import openapi_spec_validator  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError("openapi-spec-validator", "openapi") from exc
    from forge.tools.config.openapi._document import read_document

    _check_variables(env_prefix, security_env or {})
    document = read_document(source, allow_private_network=allow_private_network)
    result = _convert(
        document, base_url=base_url, filters=(include, exclude, tags), env_prefix=env_prefix,
        security_env=security_env or {}, allow_private=allow_private_network,
    )  # fmt: skip
    if registry is not None:
        registry.register_many(list(result.tools))
    return result


def _convert(
    document: Any,
    *,
    base_url: str | None,
    filters: tuple[Iterable[str] | None, Iterable[str] | None, Iterable[str] | None],
    env_prefix: str | None,
    security_env: Mapping[str, str],
    allow_private: bool | Iterable[str],
) -> OpenAPIImport:
    from forge.tools.config.openapi._operations import operations
    from forge.tools.config.openapi._schemas import SchemaConverter

    data = document.data
    info = data.get("info") or {}
    title = str(info.get("title") or "OpenAPI")
    converter = SchemaConverter(data, version=document.version, source=document.source)
    settings = _settings(data, converter, base_url, env_prefix, security_env)
    chosen = [op for op in operations(data) if _selected(op, *filters)]
    total = sum(1 for _ in operations(data))
    built = _Built(allow_private)
    for op in chosen:
        built.add(op, settings)
    return OpenAPIImport(
        title=title, definitions=tuple(built.definitions), tools=tuple(built.tools),
        skipped=tuple(built.skipped), selected=len(chosen), total=total,
        env=tuple(dict.fromkeys(built.env)), warnings=(*built.warnings, *document.warnings),
    )  # fmt: skip


def _settings(
    data: dict[str, Any],
    converter: Any,
    base_url: str | None,
    prefix: str | None,
    security_env: Mapping[str, str],
) -> Any:
    from forge.tools.config.openapi._operations import Settings, server_url

    if base_url is not None:
        url, override = base_url, True
    else:
        servers = data.get("servers") or [{"url": "/"}]
        url, override = server_url(servers[0], converter.source, "/servers/0"), False
    components = data.get("components") or {}
    return Settings(
        converter=converter, base_url=url, override_url=override, security=data.get("security"),
        schemes=components.get("securitySchemes") or {}, env_prefix=prefix,
        env_names=security_env,
    )  # fmt: skip


def _check_variables(env_prefix: str | None, security_env: Mapping[str, str]) -> None:
    from forge.tools.config.openapi._security import VARIABLE

    if env_prefix is not None and not re.search("[A-Za-z0-9]", env_prefix):
        raise OpenAPIError(
            "env_prefix", "", f"{env_prefix!r} has no letter or digit, so the document's scheme "
            "names alone would choose the variables; pass a prefix such as 'PETSTORE'",
        )  # fmt: skip
    for scheme, variable in security_env.items():
        if not isinstance(variable, str) or not VARIABLE.fullmatch(variable):
            raise OpenAPIError(
                "security_env", f"/{scheme}", f"{variable!r} is not an environment variable "
                "name; use letters, digits and '_', not starting with a digit",
            )  # fmt: skip


def _selected(
    op: Any,
    include: Iterable[str] | None,
    exclude: Iterable[str] | None,
    tags: Iterable[str] | None,
) -> bool:
    keys = {str(op.spec.get("operationId", "")), _base_name(op), *op.tags} - {""}
    if tags is not None and not set(tags) & set(op.tags):
        return False
    if include is not None and not set(include) & keys:
        return False
    return not (exclude is not None and set(exclude) & keys)


def _base_name(op: Any) -> str:
    """The tool name before deduplication: the operationId, or method and path."""
    raw = op.spec.get("operationId")
    if not isinstance(raw, str) or not raw.strip():
        raw = f"{op.method}_{op.path.replace('{', '').replace('}', '')}"
    name = re.sub("_+", "_", _NOT_NAME.sub("_", raw)).strip("_-")
    if not name or not (name[0].isalpha() or name[0] == "_"):
        name = f"op_{name}"
    return name[:64]


class _Built:
    """The definitions, tools and skips of one import, with unique names."""

    def __init__(self, allow_private: bool | Iterable[str]) -> None:
        self.allow_private = allow_private
        self.definitions: list[dict[str, Any]] = []
        self.tools: list[Tool] = []
        self.skipped: list[SkippedOperation] = []
        self.warnings: list[str] = []
        self.env: list[str] = []
        self.names: set[str] = set()

    def add(self, op: Any, settings: Any) -> None:
        from forge.tools.config.openapi._operations import operation_definition
        from forge.tools.config.openapi._schemas import RefBomb
        from forge.tools.config.openapi._security import Unsupported

        label = op.label + (f" ({op.spec['operationId']})" if op.spec.get("operationId") else "")
        name = self._unique(_base_name(op), label)
        try:
            definition, missing = operation_definition(op, name, settings)
            tool = self._build(definition)
        except RefBomb as bomb:
            raise bomb.error from None
        except (Unsupported, OpenAPIError, ToolDefinitionError) as exc:
            self.skipped.append(
                SkippedOperation(operation=label, where=op.where, reason=_reason(exc))
            )
            return
        for scheme in missing:
            self._missing(scheme)
        self.names.add(name)
        self.definitions.append(definition)
        self.tools.append(tool)
        self.env.extend(_env_of(definition))

    def _missing(self, scheme: str) -> None:
        message = (
            f"security scheme {scheme!r} has no credential variable, so its operations are "
            f"sent without it; name one with security_env={{{scheme!r}: 'VAR'}} "
            f"(--security-env {scheme}=VAR) or env_prefix (--env-prefix)"
        )
        if message not in self.warnings:
            self.warnings.append(message)

    def _unique(self, base: str, label: str) -> str:
        name, n = base, 2
        while name in self.names:
            name, n = f"{base[:60]}_{n}", n + 1
        if name != base:
            self.warnings.append(f"{label}: the name {base!r} is taken; the tool is {name!r}")
        return name

    def _build(self, definition: dict[str, Any]) -> Tool:
        from forge.tools.config._limits import definition_problem
        from forge.tools.config.definition import build_tool
        from forge.tools.config.handlers import HandlerRegistry

        problem = definition_problem(definition)  # what `load_tools` would refuse in the file
        if problem is not None:
            raise ToolDefinitionError(definition["name"], problem)

        return build_tool(
            definition, builtins=HandlerRegistry("builtin"), internal=HandlerRegistry("internal"),
            allow_private_network=self.allow_private,
        )  # fmt: skip


def _reason(exc: Exception) -> str:
    if isinstance(exc, OpenAPIError):
        return exc.reason
    if isinstance(exc, ToolDefinitionError):
        return exc.message
    return str(exc)


def _env_of(definition: dict[str, Any]) -> list[str]:
    impl = definition["implementation"]
    text = " ".join([impl["url"], *impl.get("headers", {}).values()])
    return re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)", text)
