"""Provider wire formats for tool definitions."""

from __future__ import annotations

from forge.tools.formats.anthropic import to_anthropic
from forge.tools.formats.openai import to_openai

__all__ = ["to_anthropic", "to_openai"]
