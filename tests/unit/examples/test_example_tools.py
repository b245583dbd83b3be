"""The bundled example tools run for real."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from forge.core.errors import ToolValidationError
from forge.examples import EXAMPLE_TOOLS, example_registry
from forge.tools import ToolCategory


def test_examples_compile_and_cover_several_categories() -> None:
    """Every example compiles, and they span more than one category."""
    for t in EXAMPLE_TOOLS:
        t.compile()
    assert {t.category for t in EXAMPLE_TOOLS} >= {ToolCategory.UTILITY, ToolCategory.FILE}


def test_word_count_counts() -> None:
    """word_count counts words, lines and characters."""
    result = example_registry().execute("word_count", {"text": "a b\nc"})
    assert result.output == {"words": 3, "lines": 2, "characters": 5}


@pytest.mark.parametrize(
    ("value", "src", "dst", "expected"),
    [(100, "c", "f", 212.0), (32, "f", "c", 0.0), (0, "c", "k", 273.15), (273.15, "k", "f", 32.0)],
)
def test_convert_temperature(value: float, src: str, dst: str, expected: float) -> None:
    """convert_temperature converts between all three units."""
    args = {"value": value, "from_unit": src, "to_unit": dst}
    assert example_registry().execute("convert_temperature", args).output == pytest.approx(expected)


def test_convert_temperature_rejects_unknown_unit() -> None:
    """An unknown unit is a validation error naming the field."""
    with pytest.raises(ToolValidationError) as info:
        example_registry().execute(
            "convert_temperature", {"value": 1, "from_unit": "x", "to_unit": "c"}
        )
    assert [e.path for e in info.value.errors] == ["from_unit"]


def test_current_time_is_iso_and_checks_zone() -> None:
    """current_time returns ISO 8601 and an unknown zone is a failed result."""
    registry = example_registry()
    stamp = registry.execute("current_time", {"timezone": "UTC"}).output
    assert dt.datetime.fromisoformat(stamp).utcoffset() == dt.timedelta(0)
    failed = registry.execute("current_time", {"timezone": "Mars/Olympus"})
    assert not failed.success
    assert "unknown time zone" in (failed.error or "")


def test_file_tools_use_the_examples_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """read-file and list-directory resolve paths against FORGE_TOOLS_EXAMPLES_DIR."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    monkeypatch.setenv("FORGE_TOOLS_EXAMPLES_DIR", str(tmp_path))
    registry = example_registry()
    assert registry.execute("read-file", {"path": "notes.txt"}).output == "hello"
    assert registry.execute("list-directory", {}).output == ["sub/", "notes.txt"]
    missing = registry.execute("read-file", {"path": "absent.txt"})
    assert not missing.success
    assert missing.error_kind == "tool_error"


def test_bundled_configuration_has_each_implementation_type() -> None:
    """The bundled YAML tools cover mock, builtin, internal and http, with metadata."""
    registry = example_registry()
    kinds = {t.metadata.extra.get("implementation") for t in registry.list_all()}
    assert kinds >= {"mock", "builtin", "internal", "http"}
    assert registry.execute("get_stock_quote", {"symbol": "AAPL"}).output["price"] == 189.5
    assert registry.execute("echo", {"message": "m"}).output == {"message": "m"}
    assert registry.execute("add_note", {"title": "a", "text": "b"}).success
    assert registry.execute("list_notes", {}).output == ["a"]
    assert example_registry().execute("list_notes", {}).output == []


def test_http_example_against_a_local_server(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The http example queries the server named by FORGE_EXAMPLES_HTTP_BASE."""
    monkeypatch.setenv("FORGE_EXAMPLES_HTTP_BASE", http_server)
    registry = example_registry(allow_private_network=True)
    out = registry.execute("exchange_rate", {"base": "EUR", "symbols": "USD,GBP"}).output
    assert out["query"] == {"from": ["EUR"], "to": ["USD,GBP"]}
    refused = example_registry().execute("exchange_rate", {"base": "EUR", "symbols": "USD"})
    assert refused.error_kind == "denied"


def test_quickstart_example_runs() -> None:
    """examples/quickstart.py runs and reports both successes and model-facing errors."""
    import subprocess
    import sys

    script = Path(__file__).parents[3] / "examples" / "quickstart.py"
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "1 ok " in done.stdout
    assert "3 err Invalid arguments for tool 'get_weather': unit" in done.stdout
    assert "4 err Unknown tool: get_wether" in done.stdout
