"""The benchmark's token counter: o200k_base from the bpe-openai wheel, with no network at all."""

from __future__ import annotations

import socket
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.bench._load import bench_module


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise OSError("network access during a token count")


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every way out blocked; the encoding's caches emptied so its data is read again."""
    for name in ("connect", "connect_ex", "sendto"):
        monkeypatch.setattr(socket.socket, name, _refuse)
    monkeypatch.setattr(socket, "create_connection", _refuse)
    monkeypatch.setattr(socket, "getaddrinfo", _refuse)
    bench_module("_tokens").encoding.cache_clear()
    registry = sys.modules.get("bpe_openai.registry")
    if registry is not None:
        for name in ("_load_mergeable_ranks", "o200k_base", "cl100k_base"):
            getattr(registry, name).cache_clear()


@pytest.mark.usefixtures("offline")
def test_counts_with_the_packaged_vocabulary_and_no_network() -> None:
    """With sockets refused, the encoding loads from the wheel and gives o200k_base's ids."""
    tokens = bench_module("_tokens")
    encoding = tokens.encoding()
    assert encoding.name == "o200k_base"
    assert encoding.n_vocab >= 200_000
    assert encoding.encode_ordinary("Hello world") == [13225, 2375]
    assert tokens.count("Hello world") == 2
    assert tokens.count("") == 0


def test_a_definition_is_counted_as_its_compact_json() -> None:
    """``definition_tokens`` sums the counts of each definition's compact JSON text."""
    tokens = bench_module("_tokens")
    one = {"name": "get_weather", "description": "Météo du jour", "parameters": {"type": "object"}}
    two = {"name": "f", "description": "", "parameters": {}}
    text = '{"name":"get_weather","description":"Météo du jour","parameters":{"type":"object"}}'
    assert tokens.definition_text(one) == text
    assert tokens.definition_tokens([one, two]) == tokens.count(text) + tokens.count(
        tokens.definition_text(two)
    )
    assert tokens.definition_tokens([]) == 0


def test_bad_input_is_refused_with_what_to_do() -> None:
    """A text over the counter's limit, or not a string, is a clear error."""
    tokens = bench_module("_tokens")
    with pytest.raises(tokens.TokenCountError, match="one tool definition at a time"):
        tokens.count("x" * (tokens.MAX_CHARS + 1))
    with pytest.raises(tokens.TokenCountError, match="takes a str, got bytes"):
        tokens.count(b"abc")


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_the_tokens_decode_back_to_the_text(text: str) -> None:
    """Any text (surrogates aside) encodes to tokens that decode to the same text."""
    tokens = bench_module("_tokens")
    clean = text.encode("utf-8", "replace").decode("utf-8")
    ids = tokens.encoding().encode_ordinary(clean)
    assert tokens.encoding().decode(ids) == clean
    assert tokens.count(clean) == len(ids)
    assert len(ids) <= len(clean.encode("utf-8"))
