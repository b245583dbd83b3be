"""The static embeddings behind search: offline loading, shapes, norms, blank texts."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools.search._embedding import DIMENSIONS, embed, similarity


def test_vectors_are_unit_length_rows() -> None:
    """One float32 row per text, each of length one."""
    vectors = embed(["convert money between currencies", "weather in Paris"])
    assert vectors.shape == (2, DIMENSIONS)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_related_texts_are_nearer_than_unrelated_ones() -> None:
    """The model carries meaning: currency is nearer to dollars than e-mail is."""
    query, currency, email = embed([
        "how many yen is 20 dollars",
        "Convert money from one currency to another.",
        "Send an email message.",
    ])  # fmt: skip
    assert query @ currency > query @ email + 0.2


def test_blank_text_gives_zeros_without_warnings() -> None:
    """A text without tokens gives a zero row instead of a division warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vectors = embed(["", "word"])
    assert not vectors[0].any()
    assert embed([]).shape == (0, DIMENSIONS)


def test_loading_needs_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model loads from the installed package, with every connection refused."""
    import socket

    import forge.tools.search._embedding as embedding

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network refused in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    embedding._model.cache_clear()
    assert embed(["offline"]).shape == (1, DIMENSIONS)


def test_same_texts_give_the_same_vectors() -> None:
    """Embedding is deterministic: batch order and repeats do not change a text's vector."""
    texts = ["book a flight to Lisbon", "北京今天的天气怎么样", "x"]
    first = embed(texts)
    again = embed(list(reversed(texts)))[::-1]
    assert np.array_equal(first, again)
    assert np.array_equal(first[1], embed([texts[1]])[0])


def test_fresh_interpreter_offline_same_vectors_root_logger_untouched() -> None:
    """In a fresh interpreter whose sockets are all blocked from the start, the model loads, its
    vectors equal this process's bit for bit, and the application's logging set-up stays."""
    import subprocess
    import sys

    code = (
        "import socket\n"
        "def refuse(*args, **kwargs):\n"
        "    raise OSError('network blocked in this test')\n"
        "socket.socket.connect = refuse\n"
        "socket.socket.connect_ex = refuse\n"
        "socket.create_connection = refuse\n"
        "socket.getaddrinfo = refuse\n"
        "import logging\n"
        "from forge.tools.search._embedding import embed\n"
        "print(embed(['offline vectors', 'weather in Paris']).tobytes().hex())\n"
        "root = logging.getLogger()\n"
        "print(len(root.handlers), root.level)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    vectors, logger = done.stdout.splitlines()
    assert vectors == embed(["offline vectors", "weather in Paris"]).tobytes().hex()
    assert logger.split() == ["0", str(logging.WARNING)]
    assert done.stderr == ""


def test_similarity_is_the_cosine_of_each_row() -> None:
    """``similarity`` equals the matrix-vector product of the unit rows, one score per row."""
    vectors = embed(["convert money between currencies", "weather in Paris", ""])
    query = embed(["how many yen is 20 dollars"])[0]
    scores = similarity(vectors, query)
    assert scores.shape == (3,)
    assert scores.dtype == np.float32
    assert np.allclose(scores, vectors @ query, atol=1e-6)
    assert scores[2] == 0.0
    assert similarity(embed([]), query).shape == (0,)


def wordllama_vectors(texts: list[str]) -> np.ndarray:
    """WordLlama's own ``embed`` (batches of 64, padded), normalised as ``embed`` documents."""
    from forge.tools.search._embedding import _model

    vectors = np.asarray(_model().embed(list(texts), norm=False), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def bfcl_texts() -> list[str]:
    """The embedded text of each function of BFCL ``multiple``, as the search index makes it."""
    import json

    from forge.tools import from_record
    from forge.tools.importers.normalize import normalize_schema
    from forge.tools.search import _semantic_text
    from tests.conftest import corpus

    texts = []
    lines = corpus("bfcl", "BFCL_v4_multiple.json").read_text(encoding="utf-8").splitlines()
    for i, fn in enumerate(f for line in lines for f in json.loads(line)["function"]):
        schema = normalize_schema(fn["parameters"], fn["name"])[0]
        tool = from_record({"name": f"f{i}_" + fn["name"].replace(".", "_"), "parameters": schema,
                            "description": fn["description"], "handler": dict})  # fmt: skip
        texts.append(_semantic_text(tool))
    return texts


def test_vectors_equal_wordllamas_bit_for_bit_on_real_tool_texts() -> None:
    """Every BFCL ``multiple`` tool's vector is WordLlama's to the bit, alone or in one batch,
    with texts repeated, blank, non-Latin and far longer than the rest mixed in."""
    texts = bfcl_texts()
    assert len(texts) > 500
    longest = max(texts, key=len)
    texts += ["", "   ", "北京今天的天气怎么样", "x", longest * 20, texts[3], texts[3], longest * 3]
    ours = embed(texts)
    assert ours.tobytes() == wordllama_vectors(texts).tobytes()
    for sample in (texts[:1], texts[:17], texts[-8:], texts[100:180]):
        assert embed(sample).tobytes() == wordllama_vectors(sample).tobytes()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=80) | st.sampled_from(["", "weather", "a b c " * 30]),
                max_size=40))  # fmt: skip
def test_any_texts_embed_as_wordllama_does(texts: list[str]) -> None:
    """Any list of texts (any length, repeats, blanks, any characters) gives WordLlama's
    vectors bit for bit."""
    assert embed(texts).tobytes() == wordllama_vectors(texts).tobytes()


def test_lone_surrogates_embed_as_replaced_characters() -> None:
    """A text with a lone surrogate (a model's JSON can carry ``\\ud800``) embeds as the text
    with it replaced, instead of the tokenizer's TypeError."""
    assert embed(["weather \ud800 now", "x"]).tobytes() == embed(["weather ? now", "x"]).tobytes()
    assert embed(["\udfff"]).shape == (1, DIMENSIONS)


def _encoded(texts: list[str]) -> tuple[list[int], list[int]]:
    """The token ids of each text encoded whole by the tokenizer (clamped as WordLlama does)."""
    from forge.tools.search._embedding import _encode, _model

    top = len(_model().embedding) - 1
    encoded = [[min(max(i, 0), top) for i in ids] for ids in _encode(texts)]
    return [i for ids in encoded for i in ids], [len(ids) for ids in encoded]


@pytest.mark.parametrize(
    "text",
    ["", " ", "  ", "word ", "a  b ", " lead", "x\ty\nz ", "  \n  b  ", "\u2581x", "a\u2581b",
     "<s>hi</s> x", "a <unk> b", "café  北京 今天 😀", "bad \ud800 piece", "x . y , z"],
)  # fmt: skip
def test_token_ids_of_pieces_equal_the_whole_texts(text: str) -> None:
    """Encoding a text piece by piece (cached) gives the ids of encoding it whole."""
    from forge.tools.search._embedding import _token_ids

    ids, lengths = _token_ids([text, f"{text} {text}", "then"])
    assert (ids.tolist(), lengths.tolist()) == _encoded([text, f"{text} {text}", "then"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.sampled_from(" \n\tab.,é北\u2581<s>/"), max_size=12), max_size=4))
def test_token_ids_of_any_texts_equal_the_whole_texts(texts: list[str]) -> None:
    """Spaces, line breaks, markers and special tokens anywhere: the same ids as whole."""
    from forge.tools.search._embedding import _token_ids

    ids, lengths = _token_ids(texts)
    assert (ids.tolist(), lengths.tolist()) == _encoded(texts)


def test_no_merge_joins_a_word_to_the_space_after_it() -> None:
    """Cutting texts at spaces rests on this: only runs of the space marker merge with it."""
    import json

    from forge.tools.search._embedding import _tokenizer

    merges = json.loads(_tokenizer().to_str())["model"]["merges"]
    pairs = [m.split(" ", 1) if isinstance(m, str) else m for m in merges]
    assert all(left.strip("\u2581") == "" for left, right in pairs if right.startswith("\u2581"))


_SEGMENT = st.text(st.sampled_from(" \n\tab.,é北\u2581<s>/"), max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_SEGMENT, st.tuples(_SEGMENT, _SEGMENT)), max_size=5))
def test_texts_given_as_head_and_tail_get_the_vectors_of_the_joined_texts(
    texts: list[str | tuple[str, str]],
) -> None:
    """A pair is its head and tail joined by a space: same ids, same vector bits, whether or
    not the pair can be cut where the tail starts, and however often a tail recurs."""
    from forge.tools.search._embedding import _token_ids, embed_joined

    joined = [text if isinstance(text, str) else f"{text[0]} {text[1]}" for text in texts]
    texts = texts + texts[::-1]
    joined = joined + joined[::-1]
    ids, lengths = _token_ids(texts)
    assert (ids.tolist(), lengths.tolist()) == _encoded(joined)
    assert embed_joined(texts).tobytes() == embed(joined).tobytes()
