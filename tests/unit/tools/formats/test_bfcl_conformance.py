"""Every distinct BFCL definition, normalised, converts for every target; its SDK accepts it."""

from __future__ import annotations

import collections
import hashlib
from typing import Any

import pytest

from forge.tools.formats import PROVIDERS, to_provider
from tests.conftest import corpus

pytestmark = pytest.mark.slow  # the whole BFCL corpus

EXPECTED_DISTINCT = 3205


def test_corpus_is_complete_and_unmodified() -> None:
    """Every BFCL file listed in SHA256SUMS is present with its checksum, and no other is."""
    folder = corpus("bfcl")
    sums = {}
    for line in (folder / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, name = line.split()
        sums[name.removeprefix("./")] = digest
    actual = {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*.json"))
    }
    assert actual == sums
    assert len(actual) == 23


def test_all_distinct_definitions_normalise(bfcl: Any) -> None:
    """All 3,205 distinct (name, parameters) BFCL definitions normalise without rejection."""
    names, definitions, tools = bfcl
    assert len(definitions) == len(tools) == EXPECTED_DISTINCT
    assert len({t.name for t in tools}) == len({d.original_name for d in definitions})
    for d in definitions:
        assert names.original(d.name) == d.original_name


def test_every_target_accepts_every_definition(bfcl: Any, sdk: Any, capsys: Any) -> None:
    """Each definition converts for each target, plain and strict, and validates against its SDK."""
    _, _, tools = bfcl
    counts: dict[str, int] = collections.Counter()
    failures: list[str] = []
    for provider in PROVIDERS:
        check = sdk[provider]
        for strict in (False, True):
            if provider == "langchain" and strict:
                continue  # LangChain has no strict mode: same objects as plain
            for tool in tools:
                try:
                    out = to_provider([tool], provider, strict=strict)
                    check(out[0]["functionDeclarations"][0] if provider == "gemini" else out[0])
                except Exception as exc:
                    failures.append(f"{provider} strict={strict} {tool.name}: {exc!r}"[:300])
                else:
                    counts[f"{provider}{' (strict)' if strict else ''}"] += 1
    with capsys.disabled():
        print("\nBFCL definitions accepted by each target's SDK type:")
        for target, count in counts.items():
            print(f"  {target:28} {count}/{len(tools)}")
    assert not failures, "\n".join(failures[:20])
