"""Environment values kept out of HTTP tool messages."""

from __future__ import annotations

import contextlib
import urllib.parse

import httpx
from hypothesis import given
from hypothesis import strategies as st

from forge.core.redaction import MIN_REDACTED, redact

SECRETS = st.text(min_size=MIN_REDACTED, max_size=30).filter(
    lambda v: len(v.strip()) >= MIN_REDACTED and "$" not in v and "{" not in v
)


@given(secret=SECRETS, before=st.text(max_size=20), after=st.text(max_size=20))
def test_no_form_of_a_value_survives(secret: str, before: str, after: str) -> None:
    """The value, its repr escapes and its URL encodings are all replaced."""
    forms = [
        secret,
        secret.strip(),
        repr(secret)[1:-1],
        repr(secret.encode())[2:-1],
        urllib.parse.quote(secret, safe=""),
        urllib.parse.quote(secret, safe="!$&'()*+,;=:@/"),
    ]
    with contextlib.suppress(httpx.InvalidURL):  # httpx refuses '?', '#' and control characters
        forms.append(httpx.URL("http://h/").copy_with(path="/" + secret).raw_path.decode()[1:])
    for form in forms:
        out = redact(before + form + after, {"API_TOKEN": secret})
        assert form not in out or form in before + after
        assert "${API_TOKEN}" in out


def test_short_values_are_left_alone() -> None:
    """A value too short to be a secret (a port, say) does not garble the message."""
    assert redact("HTTP 401 from host:80", {"PORT": "80"}) == "HTTP 401 from host:80"


def test_longest_value_first() -> None:
    """Overlapping values are replaced whole."""
    out = redact("key abcdef", {"SHORT": "abcd", "LONG": "abcdef"})
    assert out == "key ${LONG}"
