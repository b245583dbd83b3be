"""Provider wire formats for tool definitions.

``to_provider(tools, provider, strict=...)`` converts tools for one provider;
`convert` does one tool and also returns a `ConversionReport` of every change
the provider's schema compiler made; `convert_all` does a whole export and
returns the definitions with one report per tool. One tool never breaks an
export: by default what a provider cannot take is shortened, sent without
strict mode or left out, and reported; ``errors="raise"`` raises
`SchemaConversionError` naming the tool, the keyword and the provider instead.
The provider limits applied are in `forge.tools.formats.limits`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from forge.core.errors import UnsupportedProviderError
from forge.core.lazy import lazy_face
from forge.core.logging import get_logger
from forge.tools.formats._policy import (
    LEFT_OUT,
    Converter,
    convert_one_tool,
    single_with_report,
    too_many,
)
from forge.tools.formats._schema import Context, accepts_null
from forge.tools.formats.limits import LIMITS
from forge.tools.formats.report import Conversion, ConversionReport, Errors, SchemaChange

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition
    from forge.tools.formats.anthropic import to_anthropic
    from forge.tools.formats.names import NameMap
    from forge.tools.formats.openai import to_openai
    from forge.tools.formats.strict_args import strict_arguments

__all__ = [
    "Conversion",
    "ConversionReport",
    "Errors",
    "LIMITS",
    "NameMap",
    "PROVIDERS",
    "SchemaChange",
    "accepts_null",
    "convert",
    "convert_all",
    "strict_arguments",
    "to_anthropic",
    "to_openai",
    "to_provider",
]

logger = get_logger("tools.formats")


class _Converters(Mapping[str, "Converter"]):
    """Each provider's per-tool converter, its module imported when first asked for."""

    def __init__(self, homes: dict[str, str]) -> None:
        self._homes = homes
        self._found: dict[str, Converter] = {}

    def __getitem__(self, provider: str) -> Converter:
        found = self._found.get(provider)
        if found is None:
            module, _, name = self._homes[provider].partition(":")
            found = self._found[provider] = getattr(
                importlib.import_module(f"forge.tools.formats.{module}"), name
            )
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._homes)

    def __len__(self) -> int:
        return len(self._homes)

    def __repr__(self) -> str:
        return f"PROVIDERS({list(self._homes)})"


#: Every supported provider and its per-tool converter, in documentation order.
PROVIDERS: Mapping[str, Converter] = _Converters({
    "openai": "openai:convert_openai",
    "openai-responses": "openai_responses:convert_openai_responses",
    "anthropic": "anthropic:convert_anthropic",
    "gemini": "gemini:convert_gemini",
    "ollama": "ollama:convert_ollama",
    "bedrock": "bedrock:convert_bedrock",
    "mistral": "mistral:convert_mistral",
    "mcp": "mcp:convert_mcp",
    "langchain": "langchain:convert_langchain",
})  # fmt: skip

# The providers whose definitions are wrapped once the tools are converted.
_WRAP = {"gemini": "gemini:wrap_gemini"}

__getattr__, __dir__ = lazy_face(__name__, {
    "NameMap": "forge.tools.formats.names",
    "strict_arguments": "forge.tools.formats.strict_args",
    "to_anthropic": "forge.tools.formats.anthropic",
    "to_openai": "forge.tools.formats.openai",
})  # fmt: skip


def _converter(provider: str) -> Converter:
    found = PROVIDERS.get(provider) if isinstance(provider, str) else None
    if found is None:  # not one of them
        raise UnsupportedProviderError(provider, list(PROVIDERS))
    return found


def to_provider(
    tools: Sequence[ToolDefinition],
    provider: str,
    *,
    strict: bool = False,
    errors: Errors = "report",
) -> list[Any]:
    """Convert tools to one provider's tool definitions, in the given order.

    Gemini's result is one ``{"functionDeclarations": [...]}`` holding every
    tool; LangChain's is a list of ``StructuredTool`` objects; every other
    provider gets one dict per tool. The list is new; the definitions in it are
    read-only (they share the tools' schemas): ``copy.deepcopy`` one to edit it.

    One tool never breaks the others: see `convert_all` for what ``errors``
    does, and for the report of each tool.

    Raises:
        UnsupportedProviderError: ``provider`` is not one of `PROVIDERS`.
        SchemaConversionError: With ``errors="raise"``, the first tool that
            cannot be converted as asked.
    """
    return list(convert_all(tools, provider, strict=strict, errors=errors).definitions)


def convert_all(
    tools: Sequence[ToolDefinition],
    provider: str,
    *,
    strict: bool = False,
    errors: Errors = "report",
) -> Conversion:
    """Convert tools for one provider and report, per tool, what changed or was lost.

    With ``errors="report"`` (the default) every tool that can be sent is sent:
    a description over the provider's limit is shortened at a sentence
    boundary, a tool whose schema strict mode cannot express is sent without
    strict mode, only a tool the provider cannot take at all (a name it
    rejects) is left out, and tools past the number one request takes are kept
    with a note (choose which to send); each report says which.
    With ``errors="raise"`` any of these raises instead.

    Raises:
        UnsupportedProviderError: ``provider`` is not one of `PROVIDERS`.
        SchemaConversionError: With ``errors="raise"``, as above.
    """
    convert_one = _converter(provider)
    if errors not in ("report", "raise"):
        raise ValueError(f"errors must be 'report' or 'raise', got {errors!r}")
    limits = LIMITS[provider]
    out: list[Any] = []
    names: list[str] = []
    changes: list[tuple[SchemaChange, ...]] = []
    left_out: list[str] = []
    over: list[str] = []
    for tool in tools:
        names.append(tool.name)
        ctx = Context(tool.name, provider, strict, errors)
        definition = convert_one_tool(tool, ctx, convert_one, limits, len(out))
        if definition is LEFT_OUT:
            left_out.append(tool.name)
            changes.append(tuple(ctx.changes))
            continue
        if limits.max_tools is not None and len(out) >= limits.max_tools:
            over.append(tool.name)
            changes.append(tuple(ctx.changes) + too_many(provider, limits.max_tools))
        else:
            changes.append(tuple(ctx.changes))
        out.append(definition)
    if over:
        logger.warning("the %s export has %d tools; one request takes at most %d (see "
                       "registry.conversion)", provider, len(out), limits.max_tools)  # fmt: skip
    if left_out:
        logger.warning("%d tool(s) left out of the %s export (see registry.conversion): %s",
                       len(left_out), provider, ", ".join(left_out))  # fmt: skip
    wrap = _WRAP.get(provider)
    definitions = _provider_function(wrap)(out) if wrap is not None else out
    return Conversion(provider=provider, strict=strict, definitions=tuple(definitions),
                      tools=tuple(names), changes=tuple(changes))  # fmt: skip


def _provider_function(home: str) -> Callable[[list[Any]], list[Any]]:
    module, _, name = home.partition(":")
    found: Callable[[list[Any]], list[Any]] = getattr(
        importlib.import_module(f"forge.tools.formats.{module}"), name
    )
    return found


def convert(
    tool: ToolDefinition, provider: str, *, strict: bool = False, errors: Errors = "report"
) -> tuple[Any, ConversionReport]:
    """Convert one tool and report what its schema compiler changed.

    For Gemini the definition is the function declaration (not the wrapper).
    Works as `convert_all` on one tool, except that a tool it would leave out
    raises.

    Raises:
        UnsupportedProviderError: ``provider`` is not one of `PROVIDERS`.
        SchemaConversionError: The tool cannot be converted (with ``errors="report"``,
            only when `convert_all` would leave it out).
    """
    return single_with_report(tool, provider, strict, _converter(provider), errors)
