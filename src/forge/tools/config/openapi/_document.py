"""Reading an OpenAPI document (file, URL or mapping) and checking it before conversion.

Files and URLs are read up to `_fetch.MAX_DOCUMENT_BYTES` (a URL also within a
deadline, from the address that was checked), YAML with the configuration
files' bounded loader, and every document becomes plain JSON values within
the configuration files' limits (`_plain`). The document is then checked in
three steps: its ``openapi`` version (3.0 or 3.1),
that every ``$ref`` points inside the document (nothing is fetched while
converting), and its structure against the OpenAPI schema of its version
(``openapi-spec-validator``), whose first error is raised with its path in the
document. The library's deeper checks (defaults and examples against their
schemas, parameters of the paths) follow; what they find is returned as
warnings, since real descriptions often carry such slips in parts that do not
change the tools.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forge.tools.config._limits import MAX_DEPTH
from forge.tools.config.openapi import _fetch
from forge.tools.config.openapi._errors import OpenAPIError, pointer
from forge.tools.config.openapi._plain import plain

__all__ = ["Document", "read_document"]

MAX_WARNINGS = 20
_TOO_DEEP = f"the document nests more than {MAX_DEPTH} levels deep (the limit); flatten it"


@dataclass(frozen=True, slots=True)
class Document:
    """A checked OpenAPI document."""

    data: dict[str, Any]
    source: str
    """Where it came from (a path, a URL or ``<mapping>``)."""
    version: str
    warnings: tuple[str, ...]


def read_document(source: Any, *, allow_private_network: Any = False) -> Document:
    """Read, parse and check ``source``: a path, an ``http(s)`` URL, or a mapping.

    Raises:
        OpenAPIError: The source cannot be read or parsed, or is not a valid
            OpenAPI 3.0/3.1 document (the message names the place in it).
    """
    if isinstance(source, Mapping):
        where = "<mapping>"
        data: Any = plain(dict(source), where)
    else:
        where = os.fspath(source)
        if where.startswith(("http://", "https://")):
            text = _fetch.fetch(where, allow_private_network)
        else:
            text = _read_file(Path(where))
        data = _parse(text, where)
    if not isinstance(data, dict):
        raise OpenAPIError(where, "", f"the document must be a mapping, got {type(data).__name__}")
    version = _version(data, where)
    _check_refs(data, where)
    _check_structure(data, version, where)
    return Document(data=data, source=where, version=version, warnings=_deep_checks(data, version))


def _read_file(path: Path) -> str:
    limit = _fetch.MAX_DOCUMENT_BYTES
    try:
        with path.open("rb") as file:
            data = file.read(limit + 1)
        if len(data) > limit:
            raise OpenAPIError(
                str(path), "", f"the file is larger than {limit:,} bytes (the limit); import a "
                "smaller one (only the operations you need)",
            )  # fmt: skip
        return data.decode("utf-8")
    except FileNotFoundError:
        raise OpenAPIError(str(path), "", "file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise OpenAPIError(str(path), "", f"cannot read the file: {exc}") from None


def _parse(text: str, where: str) -> Any:
    """JSON or YAML text to plain values, within the configuration files' limits."""
    return plain(_json(text, where) if text.lstrip().startswith("{") else _yaml(text, where), where)


def _json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise OpenAPIError(
            where, "", f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise OpenAPIError(where, "", _TOO_DEEP) from None
    except ValueError as exc:  # an integer longer than Python reads
        raise OpenAPIError(where, "", f"invalid JSON: {exc}") from None


def _yaml(text: str, where: str) -> Any:
    import yaml

    from forge.tools.config._yaml import AliasBomb, load_yaml

    try:
        return load_yaml(text, tools=False)
    except AliasBomb as exc:
        raise OpenAPIError(where, "", str(exc)) from None
    except yaml.YAMLError as exc:
        raise OpenAPIError(where, "", f"invalid YAML: {' '.join(str(exc).split())}") from None
    except ValueError as exc:  # a scalar YAML reads as an impossible date, for one
        raise OpenAPIError(where, "", f"invalid YAML value: {exc}") from None


def _version(data: dict[str, Any], where: str) -> str:
    version = data.get("openapi")
    if isinstance(version, str) and version.startswith(("3.0.", "3.1.")):
        return version[:3]
    if "swagger" in data:
        raise OpenAPIError(
            where, "/swagger", f"Swagger {data['swagger']} is not supported; convert the "
            "document to OpenAPI 3 first (for example with swagger2openapi)",
        )  # fmt: skip
    raise OpenAPIError(
        where, "/openapi", f"the 'openapi' version must be 3.0.x or 3.1.x, got {version!r}"
    )


def _check_refs(data: Any, where: str) -> None:
    for path, ref in _refs(data, ()):
        if not isinstance(ref, str):
            raise OpenAPIError(
                where, pointer(path), f"$ref must be a string, got {json.dumps(ref)} (in YAML, "
                "quote a ref that starts with '#': $ref: '#/components/schemas/Pet')",
            )  # fmt: skip
        if not ref.startswith("#"):
            raise OpenAPIError(
                where, pointer(path), f"$ref {ref!r} points outside the document; only refs "
                "inside it ('#/components/...') are followed. Bundle the document first "
                "(for example with 'redocly bundle')",
            )  # fmt: skip


def _refs(node: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and not isinstance(value, dict):
                yield (*path, key), value
            else:
                yield from _refs(value, (*path, str(key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _refs(value, (*path, str(index)))


def _check_structure(data: dict[str, Any], version: str, where: str) -> None:
    from openapi_spec_validator.schemas import (
        openapi_v30_schema_validator,
        openapi_v31_schema_validator,
    )

    validator = openapi_v30_schema_validator if version == "3.0" else openapi_v31_schema_validator
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path), e.path))
    if errors:
        first = _deepest(errors[0])
        more = f" ({len(errors) - 1} more problem(s) after this one)" if len(errors) > 1 else ""
        raise OpenAPIError(
            where, pointer(tuple(str(p) for p in first.absolute_path)),
            f"not a valid OpenAPI {version} document: {_first_line(first.message)}{more}",
        )  # fmt: skip


def _first_line(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else "invalid"
    return line if len(line) <= 300 else line[:297] + "..."


def _deepest(error: Any) -> Any:
    """The most specific of an error's causes (``oneOf`` branches hide the useful one)."""
    while error.context:
        error = max(error.context, key=lambda e: len(e.absolute_path))
    return error


def _deep_checks(data: dict[str, Any], version: str) -> tuple[str, ...]:
    from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator

    base = OpenAPIV30SpecValidator if version == "3.0" else OpenAPIV31SpecValidator
    # No resolver handlers: nothing is fetched (outside refs were refused above).
    validator = type("_Offline", (base,), {"resolver_handlers": {}})(data)
    found: list[str] = []
    try:
        for error in validator.iter_errors():
            found.append(" ".join(str(getattr(error, "message", error)).split()))
            if len(found) == MAX_WARNINGS:
                found.append("(further findings of the OpenAPI checks not shown)")
                break
    except Exception as exc:  # the library gives up on some documents; ours are converted still
        found.append(f"the OpenAPI checks stopped early: {type(exc).__name__}: {exc}")
    return tuple(f"OpenAPI check: {message}" for message in found)
