"""Tool descriptions as prompt text (in the layout of the original registry design).

::

    Available Tools:

    FILE SYSTEM TOOLS:
    - read-file: Read the contents of a file from the file system
      Parameters: path (string), encoding (utf-8|ascii|base64)
      Example: Read a text file
        Input: { "path": "./README.md", "encoding": "utf-8" }
      Notes: Paths are relative to the current working directory

The output depends only on the tools and the options: categories come in
`ToolCategory` order, tools in registration order within a category.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from forge.core.errors import UnsupportedProviderError
from forge.tools.values.categories import ToolCategory

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool

__all__ = ["PromptKeywords", "PromptOptions", "render_prompt"]

HEADER = "Available Tools:"
_SECTION_NAMES = {ToolCategory.FILE: "FILE SYSTEM"}


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptOptions:
    """What `render_prompt` includes (the original design's ``PromptOptions``)."""

    include_examples: bool = True
    """Show each tool's examples with their JSON input."""
    include_notes: bool = True
    """Show usage notes."""
    include_limitations: bool = True
    """Show known limitations."""
    group_by_category: bool = True
    """Group tools under one heading per category."""
    categories: tuple[ToolCategory, ...] | None = None
    """Only tools of these categories (``None``: all)."""
    max_examples_per_tool: int | None = None
    """Show at most this many examples per tool (``None``: all)."""
    shortened_for: str | None = None
    """Instead of the listing, only the parts of descriptions that ``to_provider(provider)``
    cut to fit the provider's limit, for the system prompt (``""`` when nothing was cut)."""

    @classmethod
    def build(
        cls, *, categories: Iterable[ToolCategory | str] | None = None, **options: Any
    ) -> PromptOptions:
        """Build options, accepting category names and aliases.

        Raises:
            ValueError: An unknown category or a negative example limit.
            UnsupportedProviderError: ``shortened_for`` is not a provider.
        """
        provider = options.get("shortened_for")
        if provider is not None:
            from forge.tools.formats.limits import LIMITS

            if provider not in LIMITS:
                raise UnsupportedProviderError(provider, list(LIMITS))
        parsed = None
        if categories is not None:
            if isinstance(categories, str):
                categories = [categories]
            parsed = tuple(ToolCategory.parse(c) for c in categories)
        limit = options.get("max_examples_per_tool")
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 0
        ):
            raise ValueError(f"max_examples_per_tool must be a non-negative integer, got {limit!r}")
        return cls(categories=parsed, **options)

    @classmethod
    def coerce(cls, options: PromptOptions | None, overrides: Mapping[str, Any]) -> PromptOptions:
        """``options`` (default: the defaults) with keyword ``overrides`` applied, checked.

        Raises:
            TypeError: ``options`` is not a `PromptOptions`.
            ValueError: As `build`.
        """
        if options is None:
            return cls.build(**overrides)
        if not isinstance(options, PromptOptions):
            raise TypeError(
                f"expected a PromptOptions, got {type(options).__name__}; pass the options "
                "as keywords instead, e.g. generate_prompt(include_examples=False)"
            )
        # rebuilt even without overrides: PromptOptions(categories=["file-system"]) made
        # directly holds unparsed names in an (unhashable) list
        fields = {name: getattr(options, name) for name in cls.__dataclass_fields__}
        return cls.build(**{**fields, **overrides})


class PromptKeywords(TypedDict, total=False):
    """`PromptOptions` as keyword arguments (``generate_prompt(include_examples=False)``)."""

    include_examples: bool
    include_notes: bool
    include_limitations: bool
    group_by_category: bool
    categories: Iterable[ToolCategory | str] | None
    max_examples_per_tool: int | None
    shortened_for: str | None


def render_prompt(tools: Sequence[Tool], options: PromptOptions) -> str:
    """Render the tools as prompt text, following ``options``."""
    wanted = options.categories
    chosen = [t for t in tools if wanted is None or t.metadata.category in wanted]
    if options.shortened_for is not None:
        return _shortened(chosen, options.shortened_for)
    if not chosen:
        return f"{HEADER}\n\n(no tools)"
    if not options.group_by_category:
        return HEADER + "\n\n" + "\n\n".join(_tool_block(t, options) for t in chosen)
    sections = []
    for category in dict.fromkeys(ToolCategory):
        members = [t for t in chosen if t.metadata.category is category]
        if members:
            title = _SECTION_NAMES.get(category, category.value.upper()) + " TOOLS:"
            sections.append(title + "\n" + "\n\n".join(_tool_block(t, options) for t in members))
    return HEADER + "\n\n" + "\n\n".join(sections)


def _shortened(tools: Sequence[Tool], provider: str) -> str:
    """The text `to_provider` cut from each description for ``provider`` (the same split)."""
    from forge.tools.formats.limits import LIMITS, shorten

    limit = LIMITS[provider].max_description
    if limit is None:
        return ""
    lines = []
    for tool in tools:
        cut = shorten(tool.description, limit)[1]
        if cut:
            lines.append(f"- {tool.name} (continued): {' '.join(cut.split())}")
    if not lines:
        return ""
    head = f"More about the tools (their descriptions were cut to fit {provider}'s limit):"
    return "\n".join([head, *lines])


def _tool_block(tool: Tool, options: PromptOptions) -> str:
    meta = tool.metadata
    description = " ".join(tool.description.split())
    if meta.deprecated:
        description += (
            f" (deprecated; use {meta.replaced_by})" if meta.replaced_by else (" (deprecated)")
        )
    lines = [f"- {tool.name}: {description}", f"  Parameters: {_parameters(tool.parameters)}"]
    if options.include_examples:
        examples = meta.examples
        if options.max_examples_per_tool is not None:
            examples = examples[: options.max_examples_per_tool]
        for example in examples:
            lines.append(f"  Example: {example.description}")
            lines.append(f"    Input: {_inline_json(example.input)}")
    if options.include_notes and meta.usage_notes:
        lines.append(f"  Notes: {' '.join(meta.usage_notes.split())}")
    if options.include_limitations and meta.limitations:
        lines.append(f"  Limitations: {'; '.join(meta.limitations)}")
    return "\n".join(lines)


def _parameters(schema: Mapping[str, Any]) -> str:
    properties = schema.get("properties") or {}
    if not properties:
        return "none"
    known: dict[str, str] = {}
    return ", ".join(
        f"{name} ({_type_of(prop, schema, known)})" for name, prop in properties.items()
    )


def _type_of(prop: Any, root: Mapping[str, Any], known: dict[str, str]) -> str:
    """The type text of ``prop``; ``known`` holds each reference's (read once: no fan-out)."""
    if not isinstance(prop, Mapping):
        return "any"
    if "enum" in prop:
        return "|".join(v if isinstance(v, str) else json.dumps(v) for v in prop["enum"])
    if "const" in prop:
        return json.dumps(prop["const"])
    kind = prop.get("type")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind)
    if isinstance(kind, str):
        if kind == "array" and isinstance(prop.get("items"), Mapping):
            return f"array of {_type_of(prop['items'], root, known)}"
        return kind
    for key in ("anyOf", "oneOf"):
        if isinstance(prop.get(key), list):
            return "|".join(dict.fromkeys(_type_of(p, root, known) for p in prop[key]))
    ref = prop.get("$ref")
    if isinstance(ref, str):
        if ref not in known:
            known[ref] = "object"  # while it is being read: a cycle is an object
            known[ref] = "object" if ref == "#" else _type_of(_resolve(ref, root), root, known)
        return known[ref]
    if isinstance(prop.get("allOf"), list) and len(prop["allOf"]) == 1:
        return _type_of(prop["allOf"][0], root, known)
    return "any"


def _resolve(ref: str, root: Mapping[str, Any]) -> Any:
    node: Any = root
    for part in ref.lstrip("#/").split("/"):
        node = node.get(part) if isinstance(node, Mapping) else None
    return node if isinstance(node, Mapping) and "$ref" not in node else {"type": "object"}


def _inline_json(value: Mapping[str, Any]) -> str:
    """``{ "path": "./README.md", "encoding": "utf-8" }`` as the original design writes it."""
    if not value:
        return "{}"
    items = ", ".join(
        f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False, sort_keys=True)}"
        for k, v in value.items()
    )
    return "{ " + items + " }"
