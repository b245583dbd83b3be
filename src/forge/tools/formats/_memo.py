"""Per-schema memo of compiled provider schemas.

Compiling a schema (Gemini's subset, a strict mode) walks it in Python: tens
of microseconds per tool. A registry re-converts every tool whenever any tool
changes, so each tool's compiled schema is kept, keyed by the identity of its
canonical parameters dict (which a compiled `Tool` keeps for its lifetime),
together with the report lines. The memo is bounded; the oldest entries go
first. Compiled schemas are shared: treat them as read-only, like
``tool.parameters``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from forge.tools.formats._schema import Context, Schema
from forge.tools.formats.report import SchemaChange

MAX_ENTRIES = 8192

_Entry = tuple[Mapping[str, Any], Schema, tuple[SchemaChange, ...]]
_memo: dict[tuple[int, str], _Entry] = {}
_lock = threading.Lock()


def compiled(
    schema: Mapping[str, Any], ctx: Context, kind: str,
    compile_schema: Callable[[Mapping[str, Any], Context], Schema],
) -> Schema:  # fmt: skip
    """Return ``compile_schema(schema, ctx)``, memoised per schema object and ``kind``."""
    key = (id(schema), kind)
    hit = _memo.get(key)
    if hit is not None and hit[0] is schema:
        ctx.changes.extend(hit[2])
        return hit[1]
    start = len(ctx.changes)
    out = compile_schema(schema, ctx)
    with _lock:
        _memo[key] = (schema, out, tuple(ctx.changes[start:]))
        while len(_memo) > MAX_ENTRIES:
            del _memo[next(iter(_memo))]
    return out


def clear() -> None:
    """Forget every memoised schema (benchmarks use it to measure cold conversion)."""
    with _lock:
        _memo.clear()
