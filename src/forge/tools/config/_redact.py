"""Keeping environment values out of the messages an HTTP tool returns."""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping

__all__ = ["MIN_REDACTED", "redact"]

#: Shorter values are left alone: too short to be a secret, and replacing them
#: (a port ``80``, say) would garble every message.
MIN_REDACTED = 4

# How a URL library may have encoded a value; the last is httpx's path encoding.
_SAFE_SETS = ("", "/", "!$&'()*+,;=:@/", "!$&'()*+,;=:@/[]|^\\%")


def redact(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each value of ``values`` (name to value) replaced by ``${name}``.

    Also replaces the forms a value takes in messages: stripped of whitespace,
    escaped as in ``repr`` of a str or of its UTF-8 bytes, and percent-encoded.
    """
    forms: dict[str, str] = {}
    for name, value in values.items():
        for form in _forms(value):
            if len(form) >= MIN_REDACTED:
                forms.setdefault(form, "${" + name + "}")
    for form in sorted(forms, key=len, reverse=True):  # longest first: no half-redacted value
        text = text.replace(form, forms[form])
    return text


def _forms(value: str) -> set[str]:
    found = {value, value.strip(), repr(value)[1:-1], repr(value.encode())[2:-1]}
    for form in list(found):
        found |= {urllib.parse.quote(form, safe=safe) for safe in _SAFE_SETS}
        found.add(urllib.parse.quote_plus(form))
    return found
