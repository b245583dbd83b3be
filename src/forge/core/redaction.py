"""Keeping secrets out of the messages a model reads and the logs.

`redact` replaces the values of named environment variables in a text, in
every form a message may show them (stripped, escaped as ``repr`` shows them,
percent-encoded). `Redaction` is the policy an executor applies to the error
text of every failed result before it reaches the model or the log: by
default the values of environment variables whose names look secret.

>>> Redaction(secret_env=False, env=("MY_PASS",), patterns=(r"sk-\\w+",)).compile(
...     {"MY_PASS": "hunter2hunter2"})("login hunter2hunter2 failed with key sk-abc123")
'login ${MY_PASS} failed with key [redacted]'
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = ["MIN_REDACTED", "SECRET_NAME", "Redaction", "Redactor", "redact"]

MIN_REDACTED = 4
"""Shorter values are left alone: too short to be a secret, and replacing them
(a port ``80``, say) would garble every message."""

SECRET_NAME = re.compile(r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
"""Names of environment variables whose values are secrets by default."""

# How a URL library may have encoded a value; the last is httpx's path encoding.
_SAFE_SETS = ("", "/", "!$&'()*+,;=:@/", "!$&'()*+,;=:@/[]|^\\%")

Redactor = Callable[[str], str]
"""A compiled `Redaction`: text in, text without the secrets out."""


def redact(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each value of ``values`` (name to value) replaced by ``${name}``.

    Also replaces the forms a value takes in messages: stripped of whitespace,
    escaped as in ``repr`` of a str or of its UTF-8 bytes, and percent-encoded.
    """
    forms = _all_forms(values, MIN_REDACTED)
    for form in sorted(forms, key=len, reverse=True):  # longest first: no half-redacted value
        text = text.replace(form, forms[form])
    return text


@dataclass(frozen=True, slots=True, kw_only=True)
class Redaction:
    """What an executor removes from error messages and logs.

    The default (``Redaction()``) removes the values of environment variables
    whose names contain ``TOKEN``, ``KEY``, ``SECRET``, ``PASSWORD``, ``PASSWD``
    or ``CREDENTIAL`` (any case) and are at least ``min_length`` characters
    long, as the environment holds them when the executor is created.
    """

    env: tuple[str, ...] = ()
    """More environment variables whose values are removed (any length from 4)."""
    patterns: tuple[str, ...] = ()
    """Regular expressions whose matches are replaced by ``[redacted]``."""
    secret_env: bool = True
    """Also remove the values of environment variables with secret-looking names."""
    min_length: int = 8
    """The shortest value of a secret-looking variable that is removed."""

    def compile(self, environ: Mapping[str, str] | None = None) -> Redactor:
        """The redactor for ``environ`` (default: ``os.environ`` now).

        Raises:
            re.error: A pattern is not a valid regular expression.
        """
        source = os.environ if environ is None else environ
        values = {name: source[name] for name in self.env if source.get(name)}
        forms = _all_forms(values, MIN_REDACTED)
        if self.secret_env:
            secret = {
                name: value
                for name, value in source.items()
                if SECRET_NAME.search(name) and len(value.strip()) >= self.min_length
            }
            for form, name in _all_forms(secret, self.min_length).items():
                forms.setdefault(form, name)
        parts = [re.escape(form) for form in sorted(forms, key=len, reverse=True)]
        parts += [f"(?:{pattern})" for pattern in self.patterns]
        if not parts:
            return _unchanged
        combined = re.compile("|".join(parts))

        def replace(match: re.Match[str]) -> str:
            return forms.get(match.group(0), "[redacted]")

        def redactor(text: str) -> str:
            return combined.sub(replace, text)

        return redactor


def _unchanged(text: str) -> str:
    return text


def _all_forms(values: Mapping[str, str], shortest: int) -> dict[str, str]:
    forms: dict[str, str] = {}
    for name, value in values.items():
        for form in _forms(value):
            if len(form) >= shortest:
                forms.setdefault(form, "${" + name + "}")
    return forms


def _forms(value: str) -> set[str]:
    import urllib.parse

    found = {value, value.strip(), repr(value)[1:-1], repr(value.encode())[2:-1]}
    for form in list(found):
        found |= {urllib.parse.quote(form, safe=safe) for safe in _SAFE_SETS}
        found.add(urllib.parse.quote_plus(form))
    return found
