"""`Tool`, the one canonical tool record, and every way of defining, checking and describing one.

The decorator and `Tool` (`forge.tools.model.tool`), the builder, records, the
definition linter and prompt text. Provider formats sit below (a `Tool` converts
itself with them); the store and the engine sit above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge.core.lazy import lazy_face

if TYPE_CHECKING:
    from forge.tools.model.builder import ToolBuilder, create_tool
    from forge.tools.model.lint import LintFinding, conversion_findings, lint_tool, lint_tools
    from forge.tools.model.options import (
        OPTION_NAMES,
        ToolOptions,
        options_of,
        reject_unknown,
        tool_fields,
    )
    from forge.tools.model.prompt import PromptKeywords, PromptOptions, render_prompt
    from forge.tools.model.records import from_record
    from forge.tools.model.tool import ErrorDetails, Placement, Tool, tool

__all__ = [
    "ErrorDetails",
    "LintFinding",
    "OPTION_NAMES",
    "Placement",
    "PromptKeywords",
    "PromptOptions",
    "Tool",
    "ToolBuilder",
    "ToolOptions",
    "conversion_findings",
    "create_tool",
    "from_record",
    "lint_tool",
    "lint_tools",
    "options_of",
    "reject_unknown",
    "render_prompt",
    "tool",
    "tool_fields",
]

__getattr__, __dir__ = lazy_face(
    __name__,
    {
        "ErrorDetails": "forge.tools.model.tool",
        "LintFinding": "forge.tools.model.lint",
        "OPTION_NAMES": "forge.tools.model.options",
        "Placement": "forge.tools.model.tool",
        "PromptKeywords": "forge.tools.model.prompt",
        "PromptOptions": "forge.tools.model.prompt",
        "Tool": "forge.tools.model.tool",
        "ToolBuilder": "forge.tools.model.builder",
        "ToolOptions": "forge.tools.model.options",
        "conversion_findings": "forge.tools.model.lint",
        "create_tool": "forge.tools.model.builder",
        "from_record": "forge.tools.model.records",
        "lint_tool": "forge.tools.model.lint",
        "lint_tools": "forge.tools.model.lint",
        "options_of": "forge.tools.model.options",
        "reject_unknown": "forge.tools.model.options",
        "render_prompt": "forge.tools.model.prompt",
        "tool": "forge.tools.model.tool",
        "tool_fields": "forge.tools.model.options",
    },
)
