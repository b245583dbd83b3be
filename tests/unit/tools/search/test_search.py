"""Ranked search: tokenising, candidates, re-ranking features, filters, caching, ranking."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools import ToolRegistry, from_record, tool
from forge.tools.search import (
    FEATURES,
    SEMANTIC_FLOOR,
    WEIGHTS,
    SearchIndex,
    _semantic_text,
    tokenize,
    words,
)
from forge.tools.search._embedding import embed


def record(name: str, description: str, **extra: Any) -> dict[str, Any]:
    """A schema-only tool record."""
    return {"name": name, "description": description, "handler": lambda args: args, **extra}


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("getWeatherForecast", ["get", "weather", "forecast"]),
        ("read_file-contents", ["read", "file", "content"]),
        ("math.factorial", ["math", "factorial"]),
        ("HTTPServer", ["http", "server"]),
        ("What's the weather like in Paris, please?", ["weather", "pari"]),
        ("Book 4 tickets for 2023-03-14", ["book", "ticket"]),
        ("class glasses", ["class", "glasse"]),  # a light rule, the same on both sides
    ],
)
def test_tokenize(text: str, terms: list[str]) -> None:
    """Identifiers are split, stop words, numbers and single letters dropped, plurals folded."""
    assert tokenize(text) == terms


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("getWeatherForecast", ["get", "weather", "forecast"]),
        ("Created 3 running jobs quickly", ["create", "3", "run", "job", "quick"]),
        ("stopped shipping classes", ["stop", "ship", "class"]),
        ("a status of the bus analysis", ["a", "status", "of", "the", "bus", "analysis"]),
        ("configurations; happiness", ["configuration", "happiness"]),
    ],
)
def test_words_keep_every_word_and_stem_lightly(text: str, expected: list[str]) -> None:
    """The whole-definition index keeps stop words and numbers and strips common suffixes."""
    assert words(text) == expected


def test_name_spelled_out_by_the_query_decides_between_descriptions() -> None:
    """Of two descriptions that both mention the query, the tool named by it ranks first."""
    registry = ToolRegistry([
        record("send_message", "Send a message, which may quote the weather forecast."),
        record("weather_forecast", "The weather forecast for a place."),
    ])  # fmt: skip
    assert [t.name for t in registry.search("weather forecast")] == [
        "weather_forecast", "send_message",
    ]  # fmt: skip


def test_mentioned_parameters_rank_a_tool_first() -> None:
    """Of two tools alike in name and description, the one whose parameters are named wins."""

    def params(*names: str) -> dict[str, Any]:
        return {"type": "object", "properties": {n: {"type": "number"} for n in names}}

    registry = ToolRegistry([
        record("shape_area", "The area of a shape.", parameters=params("radius")),
        record("area_of_shape", "The area of a shape.", parameters=params("base", "height")),
    ])  # fmt: skip
    assert registry.search("area of a shape with base 3 and height 4")[0].name == "area_of_shape"
    assert registry.search("area of a shape with radius 2")[0].name == "shape_area"


def test_candidates_carry_one_bounded_row_per_tool() -> None:
    """Candidates are the matching tools, each with one value in [0, 1] per feature."""
    index = SearchIndex([
        from_record(record("get_weather", "Current weather for a city.")),
        from_record(record("send_email", "Send an email message.")),
        from_record(record("weather_alerts", "Severe weather alerts for a region.")),
    ])  # fmt: skip
    assert len(WEIGHTS) == len(FEATURES)
    positions, rows = index.candidates("get the weather in Paris")
    assert positions.tolist() == [0, 2]
    assert rows.shape == (2, len(FEATURES))
    assert ((rows >= 0) & (rows <= 1)).all()
    coverage = rows[:, FEATURES.index("name_coverage")]
    assert coverage.tolist() == [1.0, 0.5]
    assert rows[:, FEATURES.index("whole_bm25")].max() == 1.0
    nearest, stop_words = index.candidates("the of and")
    assert len(nearest) >= 1
    assert stop_words.shape == (len(nearest), len(FEATURES))
    assert ((stop_words >= 0) & (stop_words <= 1)).all()
    none, empty = SearchIndex([]).candidates("get the weather")
    assert len(none) == 0
    assert empty.shape == (0, len(FEATURES))


def test_parameters_enums_and_nested_properties_are_searchable() -> None:
    """Parameter names, descriptions, enum values and nested properties are indexed."""
    schema = {
        "type": "object",
        "properties": {
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "location": {"type": "object", "properties": {"postcode": {"type": "string",
                         "description": "Postal district"}}},
            "stops": {"type": "array", "items": {"type": "object",
                      "properties": {"airport": {"type": "string"}}}},
        },
    }  # fmt: skip
    registry = ToolRegistry([record("lookup", "Look something up.", parameters=schema),
                             record("other", "Something else entirely.")])  # fmt: skip
    for query in ("fahrenheit", "postcode", "postal district", "airport"):
        assert [t.name for t in registry.search(query)] == ["lookup"], query


def test_display_name_and_tags_are_searchable() -> None:
    """Display names, tags and the category count as terms."""
    registry = ToolRegistry([
        record("t1", "First.", display_name="Currency Converter"),
        record("t2", "Second.", tags=["astronomy"], category="web"),
    ])  # fmt: skip
    assert registry.search("converter")[0].name == "t1"
    assert registry.search("astronomy")[0].name == "t2"
    assert registry.search("web")[0].name == "t2"


def test_index_is_updated_only_for_the_tools_that_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Repeated searches reuse one index; a change computes only the tools it brought."""
    import forge.tools.search as search

    computed: list[list[str]] = []
    original = search._parts

    def counting(tools: list[Any]) -> Any:
        computed.append([t.name for t in tools])
        return original(tools)

    monkeypatch.setattr(search, "_parts", counting)
    registry = ToolRegistry([record("alpha", "First tool."), record("beta", "Second tool.")])
    for _ in range(3):
        registry.search("first")
        registry.search("second", limit=1)
    assert computed == [["alpha", "beta"]]
    registry.deregister("beta")
    assert [t.name for t in registry.search("second tool")] == ["alpha"]
    registry.register(record("gamma", "Third tool."))
    registry.register(record("alpha", "First tool, changed."), replace=True)
    assert [t.name for t in registry.search("changed")] == ["alpha"]
    assert computed == [["alpha", "beta"], ["alpha", "gamma"]]


def test_ties_keep_registration_order() -> None:
    """Tools with equal scores come back in registration order, cut at the limit."""
    tools = [from_record(record("same_tool", "Identical description.")) for _ in range(20)]
    found = SearchIndex(tools).search("identical", limit=7)
    assert [id(t) for t in found] == [id(t) for t in tools[:7]]


def test_filters_are_cached_masks() -> None:
    """Category and tag filters apply before the limit, to lexical and semantic candidates."""
    registry = ToolRegistry([
        record(f"n{i}", "Common words here.", category="web" if i % 2 else "api",
               tags=["even"] if i % 2 == 0 else [])
        for i in range(10)
    ])  # fmt: skip
    web = registry.search("common", category="web", limit=3)
    assert len(web) == 3
    assert all(t.metadata.category.value == "web" for t in web)
    even = registry.search("common", tags=["even"], limit=2)
    assert len(even) == 2
    assert all("even" in t.metadata.tags for t in even)
    assert registry.search("common", category="web", limit=3) == web
    assert {t.name for t in registry.search("common", category="web")} == {
        f"n{i}" for i in range(1, 10, 2)
    }


def test_limit_must_be_positive() -> None:
    """A limit below 1 is rejected."""
    with pytest.raises(ValueError, match="limit must be at least 1"):
        ToolRegistry([record("a", "A.")]).search("a b", limit=0)


def test_unbuildable_schema_is_still_searchable_by_name() -> None:
    """A tool whose schema cannot compile is indexed by its name and description."""
    from forge.tools import Tool
    from forge.tools.schema import SchemaSource

    source = SchemaSource({"type": "object", "properties": 3}, None, "dict", False)
    broken = Tool(name="broken_tool", description="Fails to compile.", source=source)
    assert [t.name for t in SearchIndex([broken]).search("broken")] == ["broken_tool"]


WORDS = st.sampled_from(["weather", "file", "email", "stock", "note", "music", "flight", "sql"])


@settings(max_examples=40, deadline=None)
@given(
    descriptions=st.lists(st.lists(WORDS, min_size=1, max_size=4), min_size=1, max_size=12),
    query=st.lists(WORDS, min_size=1, max_size=3),
    limit=st.integers(min_value=1, max_value=15),
)
def test_results_are_matching_unique_and_bounded(
    descriptions: list[list[str]], query: list[str], limit: int
) -> None:
    """Results appear once, at most `limit`, never none; each shares a term or is near in meaning.

    Every tool sharing a term with the query is a candidate, so they fill the results
    up to `limit`; others join only by meaning, at or above the similarity floor while some
    tool shares a term (and the nearest ones join when none does).
    """
    tools = [from_record(record(f"t{i}", " ".join(words))) for i, words in enumerate(descriptions)]
    text = " ".join(query)
    results = ToolRegistry(tools).search(text, limit=limit)
    assert len(results) <= limit
    assert len({t.name for t in results}) == len(results)
    wanted = set(tokenize(text))
    matching = [t for t in tools if wanted & set(tokenize(t.description))]
    for t in results:
        if matching and not wanted & set(tokenize(t.description)):
            similarity = float(embed([text])[0] @ embed([_semantic_text(t)])[0])
            assert similarity >= SEMANTIC_FLOOR - 1e-6, (t.description, similarity)
    assert len(results) >= max(1, min(limit, len(matching)))


def test_searching_does_not_compile_schema_only_tools() -> None:
    """The index reads a record's schema as given; validators are built on first call only."""
    record = from_record({
        "name": "lookup_airport", "description": "Find an airport.", "handler": lambda a: a,
        "parameters": {"type": "object", "properties": {
            "iata_code": {"type": "string", "description": "Three-letter airport code"}}},
    })  # fmt: skip
    registry = ToolRegistry([record])
    assert [t.name for t in registry.search("airport by iata code")] == ["lookup_airport"]
    assert record._compiled is None
    assert registry.execute("lookup_airport", {"iata_code": "CDG"}).ok


def currency_registry() -> ToolRegistry:
    """Four tools; the converter shares no word with the currency questions below."""
    return ToolRegistry([
        record("convert_currency", "Convert money from one currency to another.", category="api"),
        record("find_dollar_store", "Find dollar stores nearby.", category="web"),
        record("send_email", "Send an email message.", category="api"),
        record("get_weather", "Current weather for a city.", category="web"),
    ])  # fmt: skip


def test_a_tool_sharing_no_word_with_the_query_is_found_by_meaning() -> None:
    """The embedding brings in a tool no query word names; unrelated tools stay out."""
    registry = currency_registry()
    for query in ("how many yen is 20 dollars", "How much is 100 euro in US dollars?"):
        names = [t.name for t in registry.search(query)]
        assert "convert_currency" in names, query
        assert not {"send_email", "get_weather"} & set(names), query


def test_tools_found_by_meaning_obey_the_filters() -> None:
    """A filter applies to the tools found by meaning as it does to the others."""
    registry = currency_registry()
    assert [t.name for t in registry.search("how many yen is 20 dollars", category="web")] == [
        "find_dollar_store",
    ]  # fmt: skip


def test_a_tool_is_found_by_meaning_when_no_tool_shares_a_query_word() -> None:
    """Finding a tool by meaning does not depend on another tool sharing a word with the query."""
    registry = ToolRegistry([
        record("convert_currency", "Convert an amount of money from one currency to another."),
        record("send_email", "Send an email message."),
    ])  # fmt: skip
    assert [t.name for t in registry.search("100 euro in US dollars")] == ["convert_currency"]


def test_a_query_sharing_no_word_with_any_tool_still_gets_the_nearest_by_meaning() -> None:
    """No term in common with any tool, or only stop words: the nearest tools by meaning."""
    registry = ToolRegistry([
        record("house_purchase_helper", "Guides the process of purchasing a house or flat."),
        record("send_email", "Send an email message."),
        record("get_weather", "Current weather for a city."),
    ])  # fmt: skip
    assert not tokenize("How do I buy a home?") or not any(
        set(tokenize("How do I buy a home?")) & set(tokenize(t.description)) for t in registry
    )
    assert registry.search("What are the steps to buy a home in Canada?")[0].name == (
        "house_purchase_helper"
    )
    for query in ("zzqx frobnicate", "lorem ipsum dolor", "what is it?", "天气"):
        assert registry.search(query), query
    assert registry.search(" ?! ") == []  # blank: no letter or digit, no question


def test_no_query_finds_nothing_while_the_filters_leave_tools() -> None:
    """Every query finds something among the tools the filters leave, and nothing when none."""
    registry = currency_registry()
    for query in ("zzqx frobnicate", "what is it?", "how many yen is 20 dollars"):
        found = registry.search(query, category="web")
        assert found, query
        assert {t.metadata.category.value for t in found} == {"web"}
    assert registry.search("zzqx frobnicate", tags=["missing"]) == []


def test_semantic_features_are_bounded_and_relative() -> None:
    """The cosine feature is clipped to [0, 1]; the relative one spans [0, 1] over candidates."""
    index = SearchIndex([
        from_record(record("convert_currency", "Convert money from one currency to another.")),
        from_record(record("find_dollar_store", "Find dollar stores nearby.")),
    ])  # fmt: skip
    _, rows = index.candidates("how many yen is 20 dollars")
    cosine = rows[:, FEATURES.index("semantic")]
    relative = rows[:, FEATURES.index("semantic_relative")]
    assert ((cosine >= 0) & (cosine <= 1)).all()
    assert sorted(relative.tolist()) == [0.0, 1.0]


def chinese_registry() -> ToolRegistry:
    """Tools described in Chinese beside tools described in English (names are English)."""
    return ToolRegistry([
        record("get_weather", "获取指定城市的天气预报。"),
        record("send_email", "发送电子邮件给联系人。"),
        record("stock_price", "查询股票的实时价格。"),
        record("book_flight", "预订两个机场之间的航班机票。"),
        record("translate_text", "Translate text between languages."),
    ])  # fmt: skip


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("北京明天的天气怎么样\uff1f", "get_weather"),
        ("帮我给老板发一封邮件", "send_email"),
        ("腾讯的股价是多少", "stock_price"),
        ("我想订一张去上海的机票", "book_flight"),
    ],
)
def test_a_chinese_question_finds_the_tool_described_in_chinese(query: str, expected: str) -> None:
    """Chinese words of a question match Chinese descriptions, written without spaces."""
    assert chinese_registry().search(query)[0].name == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What is the stock price of Tencent?", "stock_price"),
        ("Book a flight to 北京", "book_flight"),
        ("translate 你好 into English", "translate_text"),
    ],
)
def test_an_english_question_finds_its_tool_among_chinese_descriptions(
    query: str, expected: str
) -> None:
    """Chinese descriptions neither hide nor crowd out the English words of a question."""
    assert chinese_registry().search(query)[0].name == expected


def travel_registry() -> ToolRegistry:
    """Topical travel tools, many alike, beside the generic steps a task also needs."""
    topical = [
        record(f"search_flights_{carrier}", f"Search {carrier} flights between two airports.")
        for carrier in ("air", "budget", "charter", "regional", "premium", "cargo", "night")
    ]
    return ToolRegistry([
        *topical,
        record("book_flight", "Book a flight seat for a passenger."),
        record("flight_status", "Live status of a flight by its number."),
        record("lookup_airport_code", "The IATA code of the airport serving a city."),
        record("write_file", "Write text to a file on disk."),
        record("click_element", "Click an element of the open web page."),
        record("send_email", "Send an email message."),
        record("get_weather", "Current weather for a city."),
    ])  # fmt: skip


def test_a_multi_step_request_gets_every_tool_it_needs_in_the_top_ten() -> None:
    """Each step of a request is searched too, so the generic steps join the topical tool."""
    registry = travel_registry()
    query = (
        "Look up the airport code for Lyon, then search air flights from Paris to Lyon on "
        "May 3; after that write the cheapest ones to a file and finally click the book button."
    )
    found = [t.name for t in registry.search(query, limit=10)]
    assert {"lookup_airport_code", "search_flights_air", "write_file", "click_element"} <= set(
        found
    ), found


def test_a_single_step_request_is_searched_whole() -> None:
    """Without step markers the request is one part, ranked as before."""
    from forge.tools.search._intents import parts

    def has_terms(text: str) -> bool:
        return bool(tokenize(text))

    single = "Search air flights from Paris to Lyon. I am free on May 3."
    assert parts(single, has_terms) == [single]
    assert parts("1. clone the repo 2. build the image 3. push it", has_terms) == [
        "clone the repo", "build the image", "push it",
    ]  # fmt: skip
    assert parts("Find X, and then Y", has_terms) == ["Find X, and then Y"]  # one part has terms
    assert parts("查一下北京的天气\uff0c然后给老板发邮件。", has_terms) == [
        "查一下北京的天气",
        "给老板发邮件。",
    ]
    assert len(parts("我的月收入是8000。我想申请贷款。", has_terms)) == 1  # sentences: context
    steps = " ".join(f"{n}. step{n} work" for n in range(1, 9))
    assert parts(steps, has_terms)[:5] == [f"step{n} work" for n in range(1, 6)]
    assert parts(steps, has_terms)[5] == "step6 work step7 work step8 work"  # at most six
    assert travel_registry().search(single)[0].name == "search_flights_air"


def test_the_embedded_text_holds_name_description_and_parameters() -> None:
    """A tool is embedded as its name spelled out, its description, then its parameter text."""
    schema_only = from_record({
        "name": "getTrackInfo", "description": "Details of one item.", "handler": lambda a: a,
        "parameters": {"type": "object", "properties": {
            "song_title": {"type": "string", "description": "Title of the song"},
            "format": {"type": "string", "enum": ["mp3", "flac"]}}},
    })  # fmt: skip
    text = _semantic_text(schema_only)
    assert text.startswith("get Track Info. Details of one item. ")
    assert all(part in text for part in ("song_title", "Title of the song", "mp3", "flac"))
    assert schema_only._compiled is None

    @tool
    def play(playlist_name: str) -> str:
        """Play music.

        Args:
            playlist_name: The saved playlist to start.
        """
        return playlist_name

    assert _semantic_text(play) == "play. Play music. playlist_name The saved playlist to start."
    assert play._compiled is None
    bare = from_record({"name": "ping", "description": "Check the server.", "handler": len})
    assert _semantic_text(bare) == "ping. Check the server."


def test_a_tool_is_found_by_meaning_through_its_parameters() -> None:
    """Words only a parameter's description holds bring the tool in by meaning too."""
    registry = ToolRegistry([
        record("lookup", "Look something up.", parameters={"type": "object", "properties": {
            "ticker": {"type": "string", "description": "Stock exchange symbol of a company"}}}),
        record("send_email", "Send an email message."),
        record("get_weather", "Current weather for a city."),
    ])  # fmt: skip
    assert registry.search("share price of a listed firm")[0].name == "lookup"


def test_a_tools_document_and_vector_alone_are_the_ones_the_index_keeps() -> None:
    """``_document`` of one tool (what the benchmarks give bm25s) and ``embed`` of its text
    equal the parts the index computes for it within a batch."""
    from forge.tools.search import _document, _parts

    tools = [from_record(record("getTrackInfo", "Details of one item.", parameters={
                 "type": "object", "properties": {"song_title": {"type": "string"}}})),
             from_record(record("ping", "Check the server.", tags=["net"]))]  # fmt: skip
    for one, parts in zip(tools, _parts(tools), strict=True):
        assert list(parts.fields) == _document(one)
        assert parts.vector.tobytes() == embed([_semantic_text(one)])[0].tobytes()


def test_a_query_or_description_with_a_lone_surrogate_is_searched() -> None:
    """A lone surrogate (in a model's query or a tool's description) does not crash search."""
    registry = ToolRegistry()

    def lookup(city: str) -> str:
        return city

    registry.register(tool(lookup, name="weather", description="Weather \udc80 for a city."))
    assert [t.name for t in registry.search("weather \ud800 in Paris")] == ["weather"]


RELEVANCE_TOOLS = [
    record("get_weather", "Get the current weather forecast for a city."),
    record("convert_currency", "Convert an amount of money from one currency to another."),
    record("send_email", "Send an email message to a recipient."),
]


@pytest.mark.parametrize(
    ("query", "relevant"),
    [
        ("what's the weather in Paris", True),
        ("100 euro in US dollars", True),
        ("email Bob the report", True),
        ("quantum chromodynamics lattice", False),
        ("the migration patterns of arctic terns", False),
    ],
)
def test_relevant_only_finds_nothing_for_an_unrelated_query(query: str, relevant: bool) -> None:
    """The ranking always has tools; ``relevant_only`` returns none when none is relevant."""
    registry = ToolRegistry([from_record(r) for r in RELEVANCE_TOOLS])
    assert registry.search(query, limit=2)  # ranked, never filtered by default
    found = registry.search(query, limit=2, relevant_only=True)
    assert bool(found) is relevant
    if relevant:
        assert found == registry.search(query, limit=2)  # the gate never reorders
