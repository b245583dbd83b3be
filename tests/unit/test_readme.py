"""The README's and the documentation site's claims and examples hold (they say what is true).

Each ```python block after a ``<!-- test: NAME -->`` comment, in README.md or a page under
docs/, runs here (or in the test named for it) as written. The provider
examples run against the official SDK clients, whose HTTP transport is replaced by a fake API
that serves model replies built from the SDK's own response types and records every request,
so the requests the examples send are checked against the SDK's request types.
"""

from __future__ import annotations

import functools
import json
import re
import tomllib
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from pydantic import TypeAdapter

from forge.examples import example_registry
from forge.tools import ToolRegistry, from_record

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
_BLOCK = re.compile(r"<!-- test: ([a-z0-9-]+) -->\n```python\n(.*?)\n```", re.DOTALL)
WEATHER = {"location": "Paris", "temp": 21, "unit": "c"}
BAD_UNIT = {"location": "Rome", "unit": "kelvin"}


def pages() -> list[Path]:
    """README.md and every page of the documentation site."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def documentation() -> str:
    """The text of README.md and of every documentation page."""
    return "\n".join(page.read_text(encoding="utf-8") for page in pages())


@cache
def blocks() -> dict[str, str]:
    """The tested code blocks of the README and the documentation pages, by name."""
    found = _BLOCK.findall(documentation())
    names = [name for name, _ in found]
    assert len(names) == len(set(names)), names
    return dict(found)


def run_block(name: str, namespace: dict[str, Any]) -> dict[str, Any]:
    """Execute one documented block in ``namespace`` (as the next cell of one session)."""
    # dont_inherit: the block runs as a user's script would, without this module's __future__.
    code = compile(blocks()[name], f"<!-- test: {name} -->", "exec", dont_inherit=True)
    exec(code, namespace)
    return namespace


def session() -> dict[str, Any]:
    """A namespace holding what the 'Defining tools' guide defines (`registry`, `get_weather`)."""
    return run_block("define", {"__name__": "readme"})


def exact(kind: Any) -> Callable[[Any], None]:
    """Check a value against an SDK TypedDict; validation drops unknown keys, equality sees them."""
    adapter: TypeAdapter[Any] = TypeAdapter(kind)

    def check(value: Any) -> None:
        assert adapter.validate_python(value) == value

    return check


class FakeAPI:
    """A model provider's HTTP API: serves scripted replies and records the JSON requests.

    Replies are ``(content type, body)`` pairs. ``http`` is the HTTP package the SDK uses
    (anthropic has moved to httpx2, which has the same interface).
    """

    def __init__(self, *replies: tuple[str, str], http: Any = httpx) -> None:
        self.replies = list(replies)
        self.sent: list[dict[str, Any]] = []
        self.http = http
        self.sync_clients: list[Any] = []

    def __call__(self, request: Any) -> Any:
        self.sent.append(json.loads(request.content))
        content_type, body = self.replies.pop(0)
        return self.http.Response(200, headers={"content-type": content_type}, content=body)

    def client(self) -> Any:
        """A sync HTTP client talking to this fake."""
        self.sync_clients.append(self.http.Client(transport=self.http.MockTransport(self)))
        return self.sync_clients[-1]

    def async_client(self) -> Any:
        """An async HTTP client talking to this fake."""
        return self.http.AsyncClient(transport=self.http.MockTransport(self))


@pytest.fixture
def fakes() -> Iterator[list[FakeAPI]]:
    """Fake APIs made by a test; their sync clients are closed afterwards."""
    made: list[FakeAPI] = []
    yield made
    for api in made:
        for client in api.sync_clients:
            client.close()


def dumped(model: Any) -> tuple[str, str]:
    """A JSON reply holding an SDK response object, as the API would send it."""
    return "application/json", model.model_dump_json(by_alias=True, exclude_none=True)


# -- Anthropic Messages (the chart example) -------------------------------------------


def anthropic_message(content: list[dict[str, Any]]) -> Any:
    """An Anthropic `Message` with these content blocks."""
    from anthropic.types import Message

    tool_use = any(block["type"] == "tool_use" for block in content)
    return Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": content, "stop_reason": "tool_use" if tool_use else "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 10},
    })  # fmt: skip


# -- The README's tour -------------------------------------------------------------------


def test_tour_runs_offline(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tour defines, exports, runs a model's turn from a dict and serves the registry."""
    import forge.mcp

    served: list[tuple[Any, dict[str, Any]]] = []
    monkeypatch.setattr(forge.mcp, "serve", lambda registry, **kw: served.append((registry, kw)))
    namespace = run_block("tour", {"__name__": "readme"})
    assert capsys.readouterr().out == "{'city': 'Paris', 'temp': 21, 'unit': 'c'}\n"
    [anthropic] = namespace["tools"]
    assert anthropic["name"] == "get_weather"
    assert anthropic["input_schema"]["required"] == ["city"]
    assert [result.success for result in namespace["turn"].results] == [True]
    [assistant, reply] = namespace["messages"]
    assert assistant["role"] == "assistant"
    assert reply["content"][0]["type"] == "tool_result"
    assert served == [(namespace["registry"], {"transport": "http", "port": 8765})]


# -- Conversion -----------------------------------------------------------------------


def test_conversion_example(capsys: pytest.CaptureFixture[str]) -> None:
    """The long description is cut at a sentence, reported, and offered for the system prompt."""
    from openai.types.chat import ChatCompletionToolParam

    namespace = run_block("conversion", session())
    about, system = namespace["about"], namespace["system"]
    [weather, fetch] = namespace["request"]["tools"]
    exact(ChatCompletionToolParam)(fetch)
    kept = fetch["function"]["description"]
    assert len(kept) <= 1024 < len(about)
    assert about.startswith(kept + " ")
    assert kept.endswith("markdown.")
    assert "fetch -> openai:\n  /: description shortened: " in capsys.readouterr().out
    assert system.endswith(about[len(kept) :].strip())
    assert namespace["registry"].to_provider("openai") == [weather, fetch]


# -- Content -------------------------------------------------------------------------------


def chart_session(
    fakes: list[FakeAPI], monkeypatch: pytest.MonkeyPatch
) -> tuple[FakeAPI, dict[str, Any]]:
    """Run the chart example against a fake Messages API that calls the chart tool once."""
    import anthropic

    api = FakeAPI(
        dumped(anthropic_message([
            {"type": "tool_use", "id": "toolu_9", "name": "bar_chart",
             "input": {"values": [30, 80, 55]}},
        ])),
        dumped(anthropic_message([{"type": "text", "text": "The second bar."}])),
        http=httpx2,
    )  # fmt: skip
    fakes.append(api)
    monkeypatch.setattr(anthropic, "Anthropic", functools.partial(
        anthropic.Anthropic, api_key="test", http_client=api.client(), max_retries=0))  # fmt: skip
    return api, run_block("content-anthropic", session())


def test_content_anthropic_round_trip(
    fakes: list[FakeAPI], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The chart tool's answer reaches Anthropic as a text block and a PNG image block."""
    import base64
    import io

    from anthropic.types import MessageParam
    from PIL import Image

    api, _ = chart_session(fakes, monkeypatch)
    assert capsys.readouterr().out == "The second bar.\n"
    answer = api.sent[1]["messages"][-1]
    assert _read(TypeAdapter(MessageParam).validate_python(answer)) == answer
    [result] = answer["content"]
    text, image = result["content"]
    assert text == {"type": "text", "text": "A chart of 3 bars:"}
    assert (image["type"], image["source"]["media_type"]) == ("image", "image/png")
    picture = Image.open(io.BytesIO(base64.b64decode(image["source"]["data"])))
    assert picture.size == (60, 100)
    assert picture.getpixel((30, 50)) == (0, 0, 128)  # inside the 80-high middle bar


def test_content_mcp_example(
    fakes: list[FakeAPI], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Over MCP the chart is a text block and an image block, for the official client."""
    _, namespace = chart_session(fakes, monkeypatch)
    capsys.readouterr()
    run_block("content-mcp", namespace)
    assert capsys.readouterr().out == "[('text', None), ('image', 'image/png')]\n"


def _read(value: Any) -> Any:
    """A validated value with the iterables pydantic validates lazily read into lists."""
    if isinstance(value, dict):
        return {k: _read(v) for k, v in value.items()}
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return [_read(v) for v in value]


# -- Talking to the caller --------------------------------------------------------------


def test_channel_example(capsys: pytest.CaptureFixture[str]) -> None:
    """The tool asks, reports three steps and logs; the callbacks see it all."""
    import asyncio
    import textwrap

    body = "async def main():\n" + textwrap.indent(blocks()["channel"], "    ")
    body += "\n    return result, seen\n"
    namespace: dict[str, Any] = {"__name__": "readme"}
    exec(compile(body, "<!-- test: channel -->", "exec", dont_inherit=True), namespace)
    result, seen = asyncio.run(namespace["main"]())
    assert result.output == "report with 3 rows"
    assert [p.message for p in seen] == ["row 1", "row 2", "row 3"]
    assert "LogMessage(level='info', message='3 rows built'" in capsys.readouterr().out


# -- Output schemas ---------------------------------------------------------------------


def test_output_schema_example() -> None:
    """A model return gives an output schema (aliases as sent), carried by MCP alone; the
    value stays a model in Python and goes to MCP as the structuredContent of its schema."""
    import mcp_types as types
    from anthropic.types import ToolParam

    namespace = run_block("output-schema", session())
    registry, forecast = namespace["registry"], namespace["forecast"]
    assert forecast.output_schema == {
        "type": "object", "title": "Forecast",
        "properties": {"city": {"type": "string"}, "highC": {"type": "number"}},
        "required": ["city", "highC"],
    }  # fmt: skip
    [result] = namespace["results"]
    assert result.output == namespace["Forecast"](city="Paris", highC=24.0)
    [reply] = namespace["format_results"](namespace["results"], "mcp", tools=registry)
    assert types.CallToolResult.model_validate(reply).structured_content == {
        "city": "Paris", "highC": 24.0,
    }  # fmt: skip
    [listed] = registry.to_provider("mcp", allowed=["forecast"])
    assert types.Tool.model_validate(listed).output_schema == forecast.output_schema
    [anthropic] = registry.to_provider("anthropic", allowed=["forecast"])
    exact(ToolParam)(anthropic)


# -- Claims in the text -----------------------------------------------------------------


def test_every_tested_block_is_run() -> None:
    """Each marked block has a test here (a new block cannot go untested)."""
    tested = {"tour", "define", "langchain",
              "conversion", "content-anthropic", "content-mcp", "channel",
              "output-schema"}  # fmt: skip
    # The tool loops run against a local API in tests/integration/turns.
    tested |= {
        "turn-openai",
        "turn-responses",
        "turn-anthropic",
        "turn-gemini",
        "turn-openai-stream",
        "turn-anthropic-stream",
        "turn-gemini-stream",
    }
    tested |= {"frameworks-executor", "pydantic-ai", "openai-agents"}  # test_readme_frameworks
    tested |= {"deferred-native", "deferred-session"}  # tests/integration/turns
    assert set(blocks()) == tested


def test_search_finds_a_currency_converter_by_meaning() -> None:
    """The search example of the search guide, run exactly as written there."""
    text = documentation()
    query = re.search(r'`registry\.search\("([^"]+)"\)` finds the bundled `(\w+)` tool', text)
    described = re.search(r'a `(\w+)` tool described as "([^"]+)"', text)
    assert query is not None
    assert described is not None
    assert [t.name for t in example_registry().search(query[1])][:1] == [query[2]]
    name, description = described.groups()
    converter = from_record({
        "name": name, "description": description, "handler": lambda args: args,
        "parameters": {"type": "object", "properties": {
            "amount": {"type": "number", "description": "The amount of money"},
            "from_currency": {"type": "string", "description": "ISO 4217 code, e.g. EUR"},
            "to_currency": {"type": "string", "description": "ISO 4217 code, e.g. USD"}}},
    })  # fmt: skip
    assert [t.name for t in ToolRegistry([converter]).search(query[1])] == [name]
    with_examples = example_registry()
    with_examples.register(converter)
    assert [t.name for t in with_examples.search(query[1])][:2] == [name, query[2]]


def test_the_readme_searches_find_the_currency_tool_in_english_and_chinese() -> None:
    """The README's ``forge-tools search`` lines, on the bundled tools they search."""
    queries = re.findall(r'forge-tools search "([^"]+)"', README.read_text(encoding="utf-8"))
    assert len(queries) == 2
    assert any(re.search("[\u4e00-\u9fff]", q) for q in queries)  # one is in Chinese
    for query in queries:
        assert [t.name for t in example_registry().search(query)][:1] == ["exchange_rate"], query


def test_install_instructions_name_the_wheel_that_is_built() -> None:
    """The wheel named in the docs matches the project's version; no PyPI install is shown."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    text = documentation()
    wheel = f"dist/forge_tools-{project['version']}-py3-none-any.whl[mcp]"
    assert f"pip install '{wheel}'" in text
    named = set(re.findall(r"dist/forge_tools-[^\s'`]+", text))
    assert named <= {wheel, wheel.removesuffix("[mcp]")}
    assert not re.search(r"pip install '?forge-tools", text.replace(
        "so `pip install forge-tools` does not install it", ""))  # fmt: skip


def test_strict_mode_paragraph_holds() -> None:
    """OpenAI strict mode sends null and JSON text; every execution maps them back, no switch."""
    from forge.tools import ToolCall, ToolExecutor
    from forge.tools import tool as make_tool

    @make_tool
    def find(query: str, options: dict[str, object], limit: int = 10) -> list[object]:
        """Find things.

        Args:
            query: What to find.
            options: Search options.
            limit: The most results.
        """
        return [query, options, limit]

    registry = ToolRegistry([find])
    [exported] = registry.to_provider("openai", strict=True)
    properties = exported["function"]["parameters"]["properties"]
    assert properties["limit"]["type"] == ["integer", "null"]
    assert properties["options"]["type"] == "string"
    call = ToolCall("c1", "find", {"query": "q", "options": '{"fuzzy": true}', "limit": None})
    assert registry.execute_all([call])[0].output == ["q", {"fuzzy": True}, 10]
    assert registry.execute("find", dict(call.arguments)).output == ["q", {"fuzzy": True}, 10]
    assert ToolExecutor(registry).execute_call_sync(call).output == ["q", {"fuzzy": True}, 10]
