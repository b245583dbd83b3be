"""The gateway's servers file: the mcpServers JSON of desktop agents, ${ENV} expansion, errors."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.gateway.config import (
    ServersFileError,
    expand_env,
    load_servers,
    parse_servers,
)

NAMES = st.text(string.ascii_uppercase + "_", min_size=1, max_size=12)
PLAIN = st.text(st.characters(blacklist_characters="$"), max_size=20)
VALUES = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)


@settings(deadline=None)
@given(st.lists(st.tuples(PLAIN, NAMES, VALUES), max_size=5), PLAIN)
def test_expansion_puts_each_variable_s_value_in_place(
    parts: list[tuple[str, str, str]], tail: str
) -> None:
    """Text around ${VAR} is kept and each ${VAR} becomes the variable's value, once."""
    environ = {name: value for _, name, value in parts}
    text = "".join(f"{before}${{{name}}}" for before, name, _ in parts) + tail
    wanted = "".join(before + environ[name] for before, name, _ in parts) + tail
    assert expand_env(text, environ, "here") == wanted


@settings(deadline=None)
@given(NAMES, VALUES, st.text(st.characters(blacklist_characters="}"), max_size=10))
def test_vs_code_form_and_defaults(name: str, value: str, default: str) -> None:
    """${env:VAR} is ${VAR}; ${VAR:-default} takes the default when VAR is unset or empty."""
    assert expand_env(f"${{env:{name}}}", {name: value}, "here") == value
    assert expand_env(f"${{{name}:-{default}}}", {}, "here") == default
    assert expand_env(f"${{{name}:-{default}}}", {name: ""}, "here") == default
    expected = value if value else default
    assert expand_env(f"${{{name}:-{default}}}", {name: value}, "here") == expected


@settings(deadline=None)
@given(NAMES, VALUES)
def test_an_unset_variable_is_named_and_no_value_is_shown(name: str, secret: str) -> None:
    """The error names the place and the variable, never another variable's value."""
    with pytest.raises(ServersFileError) as raised:
        expand_env(f"x ${{{name}}}", {name + "_OTHER": secret}, "server 'a': 'env'")
    message = str(raised.value)
    assert f"${{{name}}}" in message
    assert "server 'a': 'env'" in message


def _parse(servers: dict[str, Any], environ: dict[str, str] | None = None, **top: Any) -> Any:
    return parse_servers({"mcpServers": servers, **top}, environ or {}, "servers.json")


def test_claude_desktop_entries_are_read() -> None:
    """stdio and HTTP entries with env, headers, cwd, disabled ones skipped, options read."""
    config = _parse(
        {
            "files": {
                "command": "npx",
                "args": ["-y", "server", "${HOME}/docs"],
                "env": {"API_KEY": "${KEY}"},
                "cwd": "/tmp",
                "forge": {
                    "timeout": 5,
                    "allow": ["read_*"],
                    "tools": {"read_file": {"timeout": 9}},
                },
            },
            "remote": {
                "url": "https://example.com/mcp",
                "headers": {"Authorization": "Bearer ${KEY}"},
            },
            "off": {"command": "x", "disabled": True},
            "my server": {"type": "streamable-http", "url": "http://127.0.0.1:1/mcp"},
        },
        {"HOME": "/home/u", "KEY": "s3cret"},
        forge={"separator": "-", "search_only": True},
    )
    files, remote, spaced = config.servers
    assert (files.kind, files.command, files.args) == (
        "stdio",
        "npx",
        ("-y", "server", "/home/u/docs"),
    )
    assert files.env == {"API_KEY": "s3cret"}
    assert (files.cwd, files.timeout, files.allow) == ("/tmp", 5.0, ("read_*",))
    assert files.tool_timeouts == {"read_file": 9.0}
    assert files.prefix == "files-"
    assert "s3cret" not in files.display
    assert "${HOME}" in files.display
    assert (remote.kind, remote.headers) == ("http", {"Authorization": "Bearer s3cret"})
    assert "s3cret" not in remote.display
    assert spaced.prefix == "my_server-"
    assert config.disabled == ("off",)
    assert config.search_only is True


def test_vs_code_servers_key_is_read() -> None:
    """VS Code's {"servers": ...} works like mcpServers."""
    config = parse_servers({"servers": {"t": {"type": "stdio", "command": "t"}}}, {})
    assert [s.name for s in config.servers] == ["t"]
    assert config.servers[0].prefix == "t__"


def test_the_file_is_read_from_disk(tmp_path: Path) -> None:
    """load_servers reads the JSON file; the separator argument overrides the file's."""
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"a": {"command": "a"}}}))
    assert load_servers(path, {}, separator="_").servers[0].prefix == "a_"


@pytest.mark.parametrize(
    ("servers", "message"),
    [
        ({"a": {"args": ["x"]}}, "server 'a': give 'command'"),
        ({"a": {"command": 3}}, "server 'a': 'command' must be a string"),
        ({"a": {"command": "x", "args": "y"}}, "server 'a': 'args' must be a list"),
        ({"a": {"command": "x", "env": {"K": 1}}}, "server 'a': 'env': 'K' must be a string"),
        ({"a": {"url": "ftp://x"}}, "server 'a': 'url' must be an http"),
        ({"a": {"type": "websocket", "url": "ws://x"}}, "server 'a': 'type' is 'websocket'"),
        ({"a": {"command": "x", "env": {"K": "${NOPE}"}}}, "server 'a': 'env': 'K' uses ${NOPE}"),
        ({"a": {"command": "x", "forge": {"timeout": -1}}}, "'forge.timeout' must be a positive"),
        ({"a": {"command": "x", "forge": {"colour": 1}}}, "unknown option 'colour'"),
        ({"a": {"command": "x", "forge": {"prefix": "1x"}}}, "the prefix '1x' cannot start"),
        ({"a": ["x"]}, "server 'a': expected an object"),
        ({"a": {"command": "x"}, "b": {"command": "y", "forge": {"prefix": "a__"}}}, "share"),
    ],
)
def test_bad_entries_are_named(servers: dict[str, Any], message: str) -> None:
    """Each mistake raises ServersFileError naming the file, the server and the field."""
    with pytest.raises(ServersFileError) as raised:
        _parse(servers)
    assert message in str(raised.value)
    assert "servers.json" in str(raised.value)


def test_a_bad_header_value_type_does_not_show_the_value() -> None:
    """A header that is not a string is named by key and type, never by value."""
    with pytest.raises(ServersFileError) as raised:
        _parse({"a": {"url": "http://h/mcp", "headers": {"Authorization": ["top-secret"]}}})
    assert "'Authorization' must be a string, got list" in str(raised.value)
    assert "top-secret" not in str(raised.value)


UNSENDABLE = st.sampled_from(["\n", "\r\n", "\r", "\x00", "\x1b", "\x7f", "é", " "])


@settings(deadline=None)
@given(
    st.text(string.ascii_letters + string.digits + "-_.", min_size=8, max_size=30),
    UNSENDABLE,
    st.sampled_from(["start", "middle", "end"]),
)
def test_a_header_value_http_cannot_send_is_refused_without_showing_it(
    secret: str, bad: str, where: str
) -> None:
    """A control, non-ASCII or edge-whitespace character: refused at load, value never shown."""
    secret = "sk-" + secret
    value = {"start": bad + secret, "middle": secret[:4] + bad + secret[4:], "end": secret + bad}
    if bad == " " and where == "middle":
        value["middle"] = secret + "\t"  # inner spaces are fine; a trailing tab is not
    environ = {"FORGE_KEY": value[where]}
    document = {
        "mcpServers": {"api": {"url": "http://h/mcp", "headers": {"X-Key": "${FORGE_KEY}"}}}
    }
    with pytest.raises(ServersFileError) as raised:
        parse_servers(document, environ)
    message = str(raised.value)
    assert "server 'api': the header 'X-Key' cannot be sent" in message
    assert "sk-" not in message


def test_headers_and_environment_that_work_are_kept() -> None:
    """Inner spaces, tabs and punctuation in a header, line breaks in a variable: accepted."""
    config = _parse(
        {
            "api": {"url": "http://h/mcp", "headers": {"Authorization": "Bearer a.b-c_d=\te"}},
            "cmd": {"command": "x", "env": {"PEM": "-----BEGIN-----\nabc\n-----END-----\n"}},
        }
    )
    assert config.servers[0].headers == {"Authorization": "Bearer a.b-c_d=\te"}
    assert config.servers[1].env["PEM"].endswith("\n")


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"command": "x", "env": {"A=B": "v"}}, "'env' has the variable name 'A=B'"),
        ({"command": "x", "env": {"KEY": "top\x00secret"}}, "'env' 'KEY' holds a NUL"),
        ({"url": "http://h/mcp", "headers": {"Bad Name": "v"}}, "the header 'Bad Name' cannot"),
    ],
)
def test_a_variable_no_process_can_have_or_a_bad_header_name_is_named(
    entry: dict[str, Any], message: str
) -> None:
    """An environment variable that cannot be set, a header name HTTP refuses: named."""
    with pytest.raises(ServersFileError) as raised:
        _parse({"s": entry})
    assert message in str(raised.value)
    assert "secret" not in str(raised.value)


def test_a_url_is_shown_without_its_userinfo_and_query_values() -> None:
    """The display of a URL server keeps the host, path and query keys only."""
    [server] = _parse({"s": {"url": "https://me:pw-123@h.example/mcp?key=abc123&v=2#frag"}}).servers
    assert server.display == "https://h.example/mcp?key=***&v=***"
    assert server.url == "https://me:pw-123@h.example/mcp?key=abc123&v=2#frag"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "expected a JSON object"),
        ({"mcp": {}}, "expected 'mcpServers'"),
        ({"mcpServers": {}, "forge": {"separator": "."}}, "the separator '.'"),
        ({"mcpServers": {}, "forge": {"search_only": "yes"}}, "must be true or false"),
        ({"mcpServers": {}, "forge": {"search": {"limit": 0}}}, "search'.limit must be a whole"),
        ({"mcpServers": {}, "forge": {"search": {"pin": 3}}}, "search'.pin must be a list"),
        ({"mcpServers": {}, "forge": {"search": {"top": 3}}}, "unknown option 'top'"),
        ({"mcpServers": {}, "forge": {"search": {"siblings": -1}}}, "siblings must be a whole"),
        ({"mcpServers": {}, "forge": {"search": {"min_co_use": 0}}}, "min_co_use must be a "),
        ({"mcpServers": {}, "forge": {"search": []}}, "'forge.search' must be an object"),
    ],
)
def test_bad_documents_are_named(document: Any, message: str) -> None:
    """A document that is not a servers file says what it lacks."""
    with pytest.raises(ServersFileError, match=message):
        parse_servers(document, {})


def test_missing_and_broken_files(tmp_path: Path) -> None:
    """A missing file and a file that is not JSON are errors naming the file."""
    with pytest.raises(ServersFileError, match="cannot read the servers file"):
        load_servers(tmp_path / "none.json", {})
    broken = tmp_path / "broken.json"
    broken.write_text("{nope")
    with pytest.raises(ServersFileError, match=r"broken\.json is not JSON: .* line 1"):
        load_servers(broken, {})


def test_the_guide_example_is_a_valid_servers_file() -> None:
    """The servers.json of the gateway guide reads as the guide says."""
    readme = Path(__file__).resolve().parents[3] / "docs" / "guides" / "gateway.md"
    text = readme.read_text(encoding="utf-8").split("<!-- servers.json -->\n```json\n", 1)[1]
    document = json.loads(text.split("\n```", 1)[0])
    config = parse_servers(document, {"HOME": "/home/me", "TICKETS_TOKEN": "t0ken"})
    time_, files, tickets = config.servers
    assert config.disabled == ("old",)
    assert files.args[-1] == "/home/me/notes"
    assert files.tool_timeouts == {"search_files": 60.0}
    assert (tickets.kind, tickets.timeout, tickets.deny) == ("http", 15.0, ("delete_*",))
    assert tickets.headers == {"Authorization": "Bearer t0ken"}
    assert (config.probe_interval, config.reconnect_first, config.reconnect_cap) == (2, 0.5, 30)
    assert time_.prefix == "time__"


def test_search_options_become_the_sessions_arguments() -> None:
    """``forge.search`` maps to DeferredSession's keyword arguments."""
    config = parse_servers(
        {"mcpServers": {}, "forge": {"search_only": True,
                                     "search": {"limit": 3, "max_active": 9, "pin": ["a__b"]}}},
        {},
    )  # fmt: skip
    assert config.search == {"search_limit": 3, "max_active": 9, "pinned": ("a__b",)}
    more = {
        "max_tokens": 2000,
        "pin_used": 2,
        "siblings": 0,
        "toolkits": 2,
        "partners": 0,
        "min_co_use": 3,
    }
    config = parse_servers({"mcpServers": {}, "forge": {"search": more}}, {})
    assert config.search == more
