"""The ``servers.json`` of ``forge-tools serve --servers``: desktop agents' ``mcpServers`` file.

The file is the one Claude Desktop, Cursor and others read (``{"mcpServers": {name: entry}}``),
or VS Code's variant (``{"servers": {...}}``). An entry starts a command over stdio
(``command``, ``args``, ``env``, ``cwd``) or reaches a URL (``url``, ``headers``; ``type``
``"http"``/``"streamable-http"``, or ``"sse"``); ``"disabled": true`` (or ``"enabled":
false``) leaves it out. ``${VAR}``, ``${VAR:-default}`` and VS Code's ``${env:VAR}`` are
expanded from the environment in ``command``, ``args``, ``cwd``, ``url``, ``env`` and
``headers``; a variable that is not set (and has no default) is an error naming the server,
the field and the variable, never the value; so is a header HTTP cannot send (a value
ending in a line break, as a ``.env`` file's last line may) or a variable no process can
be given (naming the header or variable, never the value). Keys other tools add (``autoApprove``,
``description``, ...) are ignored.

Gateway options sit under ``"forge"``, at the top (``separator``, ``search_only``,
``search``: ``{"limit": n, "max_active": n, "max_tokens": n, "pin": [names], "pin_used": n,
"siblings": n, "toolkits": n, "partners": n, "min_co_use": n}`` for each search-only
session,
``timeout``, ``connect_timeout``, ``probe_interval``, ``reconnect``: ``{"first": s,
"cap": s}``) or in an entry (``prefix``, ``timeout``,
``connect_timeout``, ``allow``, ``deny`` and ``tools``: per-tool ``{"timeout": s}``).
No server's prefix may start another's (``a__`` and ``a__b__``, or an empty prefix beside
any other): one server's tools could then take the other's names.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from forge.core.errors import ForgeError
from forge.mcp.credentials import header_problem, safe_url
from forge.tools.schema import is_valid_name

__all__ = [
    "DEFAULT_SEPARATOR",
    "GatewayConfig",
    "ServerConfig",
    "ServersFileError",
    "SEARCH_OPTIONS",
    "check_prefixes",
    "expand_env",
    "load_servers",
    "parse_servers",
    "search_options",
]

DEFAULT_SEPARATOR = "__"
Kind = Literal["stdio", "http", "sse"]
_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_KINDS: dict[str, Kind] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamablehttp": "http",
    "streamable_http": "http",
    "sse": "sse",
}
_SERVER_OPTIONS = frozenset({"prefix", "timeout", "connect_timeout", "allow", "deny", "tools"})
_TOP_OPTIONS = frozenset(
    {"separator", "search_only", "search", "timeout", "connect_timeout", "reconnect",
     "probe_interval"}
)  # fmt: skip
#: The ``search`` options of the file (and the CLI) and the `DeferredSession` argument of each.
SEARCH_OPTIONS = {"limit": "search_limit", "max_active": "max_active", "pin": "pinned",
                  "max_tokens": "max_tokens", "pin_used": "pin_used", "siblings": "siblings",
                  "toolkits": "toolkits", "partners": "partners",
                  "min_co_use": "min_co_use"}  # fmt: skip
_MAY_BE_ZERO = frozenset({"pin_used", "siblings", "partners"})


class ServersFileError(ForgeError, ValueError):
    """A ``servers.json`` that cannot be read or holds an invalid entry (named in the message)."""


@dataclass(frozen=True, kw_only=True)
class ServerConfig:
    """One server of the gateway, as its entry says (variables already expanded)."""

    name: str
    """The entry's key in ``mcpServers``."""
    kind: Kind
    """``stdio`` (a command), ``http`` (streamable HTTP) or ``sse``."""
    prefix: str
    """Put before each of its tools' names (``<name><separator>`` unless set); no other
    server's prefix starts it, nor does it start another's."""
    display: str
    """The command line as the file writes it (variables not expanded: no secrets), or the URL
    without its userinfo and query values."""
    command: str | None = None
    """The program to start (stdio)."""
    args: tuple[str, ...] = ()
    """Its arguments."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Extra environment variables for it (secrets: never logged)."""
    cwd: str | None = None
    """Its working directory."""
    url: str | None = None
    """The server's URL (http, sse)."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """HTTP headers sent to it (secrets: never logged)."""
    timeout: float = 30.0
    """Seconds a call of its tools may take."""
    connect_timeout: float = 30.0
    """Seconds to start or reach it and list its tools."""
    allow: tuple[str, ...] = ()
    """Glob patterns of its tools to serve, matched on its own tool names and on the names
    served (without the prefix); empty: all."""
    deny: tuple[str, ...] = ()
    """Glob patterns of its tools never to serve (matched on both names too)."""
    tool_timeouts: Mapping[str, float] = field(default_factory=dict)
    """Per-tool timeouts (tool names without the prefix)."""


@dataclass(frozen=True, kw_only=True)
class GatewayConfig:
    """Every enabled server of a ``servers.json`` and the gateway's options."""

    servers: tuple[ServerConfig, ...]
    """The enabled servers, in file order."""
    disabled: tuple[str, ...] = ()
    """Names of the entries left out (``disabled``)."""
    separator: str = DEFAULT_SEPARATOR
    """Between a server's name and its tools' names."""
    search_only: bool = False
    """Expose only ``search_tools`` and the tools it reveals (per session)."""
    search: Mapping[str, Any] = field(default_factory=dict)
    """Keyword arguments of each search-only session's `DeferredSession` (``search_limit``,
    ``max_active``, ``max_tokens``, ``pinned``, ``pin_used``, ``siblings``, ``toolkits``)."""
    probe_interval: float = 2.0
    """Seconds between liveness probes of each connected server."""
    reconnect_first: float = 0.5
    """Seconds before the first reconnect attempt (doubling after each failure)."""
    reconnect_cap: float = 30.0
    """The longest wait between reconnect attempts."""


def expand_env(text: str, environ: Mapping[str, str], where: str) -> str:
    """Replace ``${VAR}``, ``${VAR:-default}`` and ``${env:VAR}`` in ``text`` from ``environ``.

    Raises:
        ServersFileError: A variable that is not set and has no default (named with ``where``).
    """

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = environ.get(name)
        if found is None or (found == "" and default is not None):
            if default is None:
                raise ServersFileError(
                    f"{where} uses ${{{name}}}, which is not set: set the environment "
                    f"variable {name}, or write ${{{name}:-default}}"
                )
            return default
        return found

    return _VARIABLE.sub(value, text)


def load_servers(
    path: str | Path, environ: Mapping[str, str] | None = None, *, separator: str | None = None
) -> GatewayConfig:
    """Read a ``servers.json`` (see the module docstring).

    Raises:
        ServersFileError: The file is missing, not JSON, or holds an invalid entry.
    """
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ServersFileError(f"cannot read the servers file {where}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ServersFileError(
            f"{where} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    return parse_servers(data, os.environ if environ is None else environ, where, separator)


def parse_servers(
    data: Any,
    environ: Mapping[str, str],
    where: str = "servers.json",
    separator: str | None = None,
) -> GatewayConfig:
    """Read the parsed JSON of a ``servers.json``; ``where`` names it in errors.

    Raises:
        ServersFileError: An invalid document or entry.
    """
    if not isinstance(data, dict):
        raise ServersFileError(f"{where}: expected a JSON object with 'mcpServers'")
    key = "mcpServers" if "mcpServers" in data else "servers"
    entries = data.get(key)
    if not isinstance(entries, dict):
        raise ServersFileError(
            f"{where}: expected 'mcpServers' (or VS Code's 'servers'): an object mapping "
            "each server's name to its entry"
        )
    options = _options(data.get("forge", {}), _TOP_OPTIONS, f"{where}: 'forge'")
    sep = separator if separator is not None else options.get("separator", DEFAULT_SEPARATOR)
    if not isinstance(sep, str) or not sep or not is_valid_name(f"a{sep}b"):
        raise ServersFileError(
            f"{where}: the separator {sep!r} cannot be part of a tool name "
            "(letters, digits, '_' and '-')"
        )
    defaults: dict[str, Any] = {
        k: options[k] for k in ("timeout", "connect_timeout") if k in options
    }
    servers: list[ServerConfig] = []
    disabled: list[str] = []
    for name, entry in entries.items():
        place = f"{where}: server {name!r}"
        if not isinstance(entry, dict):
            raise ServersFileError(f"{place}: expected an object, got {_type(entry)}")
        if entry.get("disabled") is True or entry.get("enabled") is False:
            disabled.append(name)
            continue
        servers.append(
            _server(name, entry, environ=environ, place=place, sep=sep, defaults=defaults)
        )
    check_prefixes(servers, where)
    reconnect = _options(
        options.get("reconnect", {}), frozenset({"first", "cap"}), f"{where}: 'forge.reconnect'"
    )
    first = _seconds(reconnect.get("first", 0.5), f"{where}: 'forge.reconnect.first'")
    cap = _seconds(reconnect.get("cap", max(30.0, first)), f"{where}: 'forge.reconnect.cap'")
    if cap < first:
        raise ServersFileError(f"{where}: 'forge.reconnect.cap' is less than its 'first'")
    return GatewayConfig(
        probe_interval=_seconds(
            options.get("probe_interval", 2.0), f"{where}: 'forge.probe_interval'"
        ),
        reconnect_first=first,
        reconnect_cap=cap,
        servers=tuple(servers),
        disabled=tuple(disabled),
        separator=sep,
        search_only=_flag(options.get("search_only", False), f"{where}: 'forge.search_only'"),
        search=search_options(options.get("search", {}), f"{where}: 'forge.search'"),
    )


def check_prefixes(servers: Iterable[ServerConfig], where: str = "servers.json") -> None:
    """Refuse prefixes that could give two servers' tools the same name.

    A prefix that starts another (``a__`` and ``a__b__``; ``google_`` and ``google_drive_``;
    the empty prefix and any other) lets the shorter one's server expose a name of the
    longer one's (``a__`` + ``b__echo`` is ``a__b__`` + ``echo``).

    Raises:
        ServersFileError: Naming both servers and their prefixes.
    """
    ordered = sorted(servers, key=lambda s: (s.prefix, s.name))
    for shorter, longer in itertools.combinations(ordered, 2):
        if shorter.prefix == longer.prefix:
            raise ServersFileError(
                f"{where}: servers {shorter.name!r} and {longer.name!r} share the prefix "
                f"{shorter.prefix!r}: give one a 'forge': {{'prefix': ...}} of its own"
            )
        if longer.prefix.startswith(shorter.prefix):
            raise ServersFileError(
                f"{where}: the prefix {shorter.prefix!r} of server {shorter.name!r} starts the "
                f"prefix {longer.prefix!r} of server {longer.name!r}, so a tool of "
                f"{shorter.name!r} could take a name of {longer.name!r}'s tools: give one a "
                "'forge': {'prefix': ...} that the other does not start with"
            )


def _server(
    name: str,
    entry: dict[str, Any],
    *,
    environ: Mapping[str, str],
    place: str,
    sep: str,
    defaults: Mapping[str, Any],
) -> ServerConfig:
    options = {**defaults, **_options(entry.get("forge", {}), _SERVER_OPTIONS, f"{place}: 'forge'")}
    kind = _kind(entry, place)

    def text(key: str) -> str | None:
        raw = entry.get(key)
        if raw is None:
            return None
        if not isinstance(raw, str):
            raise ServersFileError(f"{place}: '{key}' must be a string, got {_type(raw)}")
        return expand_env(raw, environ, f"{place}: '{key}'")

    common: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "prefix": _prefix(name, options.get("prefix"), sep, place),
        "display": _display(entry, kind),
        "timeout": _seconds(options.get("timeout", 30.0), f"{place}: 'forge.timeout'"),
        "connect_timeout": _seconds(
            options.get("connect_timeout", 30.0), f"{place}: 'forge.connect_timeout'"
        ),
        "allow": _patterns(options.get("allow", ()), f"{place}: 'forge.allow'"),
        "deny": _patterns(options.get("deny", ()), f"{place}: 'forge.deny'"),
        "tool_timeouts": _tool_timeouts(options.get("tools", {}), f"{place}: 'forge.tools'"),
    }
    if kind == "stdio":
        command = text("command")
        if not command:
            raise ServersFileError(f"{place}: 'command' is missing or empty (the program to run)")
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ServersFileError(f"{place}: 'args' must be a list of strings")
        return ServerConfig(
            **common,
            command=command,
            args=tuple(expand_env(a, environ, f"{place}: 'args[{i}]'") for i, a in enumerate(args)),
            env=_environment(_strings(entry.get("env", {}), environ, f"{place}: 'env'"), place),
            cwd=text("cwd"),
        )
    url = text("url") or text("serverUrl")
    if not url or not url.startswith(("http://", "https://")):
        raise ServersFileError(f"{place}: 'url' must be an http:// or https:// URL")
    return ServerConfig(
        **common,
        url=url,
        headers=_headers(_strings(entry.get("headers", {}), environ, f"{place}: 'headers'"), place),
    )


def _headers(headers: dict[str, str], place: str) -> dict[str, str]:
    """The headers, each one HTTP can send (the value is a secret: the message never shows it)."""
    for name, value in headers.items():
        problem = header_problem(name, value)
        if problem is not None:
            raise ServersFileError(f"{place}: the header {name!r} cannot be sent: {problem}")
    return headers


def _environment(env: dict[str, str], place: str) -> dict[str, str]:
    """The variables, each one a process can be given (the value is never shown)."""
    for name, value in env.items():
        if not name or "=" in name or "\0" in name:
            raise ServersFileError(
                f"{place}: 'env' has the variable name {name!r}, which cannot be set: use a "
                "name without '=' or NUL"
            )
        if "\0" in value:
            raise ServersFileError(
                f"{place}: the value of 'env' {name!r} holds a NUL character, which no process "
                "environment can: remove it"
            )
    return env


def _display(entry: Mapping[str, Any], kind: Kind) -> str:
    if kind != "stdio":
        return safe_url(str(entry.get("url") or entry.get("serverUrl")))
    args = entry.get("args", [])
    words = [str(entry.get("command", "")), *(args if isinstance(args, list) else [])]
    return shlex.join(str(w) for w in words)


def _kind(entry: Mapping[str, Any], place: str) -> Kind:
    declared = entry.get("type", entry.get("transport"))
    if declared is None:
        if "command" in entry:
            return "stdio"
        if "url" in entry or "serverUrl" in entry:
            return "http"
        raise ServersFileError(f"{place}: give 'command' (stdio) or 'url' (HTTP)")
    kind = _KINDS.get(str(declared).lower())
    if kind is None:
        raise ServersFileError(
            f"{place}: 'type' is {declared!r}; use 'stdio', 'http' (streamable HTTP) or 'sse'"
        )
    return kind


def _options(raw: Any, known: frozenset[str], place: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ServersFileError(f"{place} must be an object, got {_type(raw)}")
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ServersFileError(
            f"{place}: unknown option {unknown[0]!r}; known: {', '.join(sorted(known))}"
        )
    return raw


def _prefix(name: str, given: Any, sep: str, place: str) -> str:
    if given is None:
        base = re.sub(r"[^A-Za-z0-9_-]", "_", name)
        prefix = (base if base[:1].isalpha() or base[:1] == "_" else f"s_{base}") + sep
    elif isinstance(given, str):
        prefix = given
    else:
        raise ServersFileError(f"{place}: 'forge.prefix' must be a string, got {_type(given)}")
    if prefix and not is_valid_name(f"{prefix}x"):
        raise ServersFileError(
            f"{place}: the prefix {prefix!r} cannot start a tool name (a letter or '_' first, "
            "then letters, digits, '_' and '-'): set 'forge': {'prefix': ...}"
        )
    return prefix


def _strings(raw: Any, environ: Mapping[str, str], place: str) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise ServersFileError(f"{place} must be an object of strings, got {_type(raw)}")
    out: dict[str, str] = {}
    for key, value in raw.items():
        if not isinstance(value, str):  # the value may be a secret: name its type only
            raise ServersFileError(f"{place}: {key!r} must be a string, got {_type(value)}")
        out[key] = expand_env(value, environ, f"{place}: {key!r}")
    return out


def _patterns(raw: Any, place: str) -> tuple[str, ...]:
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list | tuple) or not all(isinstance(p, str) for p in raw):
        raise ServersFileError(f"{place} must be a list of tool name patterns (strings)")
    return tuple(raw)


def _tool_timeouts(raw: Any, place: str) -> dict[str, float]:
    if not isinstance(raw, dict):
        raise ServersFileError(f"{place} must map tool names to {{'timeout': seconds}}")
    out: dict[str, float] = {}
    for tool, options in raw.items():
        spot = f"{place}.{tool}"
        known = _options(options, frozenset({"timeout"}), spot)
        if "timeout" in known:
            out[tool] = _seconds(known["timeout"], f"{spot}.timeout")
    return out


def _seconds(raw: Any, place: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 < raw < 1e6:
        raise ServersFileError(f"{place} must be a positive number of seconds, got {raw!r}")
    return float(raw)


def search_options(raw: Any, place: str) -> dict[str, Any]:
    """The ``search`` options (see `SEARCH_OPTIONS`) as `DeferredSession` keyword arguments.

    Raises:
        ServersFileError: An option is unknown or not of its type (named with ``place``).
    """
    known = _options(raw, frozenset(SEARCH_OPTIONS), place)
    out: dict[str, Any] = {}

    def least(key: str) -> int:
        return 0 if key in _MAY_BE_ZERO else 1

    for key, value in known.items():
        if key == "pin":
            out["pinned"] = _patterns(value, f"{place}.pin")
        elif isinstance(value, bool) or not isinstance(value, int) or value < least(key):
            raise ServersFileError(
                f"{place}.{key} must be a whole number >= {least(key)}, got {value!r}"
            )
        else:
            out[SEARCH_OPTIONS[key]] = value
    return out


def _flag(raw: Any, place: str) -> bool:
    if not isinstance(raw, bool):
        raise ServersFileError(f"{place} must be true or false, got {raw!r}")
    return raw


def _type(value: Any) -> str:
    return "null" if value is None else type(value).__name__
