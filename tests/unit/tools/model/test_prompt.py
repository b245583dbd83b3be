"""Prompt generation checked against golden files for every option combination."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from forge.tools import PromptOptions, ToolRegistry, create_tool, tool

GOLDEN = Path(__file__).parent / "golden" / "prompt"
UPDATE = os.environ.get("FORGE_UPDATE_GOLDEN") == "1"


class ReadFileInput(BaseModel):
    """Arguments of read-file."""

    path: str = Field(description="Path to the file to read")
    encoding: Literal["utf-8", "ascii", "base64"] = "utf-8"


def registry() -> ToolRegistry:
    """Seed 001's read-file plus tools in three more categories."""
    read_file = (
        create_tool().name("read-file").display_name("Read File")
        .description("Read the contents of a file from the file system")
        .category("file-system").tags(["file", "read", "io"]).schema(ReadFileInput)
        .example({"description": "Read a text file",
                  "input": {"path": "./README.md", "encoding": "utf-8"},
                  "output": "# My Project\n\nWelcome to..."})
        .example({"description": "Read a binary file as base64",
                  "input": {"path": "./image.png", "encoding": "base64"}})
        .usage_notes("Paths are relative to the current working directory")
        .limitations(["Cannot read files larger than 10MB", "Requires read permissions"])
        .implement(lambda args: "")
        .build()
    )  # fmt: skip

    @tool(name="write-file", category="file-system")
    def write_file(path: str, content: str) -> None:
        """Write content to a file."""

    page = {"description": "Fetch a page", "input": {"url": "https://example.com"}}

    @tool(name="http-request", category="web", usage_notes="Only GET and POST.", examples=[page])
    def http_request(url: str, headers: dict[str, str] | None = None) -> str:
        """Make an HTTP request."""
        return url

    @tool(category="utility", deprecated=True, replaced_by="now",
          limitations=["UTC only"])  # fmt: skip
    def clock() -> str:
        """Tell
        the time."""
        return ""

    rows = {"description": "Two ids", "input": {"ids": [1, 2], "filters": {"a": {"b": 1}}}}

    @tool(category="database", examples=[rows])
    def fetch_rows(ids: list[int], filters: dict[str, Any] | None = None) -> list[Any]:
        """Fetch rows by id."""
        return []

    return ToolRegistry([read_file, http_request, write_file, clock, fetch_rows])


FLAGS = ("include_examples", "include_notes", "include_limitations", "group_by_category")
COMBINATIONS: list[dict[str, Any]] = [
    dict(zip(FLAGS, values, strict=True)) for values in itertools.product([True, False], repeat=4)
]
COMBINATIONS += [
    {"categories": ["file-system"]},
    {"categories": ["web", "database"], "group_by_category": False},
    {"max_examples_per_tool": 1},
    {"max_examples_per_tool": 0},
    {"categories": ["notebook"]},
]


def golden_name(options: dict[str, Any]) -> str:
    """A stable file name for an option combination."""
    parts = []
    for key, value in sorted(options.items()):
        shown = "-".join(value) if isinstance(value, list) else str(value).lower()
        parts.append(f"{key}={shown}")
    return "__".join(parts) + ".txt"


@pytest.mark.parametrize("options", COMBINATIONS, ids=golden_name)
def test_prompt_matches_golden_file(options: dict[str, Any]) -> None:
    """The prompt for this option combination equals its golden file."""
    text = registry().generate_prompt(**options)
    path = GOLDEN / golden_name(options)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    assert text + "\n" == path.read_text(encoding="utf-8")


def test_default_prompt_follows_the_seed_layout() -> None:
    """The default prompt renders the original design's read-file block exactly."""
    text = registry().generate_prompt()
    assert text.startswith("Available Tools:\n\nFILE SYSTEM TOOLS:\n- read-file: Read the")
    assert (
        "  Parameters: path (string), encoding (utf-8|ascii|base64)\n"
        "  Example: Read a text file\n"
        '    Input: { "path": "./README.md", "encoding": "utf-8" }\n'
    ) in text
    assert "\n\nWEB TOOLS:\n- http-request: Make an HTTP request.\n" in text


def test_prompt_is_deterministic_and_cached() -> None:
    """Two registries with the same tools give the same text; a mutation changes it."""
    first, second = registry(), registry()
    assert first.generate_prompt() == second.generate_prompt()
    assert first.generate_prompt() is first.generate_prompt()
    first.deregister("clock")
    assert "clock" not in first.generate_prompt()


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"categories": ["planets"]}, "unknown tool category"),
        ({"max_examples_per_tool": -1}, "non-negative"),
    ],
)
def test_invalid_options(options: dict[str, Any], match: str) -> None:
    """Unknown categories and negative limits are rejected."""
    with pytest.raises(ValueError, match=match):
        registry().generate_prompt(**options)


def test_empty_registry() -> None:
    """An empty registry says it has no tools."""
    assert ToolRegistry().generate_prompt() == "Available Tools:\n\n(no tools)"


def test_schema_shapes_render() -> None:
    """Nested types, const, type lists, refs and untyped parameters render readably."""
    from forge.tools.model.prompt import _parameters

    schema = {
        "type": "object",
        "$defs": {"Point": {"type": "object"}},
        "properties": {
            "a": {"const": 3}, "b": {"type": ["string", "null"]}, "c": {"$ref": "#/$defs/Point"},
            "d": {}, "e": {"allOf": [{"type": "integer"}]}, "f": {"enum": [1, "x"]},
            "g": {"$ref": "#"}, "h": "junk",
        },
    }  # fmt: skip
    assert _parameters(schema) == (
        "a (3), b (string|null), c (object), d (any), e (integer), f (1|x), g (object), h (any)"
    )


def test_prompt_options_object_is_accepted() -> None:
    """generate_prompt takes the exported PromptOptions positionally, like keywords."""
    reg = registry()
    options = PromptOptions(include_examples=False, categories=("file-system",))  # type: ignore[arg-type]
    text = reg.generate_prompt(options)
    assert text == reg.generate_prompt(include_examples=False, categories=["file"])
    assert "Example:" not in text
    assert "WEB TOOLS" not in text


def test_keywords_override_the_options_object() -> None:
    """Keywords given with a PromptOptions win over its fields."""
    reg = registry()
    options = PromptOptions(include_examples=False)
    assert reg.generate_prompt(options, include_examples=True) == reg.generate_prompt()


def test_options_that_are_not_prompt_options_are_refused() -> None:
    """A dict in place of PromptOptions raises TypeError pointing at the keyword form."""
    with pytest.raises(TypeError, match=r"generate_prompt\(include_examples=False\)"):
        registry().generate_prompt({"include_examples": False})  # type: ignore[arg-type]
