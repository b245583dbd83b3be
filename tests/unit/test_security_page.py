"""SECURITY.md's table is generated from tests/security.toml and cannot drift."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def script() -> ModuleType:
    """bench/security_table.py, imported from its file."""
    spec = importlib.util.spec_from_file_location(
        "security_table", ROOT / "bench" / "security_table.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_security_md_table_is_up_to_date(script: ModuleType) -> None:
    """The committed table equals the script's output: run bench/security_table.py if not."""
    page = (ROOT / "SECURITY.md").read_text(encoding="utf-8")
    manifest = tomllib.loads((ROOT / "tests" / "security.toml").read_text(encoding="utf-8"))
    assert script.render(page, manifest) == page, "run: python bench/security_table.py"
    assert script.main(["--check"]) == 0


def test_every_area_and_the_threat_model_are_on_the_page(script: ModuleType) -> None:
    """The page covers the four kinds of attacker and lists rows of every area."""
    page = (ROOT / "SECURITY.md").read_text(encoding="utf-8")
    headings = ("Hostile model output", "Hostile configuration files", "Hostile MCP clients",
                "Hostile remote servers", "Reporting a vulnerability")  # fmt: skip
    for heading in headings:
        assert heading in page
    for area in script.AREAS:
        assert f"\n| {area} |" in page


def manifest_with(test: str, finding: str = "f") -> dict[str, object]:
    row = {"area": "inputs", "tried": "x", "held": "y"}
    return {"findings": {"f": row}, "tests": {test: finding}}


@pytest.mark.parametrize(
    ("test", "finding", "problem"),
    [
        ("tests/unit/test_security_page.py::test_not_there", "f", "defines no function"),
        ("tests/nowhere.py::test_x", "f", "no test file"),
        ("tests/unit/test_security_page.py::test_security_md_table_is_up_to_date", "g", "unknown"),
    ],
)
def test_a_test_that_does_not_exist_cannot_be_listed(
    script: ModuleType, test: str, finding: str, problem: str
) -> None:
    """A manifest naming a missing test or finding is refused, so the table lists real tests."""
    with pytest.raises(script.ManifestError, match=problem):
        script.table(manifest_with(test, finding), ROOT)


def test_a_finding_without_a_test_is_refused(script: ModuleType) -> None:
    """Every row must be backed by at least one test."""
    manifest = {"findings": {"f": {"area": "load", "tried": "x", "held": "y"}}, "tests": {}}
    with pytest.raises(script.ManifestError, match="has no test"):
        script.table(manifest, ROOT)
