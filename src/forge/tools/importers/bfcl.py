"""Load function definitions from Berkeley Function Calling Leaderboard files (JSON Lines)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from forge.tools.formats.names import NameMap
from forge.tools.importers.normalize import NormalizedDefinition, normalize_definition

__all__ = ["iter_functions", "load_definitions"]


def iter_functions(path: Path | str) -> Iterator[dict[str, Any]]:
    """Yield every function definition of a BFCL file, in file order.

    A line is a question (``{"id", "question", "function": [...]}``) or a bare
    definition (the ``multi_turn_func_doc`` files).
    """
    with Path(path).open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = json.loads(line)
            if "function" in record:
                yield from record["function"]
            elif "name" in record:
                yield record


def load_definitions(
    paths: Iterable[Path | str], *, names: NameMap | None = None
) -> list[NormalizedDefinition]:
    """Load, de-duplicate (by name and parameters) and normalise the definitions of files.

    Raises:
        ToolDefinitionError: For the first definition that cannot be normalised.
    """
    names = names if names is not None else NameMap()
    seen: dict[tuple[str, str], NormalizedDefinition] = {}
    for path in paths:
        for definition in iter_functions(path):
            key = (definition["name"], json.dumps(definition.get("parameters"), sort_keys=True))
            if key not in seen:
                seen[key] = normalize_definition(definition, names=names)
    return list(seen.values())
