"""Security schemes to request parts filled from environment variables at call time.

Only the caller chooses which variables a document's tools read: a scheme reads
the variable named for it (``security_env``), else ``<PREFIX>_<SCHEME>`` in
upper snake case when the caller gave a prefix (``PETSTORE_API_KEY`` for the
scheme ``api_key`` with the prefix ``PETSTORE``), else none: nothing in the
document (its title, its scheme names) picks a variable by itself.
``apiKey`` sends the value in its header, query parameter or cookie; ``http``
``bearer`` as ``Authorization: Bearer``, ``basic`` as ``Authorization: Basic``
(the variable holds the base64 of ``user:password``); ``oauth2`` and
``openIdConnect`` as a bearer token. Of an operation's alternatives the first
whose schemes are all supported and have a variable is used; without one, the
first supported alternative is sent without credentials and its schemes are
reported as ``missing``.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["VARIABLE", "Auth", "Unsupported", "env_name", "pick_auth"]

_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP header or cookie name
VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""An environment variable name a caller may give."""


class Unsupported(Exception):
    """An operation cannot become a tool; the message says why (internal: becomes a skip)."""


@dataclass(slots=True)
class Auth:
    """What the chosen security requirement adds to every request."""

    headers: dict[str, str] = field(default_factory=dict)
    query: list[tuple[str, str]] = field(default_factory=list)
    cookies: list[tuple[str, str]] = field(default_factory=list)
    env: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    """Schemes the operation uses that the caller named no variable for (not sent)."""


def env_name(prefix: str, scheme: str) -> str:
    """``PREFIX_SCHEME`` in upper snake case (the scheme's camelCase split into words).

    ``env_name("Tic Tac Toe", "bearerAuth")`` is ``"TIC_TAC_TOE_BEARER_AUTH"``.
    """
    words = [w.upper() for w in re.findall(r"[A-Za-z0-9]+", prefix)]
    words += [w.upper() for w in _WORDS.findall(scheme)]
    name = "_".join(words) or "OPENAPI"
    return name if not name[0].isdigit() else f"_{name}"


def pick_auth(
    requirements: Any,
    schemes: Mapping[str, Any],
    *,
    prefix: str | None,
    names: Mapping[str, str],
) -> Auth:
    """The request parts of the first supported alternative of ``requirements``.

    Raises:
        Unsupported: No alternative can be sent (named with the reasons).
    """
    if not requirements:
        return Auth()
    reasons: list[str] = []
    uncredited: Auth | None = None
    for alternative in requirements:
        if not isinstance(alternative, Mapping):
            continue
        try:
            auth = _alternative(alternative, schemes, prefix, names)
        except Unsupported as exc:
            reasons.append(str(exc))
            continue
        if not auth.missing:
            return auth
        uncredited = uncredited or Auth(missing=auth.missing)
    if uncredited is not None:
        return uncredited
    raise Unsupported("no supported security requirement: " + "; ".join(dict.fromkeys(reasons)))


def _alternative(
    alternative: Mapping[str, Any],
    schemes: Mapping[str, Any],
    prefix: str | None,
    names: Mapping[str, str],
) -> Auth:
    auth = Auth()
    for scheme_name in map(str, alternative):
        scheme = schemes.get(scheme_name)
        if not isinstance(scheme, Mapping):
            raise Unsupported(f"security scheme {scheme_name!r} is not defined")
        variable = names.get(scheme_name)
        if variable is None and prefix is not None:
            variable = env_name(prefix, scheme_name)
        _apply(scheme_name, scheme, "${" + (variable or "_") + "}", auth)
        if variable is None:
            auth.missing.append(scheme_name)
        else:
            auth.env.append(variable)
    return auth


def _apply(name: str, scheme: Mapping[str, Any], value: str, auth: Auth) -> None:
    kind = scheme.get("type")
    if kind == "apiKey":
        where, wire = scheme.get("in"), str(scheme.get("name"))
        if where in ("header", "cookie") and not _TOKEN.fullmatch(wire):
            raise Unsupported(
                f"apiKey scheme {name!r} names the {where} {wire!r}, not a valid name"
            )
        if where == "header":
            auth.headers[wire] = value
        elif where == "query":
            auth.query.append((urllib.parse.quote(wire, safe=""), value))
        elif where == "cookie":
            auth.cookies.append((wire, value))
        else:
            raise Unsupported(f"apiKey scheme {name!r} is sent in {where!r}")
        return
    if kind == "http":
        http = str(scheme.get("scheme", "")).lower()
        if http not in ("bearer", "basic"):
            raise Unsupported(f"http scheme {name!r} uses {http!r} (bearer and basic are)")
        auth.headers["Authorization"] = f"{http.capitalize()} {value}"
        return
    if kind in ("oauth2", "openIdConnect"):
        auth.headers["Authorization"] = f"Bearer {value}"
        return
    raise Unsupported(f"security scheme {name!r} of type {kind!r} is not supported")
