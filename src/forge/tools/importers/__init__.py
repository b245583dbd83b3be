"""Importing tool definitions found in the wild (BFCL and other non-standard JSON)."""

from __future__ import annotations

from forge.tools.importers.normalize import (
    NormalizedDefinition,
    normalize_definition,
    normalize_schema,
)

__all__ = ["NormalizedDefinition", "normalize_definition", "normalize_schema"]
