"""The index build's faster tokenizing gives exactly what the tokenizer gave before.

``_Oracle`` below is a frozen copy of the tokenizer and of the per-tool index parts as they were
before the build was made faster (regex passes over every text, each ASCII word split and
stemmed again each time it occurs). Every term, stem, document, profile, candidate, feature row
and result must match it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from functools import cache
from itertools import pairwise
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import forge.tools.search as search
from forge.tools import ToolRegistry, from_record
from forge.tools.importers.normalize import normalize_schema
from forge.tools.model.tool import Tool
from forge.tools.search import _embedding, _tokens
from forge.tools.search._corpus import Corpus, Parts
from forge.tools.search._glosses import glosses
from forge.tools.search._together import toolkit_key
from tests.conftest import corpus


class _Oracle:
    """The tokenizer and the tool parts before the build was made faster (do not change)."""

    CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
    CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    WORD = re.compile(rf"[{CJK}]+|[^\W_{CJK}]+")
    CJK_RUN = re.compile(rf"[{CJK}]")
    ACCENTS = re.compile("[\u0300-\u036f]")
    VOWEL = re.compile(r"[aeiouy]")

    @classmethod
    def split_identifier(cls, text: str) -> str:
        return cls.CAMEL.sub(" ", text.replace("_", " ").replace("-", " "))

    @classmethod
    def fold(cls, text: str) -> str:
        if text.isascii():
            return text.lower()
        text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
        return unicodedata.normalize("NFC", cls.ACCENTS.sub("", unicodedata.normalize("NFD", text)))

    @classmethod
    def pieces(cls, text: str) -> list[str]:
        folded = cls.fold(cls.split_identifier(text))
        if folded.isascii():
            return cls.WORD.findall(folded)
        out: list[str] = []
        for word in cls.WORD.findall(folded):
            if len(word) > 1 and cls.CJK_RUN.match(word):
                out.extend(a + b for a, b in pairwise(word))
            else:
                out.append(word)
        return out

    @classmethod
    def term(cls, word: str) -> str | None:
        stop = _tokens._STOP  # the word lists themselves are data, not the code under test
        if not word.isascii():
            short = len(word) < 2 and not cls.CJK_RUN.match(word)
            return None if word.isdigit() or short else word
        if len(word) < 2 or word in stop or word.isdigit():
            return None
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        return None if word in stop else word

    @classmethod
    def tokenize(cls, text: str) -> list[str]:
        return [term for word in cls.pieces(text) if (term := cls.term(word)) is not None]

    @classmethod
    def stem(cls, word: str) -> str:
        if len(word) <= 3 or not word.isascii() or word.endswith(("ss", "us", "is")):
            return word
        for suffix, replacement in _tokens._SUFFIXES:
            base = word[: -len(suffix)]
            if not word.endswith(suffix) or len(base) < 3 or not cls.VOWEL.search(base):
                continue
            if suffix in ("ing", "ingly", "ed", "edly"):
                if base[-1] == base[-2] and base[-1] not in "lsz":
                    return base[:-1]
                if base.endswith(("at", "bl", "iz")):
                    return base + "e"
            return base + replacement
        return word

    @classmethod
    def words(cls, text: str) -> list[str]:
        return [cls.stem(word) for word in cls.pieces(text)]

    @classmethod
    def fields(cls, tool: Tool) -> dict[str, list[str]]:
        meta = tool.metadata
        texts = {
            "name": tool.name,
            "display_name": meta.display_name or "",
            "tags": " ".join(meta.tags),
            "description": tool.description,
            "category": meta.category.value,
            "params": search._parameter_text(tool),
        }
        fields = {key: cls.tokenize(text) for key, text in texts.items()}
        if not tool.description.isascii():  # added since: a description's English glosses
            fields["description"] += cls.tokenize(glosses(tool.description))
        return fields

    @classmethod
    def semantic_text(cls, tool: Tool) -> str:
        name = cls.split_identifier(tool.name).replace(".", " ")
        return f"{name}. {tool.description} {search._parameter_text(tool)}".strip()

    @classmethod
    def parts(cls, tools: list[Tool]) -> list[Parts]:
        """Each tool's parts as the old build computed them (vectors from the same model)."""
        vectors = _embedding.embed([cls.semantic_text(t) for t in tools])
        out = []
        for tool, vector in zip(tools, vectors, strict=True):
            fields = cls.fields(tool)
            document: list[str] = []
            for key, terms in fields.items():
                document.extend(terms * search._FIELD_WEIGHTS[key])
            meta = tool.metadata
            texts = (tool.name, meta.display_name or "", " ".join(meta.tags), tool.description)
            whole = cls.words(" ".join((*texts, search._schema_text(tool))))
            name = tuple(fields["name"])
            profile = search._Profile(
                name=frozenset(name),
                name_pairs=frozenset(pairwise(name)),
                description=frozenset(fields["description"]),
                parameters=frozenset(
                    t for p in search._parameter_names(tool) for t in cls.tokenize(p)
                ),
                terms=frozenset(document),
                kit=toolkit_key(tool.name, meta.display_name),
            )
            out.append(Parts(document or ["_"], whole or ["_"], vector, profile))
        return out


def assert_same_text(text: str, uses: int = 2) -> None:
    """Every tokenizer function gives the oracle's output for ``text``, on first and on
    later ``uses`` (the words of a text are kept once seen)."""
    for _ in range(uses):
        assert _tokens.split_identifier(text) == _Oracle.split_identifier(text)
        assert _tokens._pieces(text) == _Oracle.pieces(text)
        assert _tokens.tokenize(text) == _Oracle.tokenize(text)
        assert _tokens.words(text) == _Oracle.words(text)


#: Letters that exercise every branch: ASCII of both cases, separators, digits, accents and
#: combining marks, compatibility forms, non-Latin scripts, CJK, and letters that fold to ASCII.
_MIXED = st.text(
    st.sampled_from(
        list("aAbBzZyYsSeEiInNgGdD019_-. ,;:/()'\"\t\n")
        + list("éÉçÇßẞİıΣσςЖж\u0301\u0308\u0327ﬁ\uff21\uff41\uff11℃ℌ²Ⅻ")
        + list("天气预报東京タワー한국어ةمحو٣\u200d\u00a0▁")
    ),
    max_size=40,
)
_IDENTIFIERS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-.]{0,30}", fullmatch=True)


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(max_size=60), _MIXED, _IDENTIFIERS))
def test_any_text_splits_exactly_as_before(text: str) -> None:
    """Any unicode text, mixed-script text or identifier gives the old terms and words."""
    assert_same_text(text)


@pytest.mark.parametrize(
    "text",
    ["HTTPServer", "getHTTPResponseCode", "ABCdef", "a1B2c3", "XMLHttpRequest2", "aB", "Ab", ""],
)
def test_camel_case_boundaries_match(text: str) -> None:
    """Runs of capitals, digits before capitals and one-letter words break where they did."""
    assert_same_text(text)


def _definitions() -> list[dict[str, Any]]:
    """Every BFCL function definition of the corpus's question files, in file order."""
    out = []
    for path in sorted(corpus("bfcl").glob("BFCL_v4_*.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            out.extend(json.loads(line).get("function", []))
    return out


@cache
def _tools() -> list[Tool]:
    """One tool per distinct BFCL definition (names made unique)."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for fn in _definitions():
        seen.setdefault((fn["name"], json.dumps(fn["parameters"], sort_keys=True)), fn)
    tools = []
    for i, fn in enumerate(seen.values()):
        name = f"f{i}_" + re.sub(r"[^A-Za-z0-9_-]", "_", fn["name"])[:50]
        tools.append(from_record({"name": name, "description": fn["description"],
                                  "parameters": normalize_schema(fn["parameters"], fn["name"])[0],
                                  "handler": lambda args: args}))  # fmt: skip
    return tools


def _tool_texts(tool: Tool) -> Iterator[str]:
    """Every text the build splits for a tool."""
    yield tool.name
    yield tool.description
    yield search._parameter_text(tool)
    yield search._schema_text(tool)
    yield search._semantic_text(tool)
    yield from search._parameter_names(tool)


@pytest.mark.slow  # the whole BFCL corpus
def test_every_bfcl_text_splits_exactly_as_before() -> None:
    """Each BFCL tool's texts, raw definition and JSON give the old terms and words."""
    texts = {text for tool in _tools() for text in _tool_texts(tool)}
    for fn in _definitions():
        texts.update((fn["name"], fn.get("description", ""), json.dumps(fn["parameters"])))
    for text in texts:
        assert_same_text(text, uses=1)


def _assert_same_parts(new: list[Parts], old: list[Parts]) -> None:
    for ours, theirs in zip(new, old, strict=True):
        assert list(ours.fields) == list(theirs.fields)
        assert list(ours.whole) == list(theirs.whole)
        assert ours.profile == theirs.profile
        # The sets iterate in the same order too: a feature sums floats over one.
        assert [list(ours_set) for ours_set in ours.profile[:5]] == [
            list(their_set) for their_set in theirs.profile[:5]
        ]
        assert ours.vector.tobytes() == theirs.vector.tobytes()


@pytest.mark.slow  # the whole BFCL corpus
def test_every_bfcl_tool_gets_the_old_parts() -> None:
    """Both BM25 documents, the vector and the profile of every BFCL tool are unchanged."""
    tools = _tools()
    assert len(tools) == 3205
    _assert_same_parts(search._parts(tools), _Oracle.parts(tools))


def test_tools_of_every_kind_get_the_old_parts() -> None:
    """Display names, tags, categories, lazy function tools and non-Latin text included."""
    from forge.tools import ToolCategory, tool

    def getHTTPStatus(serverURL: str, retry_count: int = 0) -> str:
        """Fetch the HTTP status of a server."""
        return serverURL

    def weather(city: str) -> str:
        """查询城市的天气预报 (Wetter, météo)."""
        return city

    record = {
        "name": "QueryDB",
        "description": "Run SQL.",
        "display_name": "\uff24atabase Ⅻ",
        "tags": ["sql", "Äpfel"],
        "category": "database",
        "handler": lambda args: args,
    }
    tools = [
        tool(getHTTPStatus, display_name="HTTP Status Checker", tags=["web", "net-ops"],
             category=ToolCategory.WEB),
        tool(weather, tags=["天气预报"]),
        from_record(record),
        *_tools()[:40],
    ]  # fmt: skip
    _assert_same_parts(search._parts(tools), _Oracle.parts(tools))


def _questions(category: str) -> list[str]:
    lines = corpus("bfcl", f"BFCL_v4_{category}.json").read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        item = json.loads(line)
        out.append(" ".join(m["content"] for turn in item["question"] for m in turn
                            if m["role"] == "user"))  # fmt: skip
    return out


def test_search_over_bfcl_tools_ranks_and_scores_as_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A registry of 400 BFCL tools returns the old results, candidates and scores."""
    tools = _tools()[:400]
    queries = [*_questions("multiple")[:150], "getWeather 天气 Café", "the", "HTTPServer logs"]
    registry = ToolRegistry(tools)
    new = search.SearchIndex(tools)
    ours = [(registry.search(q), *new.candidates(q)) for q in queries]

    old_corpus = Corpus()
    old_corpus.snapshot(tools, _Oracle.parts)  # the index's parts made by the old code
    monkeypatch.setattr(search, "tokenize", _Oracle.tokenize)  # queries split the old way
    monkeypatch.setattr(search, "words", _Oracle.words)
    old = search.SearchIndex(tools, corpus=old_corpus)
    weights = np.asarray(search.WEIGHTS)
    for query, (found, candidates, features) in zip(queries, ours, strict=True):
        old_candidates, old_features = old.candidates(query)
        assert candidates.tolist() == old_candidates.tolist(), query
        assert features.tobytes() == old_features.tobytes(), query
        assert (features @ weights).tobytes() == (old_features @ weights).tobytes()
        assert [t.name for t in found] == [t.name for t in old.search(query)], query


def _variants() -> list[Tool]:
    """Tools that share all their texts but their names, and near misses of sharing: the
    same JSON from unequal schemas (a tuple enum is written out as a list but not walked),
    descriptions that cannot be cut where the shared text starts, non-ASCII display names."""
    unit = {"type": "string", "description": "Temperature  unit.", "enum": ["c", "f"]}
    schema = {"type": "object", "properties": {"city": {"type": "string"}, "unit": unit}}
    tupled = {"type": "object", "properties": {"city": {"type": "string"},
                                               "unit": {**unit, "enum": ("c", "f")}}}  # fmt: skip
    descriptions = [
        "Current weather for a city.",
        "-",
        " Leading space.",
        "Trailing space. ",
        "Line\nbreak\n",
        "A \u2581 marker and <s> token.",
        "Café  北京 天气预报",
    ]
    names = ["get_weather", "get_weather__2", "getWeatherV2", "weather-now", "Get", "_"]
    extras: list[dict[str, Any]] = [{}, {"display_name": "Météo", "tags": ["wetter", "Äpfel"]}]
    out = []
    for description in descriptions:
        for n, name in enumerate(names):
            for parameters in (schema, tupled):
                out.append(from_record({"name": name, "description": description,
                                        "parameters": parameters, "handler": lambda a: a,
                                        **extras[n % 2]}))  # fmt: skip
    return out


def test_tools_sharing_all_but_their_names_get_the_old_parts() -> None:
    """Copies under new names, in one batch, get the parts each would get alone."""
    tools = _variants()
    assert search._parameter_text(tools[0]) != search._parameter_text(tools[1])  # not walked alike
    _assert_same_parts(search._parts(tools), _Oracle.parts(tools))
    _assert_same_parts(search._parts(tools[::-1]), _Oracle.parts(tools[::-1]))
    for one in tools[:4]:
        _assert_same_parts(search._parts([one]), _Oracle.parts([one]))


def test_copies_of_bfcl_tools_get_the_old_parts() -> None:
    """BFCL definitions registered twice under new names (as the benchmarks do)."""
    tools = _tools()[:60]
    copies = [t.replace(name=f"{t.name}__2") for t in tools]
    batch = [*tools, *copies]
    _assert_same_parts(search._parts(batch), _Oracle.parts(batch))


def test_schemas_alike_in_all_but_types_or_order_get_the_old_parts() -> None:
    """Schemas that are equal, or write out alike, but differ in a value's type (1, 1.0,
    True, -0.0), in a list written as a tuple, in key order, or in a dict subclass are read
    each on its own: none takes another's texts."""
    from collections import OrderedDict

    def schema(default: Any, *, reverse: bool = False, extra: Any = None) -> dict[str, Any]:
        unit = {"type": "string", "description": "Unit.", "default": default}
        if extra is not None:
            unit["enum"] = extra
        city = {"type": "string", "description": "City name."}
        properties = {"unit": unit, "city": city} if reverse else {"city": city, "unit": unit}
        return {"type": "object", "properties": properties}

    schemas = [
        schema(1),
        schema(1.0),
        schema(True),
        schema(0.0),
        schema(-0.0),
        schema(1, reverse=True),
        schema(1, extra=["c", "f"]),
        schema(1, extra=("c", "f")),
        OrderedDict(schema(1)),
        schema(1),
    ]
    tools = [from_record({"name": f"get_weather__{n}", "description": "Weather for a city.",
                          "parameters": s, "handler": lambda a: a})
             for n, s in enumerate(schemas)]  # fmt: skip
    _assert_same_parts(search._parts(tools), _Oracle.parts(tools))
    _assert_same_parts(search._parts(tools[::-1]), _Oracle.parts(tools[::-1]))


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=60), _MIXED, _IDENTIFIERS))
def test_terms_and_words_are_tokenize_and_words(text: str) -> None:
    """One cut of a text gives both its search terms and its words, as the two functions do."""
    assert _tokens.terms_and_words(text) == (_tokens.tokenize(text), _tokens.words(text))
