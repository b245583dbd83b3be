"""Plugins: tools from installed distributions' entry points; broken plugins are skipped."""

import importlib
import importlib.metadata
import logging
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from forge.tools import ToolRegistry
from forge.tools.execution.executor import ToolExecutor
from forge.tools.registry import PLUGIN_GROUP, load_plugins

GOOD = '''
from forge.tools import tool

@tool
def shout(text: str) -> str:
    """Upper-case the text."""
    return text.upper()

@tool
def whisper(text: str) -> str:
    """Lower-case the text."""
    return text.lower()

def register(registry):
    registry.register(shout)

TOOLS = [whisper]
'''

HALF = '''
from forge.tools import tool

@tool
def half_done() -> str:
    """Registered before the plugin fails."""
    return "half"

def register(registry):
    registry.register(half_done)
    raise RuntimeError("plugin crashed half-way")
'''

CLASH = '''
from forge.tools import tool

@tool(name="shout")
def other_shout(text: str) -> str:
    """A second tool called shout."""
    return text

@tool
def clash_extra() -> str:
    """Would come along with the clashing tool."""
    return "extra"

TOOLS = [other_shout, clash_extra]
'''

MODULES = (
    "fx_good_plugin",
    "fx_half_plugin",
    "fx_clash_plugin",
    "fx_broken_plugin",
    "fx_wheel_plugin",
)


def write_distribution(root: Path, dist: str, modules: dict[str, str], entry_points: str) -> None:
    """Lay out an installed distribution: its modules and its .dist-info metadata."""
    for name, source in modules.items():
        (root / f"{name}.py").write_text(textwrap.dedent(source))
    info = root / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield tmp_path
    for name in MODULES:
        sys.modules.pop(name, None)


def test_plugins_contribute_tools_and_broken_ones_are_skipped(
    site: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Good plugins add their tools; import errors, crashes and clashes are logged and skipped."""
    write_distribution(
        site,
        "fx-good",
        {"fx_good_plugin": GOOD},
        f"""
        [{PLUGIN_GROUP}]
        fx_good = fx_good_plugin:register
        fx_list = fx_good_plugin:TOOLS
        fx_missing = fx_good_plugin:no_such_name
        """,
    )
    write_distribution(
        site,
        "fx-broken",
        {
            "fx_broken_plugin": "raise ImportError('needs a library that is not installed')",
            "fx_half_plugin": HALF,
            "fx_clash_plugin": CLASH,
        },
        f"""
        [{PLUGIN_GROUP}]
        fx_broken = fx_broken_plugin:register
        fx_half = fx_half_plugin:register
        fx_clash = fx_clash_plugin:TOOLS
        """,
    )
    registry = ToolRegistry()
    with caplog.at_level(logging.WARNING, logger="forge.tools.plugins"):
        report = load_plugins(registry, names=[n for n in _all_names() if n.startswith("fx_")])

    assert report.loaded == {"fx_good": ("shout",), "fx_list": ("whisper",)}
    assert set(report.failed) == {"fx_missing", "fx_broken", "fx_half", "fx_clash"}
    assert "not installed" in report.failed["fx_broken"]
    assert "half-way" in report.failed["fx_half"]
    assert "shout" in report.failed["fx_clash"]
    assert set(report.tools) == {"shout", "whisper"}
    assert set(registry.names()) == {"shout", "whisper"}  # nothing from the failed plugins
    for name in ("fx_missing", "fx_broken", "fx_half", "fx_clash"):
        assert name in caplog.text
    ex = ToolExecutor(registry)
    assert ex.run_sync("shout", {"text": "hi"}).output == "HI"
    assert ex.run_sync("whisper", {"text": "HI"}).output == "hi"


def test_the_registry_method_and_name_filter(site: Path) -> None:
    """registry.load_plugins(names=...) loads only the named plugins."""
    write_distribution(
        site,
        "fx-good",
        {"fx_good_plugin": GOOD},
        f"""
        [{PLUGIN_GROUP}]
        fx_good = fx_good_plugin:register
        fx_list = fx_good_plugin:TOOLS
        """,
    )
    registry = ToolRegistry()
    report = registry.load_plugins(names=["fx_list"])
    assert registry.names() == ["whisper"]
    assert report.failed == {}


def test_an_empty_group_loads_nothing() -> None:
    """A group nobody declares gives an empty report."""
    report = load_plugins(ToolRegistry(), group="forge_tools.tests.nobody_uses_this")
    assert (report.loaded, report.failed, report.tools) == ({}, {}, ())


def test_a_wheel_installed_into_a_temporary_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real wheel, installed with pip into a temporary directory, contributes its tools."""
    wheel = tmp_path / "fx_wheel_plugin-1.0-py3-none-any.whl"
    info = "fx_wheel_plugin-1.0.dist-info"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("fx_wheel_plugin.py", textwrap.dedent(GOOD))
        zf.writestr(
            f"{info}/METADATA", "Metadata-Version: 2.1\nName: fx-wheel-plugin\nVersion: 1.0\n"
        )
        zf.writestr(
            f"{info}/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        zf.writestr(
            f"{info}/entry_points.txt", f"[{PLUGIN_GROUP}]\nfx_wheel = fx_wheel_plugin:TOOLS\n"
        )
        zf.writestr(f"{info}/RECORD", "")
    target = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
         "--disable-pip-version-check", "--target", str(target), str(wheel)],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    monkeypatch.syspath_prepend(str(target))
    importlib.invalidate_caches()
    try:
        registry = ToolRegistry()
        report = load_plugins(registry, names=["fx_wheel"])
        assert report.loaded == {"fx_wheel": ("whisper",)}
        assert ToolExecutor(registry).run_sync("whisper", {"text": "QUIET"}).output == "quiet"
    finally:
        sys.modules.pop("fx_wheel_plugin", None)


def _all_names() -> list[str]:
    return [ep.name for ep in importlib.metadata.entry_points(group=PLUGIN_GROUP)]
