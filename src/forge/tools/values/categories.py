"""Tool categories."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ToolCategory"]


class ToolCategory(StrEnum):
    """The category a tool belongs to.

    One canonical value each; parsing also accepts the original design's spellings
    (``file-system``, ``FILE_SYSTEM``, any case).
    """

    FILE = "file"
    FILE_SYSTEM = "file"  # alias of FILE
    EXECUTION = "execution"
    WEB = "web"
    CODE = "code"
    DATABASE = "database"
    API = "api"
    TASK = "task"
    NOTEBOOK = "notebook"
    MCP = "mcp"
    UTILITY = "utility"
    CUSTOM = "custom"
    OTHER = "other"

    @classmethod
    def _missing_(cls, value: object) -> ToolCategory | None:
        if not isinstance(value, str):
            return None
        key = value.strip().lower().replace("_", "-")
        return _ALIASES.get(key)

    @classmethod
    def parse(cls, value: ToolCategory | str) -> ToolCategory:
        """Return the category for ``value``, raising `ValueError` listing the valid ones."""
        try:
            return cls(value)
        except ValueError:
            valid = ", ".join(sorted({c.value for c in cls}))
            raise ValueError(
                f"unknown tool category {value!r}; use one of: {valid} (or 'file-system')"
            ) from None


_ALIASES: dict[str, ToolCategory] = {c.value: c for c in ToolCategory}
_ALIASES.update(
    {"file-system": ToolCategory.FILE, "filesystem": ToolCategory.FILE, "fs": ToolCategory.FILE}
)
