"""Per-schema memo of compiled provider schemas.

Compiling a schema (Gemini's subset, a strict mode) walks it in Python. A
registry re-converts every tool whenever any tool changes, so each tool's
compiled schema (or the error compiling it raised) is kept, keyed by the
identity of its canonical parameters dict (which a compiled `Tool` keeps for
its lifetime), together with the report lines. The memo is bounded; the
oldest entries go first. Compiled schemas are shared, so they are read-only
(`forge.tools.values.readonly`), like ``tool.parameters``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from forge.core.errors import SchemaConversionError
from forge.tools.formats._schema import Context, Schema
from forge.tools.formats.report import SchemaChange
from forge.tools.values.readonly import freeze

MAX_ENTRIES = 8192

#: The schema, its compiled form (or why it has none) and the report lines.
_Entry = tuple[Mapping[str, Any], Schema | SchemaConversionError, tuple[SchemaChange, ...]]
_memo: dict[tuple[int, str], _Entry] = {}
_lock = threading.Lock()

#: ``compile_schema(schema, ctx, table)``; ``table`` is the schema's parameter table or None.
CompileSchema = Callable[[Mapping[str, Any], Context, Any], Schema]


def compiled(
    schema: Mapping[str, Any], table: Any, ctx: Context, kind: str, compile_schema: CompileSchema
) -> Schema:
    """Return ``compile_schema(schema, ctx, table)``, memoised per schema object and ``kind``."""
    key = (id(schema), kind)
    hit = _memo.get(key)
    if hit is not None and hit[0] is schema:
        ctx.changes.extend(hit[2])
        if isinstance(hit[1], SchemaConversionError):
            raise hit[1].with_traceback(None)
        return hit[1]
    changes = ctx.changes
    start = len(changes)
    try:
        out: Schema = freeze(compile_schema(schema, ctx, table))  # free if built read-only
    except SchemaConversionError as exc:  # remembered too: finding it may have cost the most
        _remember(key, (schema, exc, tuple(changes[start:])))
        raise
    _remember(key, (schema, out, tuple(changes[start:] if start else changes)))
    return out


def _remember(key: tuple[int, str], entry: _Entry) -> None:
    _memo[key] = entry
    if len(_memo) > MAX_ENTRIES:
        _evict()


def _evict() -> None:
    """Drop the oldest entries beyond `MAX_ENTRIES` (one thread at a time)."""
    with _lock:
        while len(_memo) > MAX_ENTRIES:
            try:
                del _memo[next(iter(_memo))]
            except (RuntimeError, KeyError):  # another thread added or dropped one: look again
                continue
            except StopIteration:  # cleared meanwhile
                return


def clear() -> None:
    """Forget every memoised schema (benchmarks use it to measure cold conversion)."""
    with _lock:
        _memo.clear()
