"""Output limits: what goes to the model is cut, with a note; the caller keeps everything."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge.tools import (
    Image,
    OutputLimit,
    Text,
    ToolDefinitionError,
    ToolExecutor,
    ToolRegistry,
    ToolResult,
    format_results,
    tool,
)
from forge.tools.parsing import PROVIDERS
from forge.tools.replies._limit import cut_text, limit_parts
from forge.tools.values.content import File
from forge.tools.values.output_limit import DEFAULT_OUTPUT_LIMIT, MIN_CHARS
from tests.unit.tools.content_samples import PNG

MEGABYTE = "0123456789abcdef" * 65_536


def _text_sent(provider: str, messages: list[dict[str, Any]]) -> str:
    """The text one result sends the model, for the text-carrying formats."""
    first = messages[0]
    return {
        "openai": lambda: first["content"],
        "openai-responses": lambda: first["output"],
        "anthropic": lambda: first["content"][0]["content"],
        "gemini": lambda: first["parts"][0]["functionResponse"]["response"]["output"],
        "ollama": lambda: first["content"],
        "bedrock": lambda: first["content"][0]["toolResult"]["content"][0]["text"],
        "mistral": lambda: first["content"],
        "mcp": lambda: first["content"][0]["text"],
    }[provider]()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_megabyte_never_reaches_the_model_whole(provider: str) -> None:
    """A 1 MB output is cut to the default limit everywhere, with a note in the middle."""
    result = ToolResult.ok(MEGABYTE).for_call("call_1", "dump")
    text = _text_sent(provider, format_results(result, provider))
    assert len(text) == DEFAULT_OUTPUT_LIMIT.max_chars
    assert text.startswith(MEGABYTE[:1000])
    assert text.endswith(MEGABYTE[-1000:])
    assert "it has 1,048,576 characters, over the limit of 100,000" in text
    assert "asking for less" in text
    assert result.output == MEGABYTE


def test_json_over_the_limit_is_sent_as_cut_text() -> None:
    """An object too big for the limit goes as cut JSON text, not as structured data."""
    big = {"rows": [{"id": i, "name": f"row {i}"} for i in range(20_000)]}
    result = ToolResult.ok(big).for_call("c", "t")
    (gemini,) = format_results(result, "gemini", limit=5_000)
    output = gemini["parts"][0]["functionResponse"]["response"]["output"]
    assert isinstance(output, str)
    assert len(output) == 5_000
    (mcp,) = format_results(result, "mcp", limit=5_000)
    assert "structuredContent" not in mcp
    assert mcp["_meta"] == {"forge-tools/truncated": True}
    (bedrock,) = format_results(result, "bedrock", limit=5_000)
    assert "text" in bedrock["content"][0]["toolResult"]["content"][0]


def test_images_over_the_byte_limit_are_left_out_with_a_note() -> None:
    """Binary parts beyond max_bytes are replaced by one note; the others keep their order."""
    big = Image(PNG + bytes(4000), "image/png")
    parts = [Text("a"), Image(PNG), big, big]
    kept, cut = limit_parts(parts, OutputLimit(max_bytes=len(PNG) + 100))
    assert cut
    assert kept[:2] == [Text("a"), Image(PNG)]
    assert len(kept) == 3
    note = kept[2]
    assert isinstance(note, Text)
    assert note.text.startswith("[2 attachments left out (image/png, 4.0 KiB; image/png, 4.0 KiB)")


def test_text_parts_and_text_files_share_the_character_limit() -> None:
    """The text of all parts is one stream, cut in the middle; images are untouched."""
    parts = [Text("A" * 3000), Image(PNG), File("B" * 3000, "text/plain"), Text("C" * 3000)]
    kept, cut = limit_parts(parts, OutputLimit(max_chars=2000))
    assert cut
    texts = [p.text if isinstance(p, Text) else p.data for p in kept if not isinstance(p, Image)]
    assert sum(len(t) for t in texts) == 2000  # type: ignore[misc]
    assert texts[0].startswith("AAA")  # type: ignore[union-attr]
    assert texts[-1].endswith("CCC")  # type: ignore[union-attr]
    assert Image(PNG) in kept
    assert not any(isinstance(p, File) for p in kept)  # wholly in the cut middle


def test_the_tool_limit_beats_the_executor_limit() -> None:
    """A tool's output_limit overrides its executor's, which overrides the default."""

    @tool(output_limit=1_000)
    def small() -> str:
        """Return a lot."""
        return "x" * 50_000

    @tool
    def plain() -> str:
        """Return a lot."""
        return "y" * 50_000

    executor = ToolExecutor(ToolRegistry([small, plain]), output_limit={"max_chars": 3_000})
    one = executor.execute_sync("small")
    two = executor.execute_sync("plain")
    assert one.output_limit == OutputLimit(max_chars=1_000)
    assert two.output_limit == OutputLimit(max_chars=3_000)
    assert len(format_results(one.for_call("a", "small"), "openai")[0]["content"]) == 1_000
    assert len(format_results(two.for_call("b", "plain"), "openai")[0]["content"]) == 3_000
    assert len(ToolRegistry([plain]).execute("plain", {}).output) == 50_000


def test_no_limit_means_whole() -> None:
    """None turns a limit off."""
    result = ToolResult.ok(
        MEGABYTE,
    ).for_call("c", "t")
    unlimited = OutputLimit(max_chars=None, max_bytes=None)
    assert format_results(result, "openai", limit=unlimited)[0]["content"] == MEGABYTE


def test_bad_limits_are_refused() -> None:
    """Limits too small to hold the note, or of the wrong type, say what is allowed."""
    with pytest.raises(ValueError, match=f"at least {MIN_CHARS}"):
        OutputLimit(max_chars=10)
    with pytest.raises(TypeError, match="int or None"):
        OutputLimit(max_bytes=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown output_limit key"):
        OutputLimit.coerce({"chars": 5000})

    def handler() -> None:
        """Do nothing."""

    with pytest.raises(ToolDefinitionError, match="output_limit"):
        tool(output_limit="big")(handler)  # type: ignore[call-overload]


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(min_size=0, max_size=5_000),
    max_chars=st.integers(min_value=MIN_CHARS, max_value=4_000),
)
def test_a_cut_never_passes_the_limit(text: str, max_chars: int) -> None:
    """Cut text fits the limit, keeps the start and end, and stays valid UTF-8."""
    out, cut = cut_text(text, max_chars)
    assert len(out) <= max_chars
    assert cut == (len(text) > max_chars)
    out.encode("utf-8")  # strict: no lone surrogates made by the cut
    if cut:
        assert out.startswith(text[: (max_chars - 400) // 2])
        assert out.endswith(text[len(text) - (max_chars - 400) // 2 :])


@settings(max_examples=200, deadline=None)
@given(
    pairs=st.integers(min_value=600, max_value=3_000),
    max_chars=st.integers(min_value=MIN_CHARS, max_value=2_000),
)
def test_a_cut_never_splits_a_surrogate_pair(pairs: int, max_chars: int) -> None:
    """Text holding surrogate pairs (as from UTF-16 sources) is cut between pairs."""
    text = "\ud83d\ude00" * pairs
    out, _ = cut_text(text, max_chars)
    assert len(out) <= max_chars
    for i, char in enumerate(out):
        if "\ud800" <= char <= "\udbff":
            assert "\udc00" <= out[i + 1] <= "\udfff"
        if "\udc00" <= char <= "\udfff":
            assert "\ud800" <= out[i - 1] <= "\udbff"


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(st.text(max_size=1_500), max_size=6),
    images=st.lists(st.integers(min_value=1, max_value=3_000), max_size=4),
    max_chars=st.integers(min_value=MIN_CHARS, max_value=3_000),
    max_bytes=st.integers(min_value=0, max_value=6_000),
)
def test_parts_never_pass_either_limit(
    texts: list[str], images: list[int], max_chars: int, max_bytes: int
) -> None:
    """Whatever the mix, the text sent stays within max_chars and the bytes within max_bytes."""
    parts = [Text(t) for t in texts] + [Image(bytes(n), "image/png") for n in images]
    kept, _ = limit_parts(parts, OutputLimit(max_chars=max_chars, max_bytes=max_bytes))
    assert sum(len(p.text) for p in kept if isinstance(p, Text)) <= max_chars
    assert sum(len(p.data) for p in kept if isinstance(p, Image)) <= max_bytes
