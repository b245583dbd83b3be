"""A short run of every fuzz target, so the targets keep working (the long runs: README.md)."""

from __future__ import annotations

import pytest

from tests.fuzz.run import main, run_target
from tests.fuzz.targets import TARGETS


@pytest.mark.parametrize("name", list(TARGETS))
def test_each_target_holds_for_a_few_inputs(name: str) -> None:
    """Every target runs a handful of fresh inputs without breaking its contract."""
    examples = 3 if name in ("export", "schema-bombs") else 10
    assert run_target(TARGETS[name], examples) >= 1


def test_the_runner_stops_on_time_and_lists_targets(capsys: pytest.CaptureFixture[str]) -> None:
    """The command line lists the targets and runs a prefix for the given time."""
    assert main(["--list"]) == 0
    assert "parse-openai" in capsys.readouterr().out
    assert main(["--minutes", "0", "--target", "parse-mcp"]) == 0
    assert "no contract broken" in capsys.readouterr().out
