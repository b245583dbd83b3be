"""Multi-step requests: steps in several languages, toolkit mates and the tools that find ids."""

from __future__ import annotations

from typing import Any

import pytest

from forge.tools import ToolRegistry, from_record
from forge.tools.search import tokenize
from forge.tools.search._intents import interleave, parts
from forge.tools.search._together import (
    TOOLKIT_MAX,
    id_given,
    needed_entities,
    toolkit_key,
    toolkit_mates,
    toolkits,
)


def record(name: str, description: str, **extra: Any) -> dict[str, Any]:
    """A schema-only tool record."""
    return {"name": name, "description": description, "handler": lambda args: args, **extra}


def needs_id(name: str, description: str, *ids: str) -> dict[str, Any]:
    """A schema-only tool record whose call requires the parameters ``ids``."""
    properties = {p: {"type": "string"} for p in ids}
    schema = {"type": "object", "properties": properties, "required": list(ids)}
    return record(name, description, parameters=schema)


def has_terms(text: str) -> bool:
    return bool(tokenize(text))


@pytest.mark.parametrize(
    ("query", "steps"),
    [
        ("Suche das Wetter in Berlin und dann buche ein Hotel",
         ["Suche das Wetter in Berlin", "buche ein Hotel"]),
        ("Cherche la météo à Paris, puis réserve un hôtel",
         ["Cherche la météo à Paris", "réserve un hôtel"]),
        ("Predict the demand for Product A. Following this, plan the inventory",
         ["Predict the demand for Product A.", "plan the inventory"]),
        ("Check the cash flow, subsequently assess the risk and ultimately advise",
         ["Check the cash flow", "assess the risk", "advise"]),
        ("Busca el clima en Madrid y luego reserva un hotel",
         ["Busca el clima en Madrid", "reserva un hotel"]),
        ("東京の天気を調べて\u3001それから会議室を予約して",
         ["東京の天気を調べて", "会議室を予約して"]),
        ("帮我查询订单状态\uff0c并取消这个订单", ["帮我查询订单状态", "取消这个订单"]),
        ("先登录系统\uff0c再查看余额\uff0c同时把结果发给我",
         ["先登录系统", "查看余额", "把结果发给我"]),
        ("先查詢訂單狀態\uff0c然後取消這個訂單", ["先查詢訂單狀態", "取消這個訂單"]),  # traditional
        ("計算面積。之後\uff0c告訴我時差", ["計算面積", "告訴我時差"]),  # after a sentence
        ("首先\uff0c預訂酒店。其次\uff0c查時差。第三\uff0c計算BMI",
         ["首先\uff0c預訂酒店", "查時差", "計算BMI"]),  # ordinals with a comma
    ],
)  # fmt: skip
def test_steps_are_cut_at_the_sequencing_words_of_other_languages(
    query: str, steps: list[str]
) -> None:
    assert parts(query, has_terms) == steps


def test_chinese_and_or_again_cut_only_after_a_comma() -> None:
    """并 and 再 are parts of common words (合并: merge); alone after a comma they chain steps."""
    assert parts("合并两个文件并发送", has_terms) == ["合并两个文件并发送"]
    assert parts("Dann ist es gut", has_terms) == ["Dann ist es gut"]  # one part has terms
    assert parts("第二天的天氣怎麼樣", has_terms) == ["第二天的天氣怎麼樣"]  # "the second day"


def test_toolkits_are_name_prefixes_of_a_few_tools() -> None:
    """A shared prefix makes a toolkit; a prefix of one tool or of very many does not."""
    many = [record(f"big__t{i}", "x") for i in range(TOOLKIT_MAX + 1)]
    tools = [from_record(r) for r in [
        record("mail__send", "Send."), record("mail__folders", "List folders."),
        record("lonely__one", "Alone."), record("plain", "No prefix."),
        record("a_b", "x", display_name="Quotes API / Random quote"),
        record("c_d", "x", display_name="Quotes API / Authors"), *many,
    ]]  # fmt: skip
    kits = toolkits([toolkit_key(t.name, t.metadata.display_name) for t in tools])
    assert kits.keys[:6] == ["mail", "mail", None, None, "quotes api", "quotes api"]
    assert set(kits.keys[6:]) == {None}
    assert kits.members == {"mail": [0, 1], "quotes api": [4, 5]}
    # The mates of the rankings' heads: those ranked first, then the rest of the toolkit.
    assert toolkit_mates(kits, [[2, 4], [0, 3]], heads=1) == [0, 1]
    assert toolkit_mates(kits, [[2, 4], [1, 5, 3]], heads=2) == [4, 5, 1, 0]
    assert toolkit_mates(kits, [[2, 3]], heads=2) == []


def test_the_entity_whose_id_a_tool_needs() -> None:
    tools = [from_record(r) for r in [
        needs_id("movie_release_dates", "Release dates.", "movie_id", "region"),
        {**needs_id("get_albums_id", "An album.", "id"), "display_name": "GET /albums/{id}"},
        needs_id("getTrack", "A track.", "artistId", "track_ids"),
        needs_id("ping", "Ping.", "id"),
    ]]  # fmt: skip
    assert needed_entities(tools[0], ["movie_id", "region"]) == [("movie",)]
    assert needed_entities(tools[1], ["id"]) == [("album",)]
    assert needed_entities(tools[2], ["artistId", "track_ids"]) == [("artist",), ("track",)]
    assert needed_entities(tools[3], ["id"]) == []  # no word before "id" in the name
    assert id_given("Get the movie with ID 18", ("movie",))
    assert id_given("Profile of customer C879L9SP2, please", ("customer",))
    assert not id_given("When was the movie Titanic released?", ("movie",))


def movie_registry() -> ToolRegistry:
    return ToolRegistry([
        needs_id("movie_release_dates", "Get the release dates of a movie.", "movie_id"),
        needs_id("movie_reviews", "Get the user reviews of a movie.", "movie_id"),
        needs_id("movie_credits", "Get the cast and crew of a movie.", "movie_id"),
        record("search_movie", "Search for movies by their original, translated and "
               "alternative titles.", parameters={"type": "object", "properties": {
                   "query": {"type": "string"}}, "required": ["query"]}),
        record("search_person", "Search for people by name."),
        record("popular_tv", "The current popular TV shows."),
        record("send_email", "Send an email message."),
    ])  # fmt: skip


def test_a_tool_that_needs_an_id_brings_the_tool_that_finds_it() -> None:
    """ "When was Titanic released" names the release dates; the movie's id must be found
    first, so the search for movies joins the first results."""
    registry = movie_registry()
    found = [t.name for t in registry.search("When was the movie Titanic released?", limit=2)]
    assert found[0] == "movie_release_dates"
    assert found == ["movie_release_dates", "search_movie"], found


def test_no_finder_when_the_request_gives_the_id() -> None:
    registry = movie_registry()
    found = [t.name for t in registry.search("Reviews of the movie with id 597", limit=3)]
    assert found[0] == "movie_reviews"
    assert "search_movie" not in found, found


def test_a_multi_step_request_brings_the_toolkit_of_its_best_tools() -> None:
    """A mail server's other tools join a request that names its topic but not every tool."""
    distractors = [record(f"tool_{i}", f"Record the {w} of a project.") for i, w in
                   enumerate(["budget", "plan", "notes", "risks", "scope", "owner", "goals",
                              "milestones", "report", "folder", "inbox", "archive"])]  # fmt: skip
    registry = ToolRegistry([
        record("mail__send_message", "Send an email message to a recipient."),
        record("mail__list_mailboxes", "The names of the account's mailboxes."),
        record("weather__forecast", "The weather forecast for a city."),
        record("weather__alerts", "Storm warnings in a region."),
        *distractors,
    ])  # fmt: skip
    query = "Email the team the project notes, then tell me the forecast for Lyon."
    found = [t.name for t in registry.search(query, limit=10)]
    assert {"mail__send_message", "weather__forecast", "mail__list_mailboxes"} <= set(found), found
    assert "mail__list_mailboxes" not in [t.name for t in registry.search(query, limit=15)][10:]
    for limit in range(1, len(registry) + 2):  # however short the list, it keeps to the limit
        assert len(registry.search(query, limit=limit)) == min(limit, len(registry))


def test_interleave_stops_when_the_skipped_tools_fill_the_limit() -> None:
    assert interleave([[1, 2], [3, 4]], limit=2, skip=[7, 8]) == []
    assert interleave([[1, 2], [3, 4]], limit=3, skip=[7, 8]) == [1]
    assert interleave([[1, 2], [2, 4]], limit=9) == [1, 2, 4]
