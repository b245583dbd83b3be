"""Provider wire formats for tool definitions (PV-1, PV-2, PV-3).

``to_provider(tools, provider, strict=...)`` converts tools for one provider;
`convert` does one tool and also returns a `ConversionReport` of every change
the provider's schema compiler made. A schema a provider cannot express fails
with `SchemaConversionError` naming the tool, the keyword and the provider.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from forge.core.errors import UnsupportedProviderError
from forge.tools.formats._schema import Context
from forge.tools.formats.anthropic import convert_anthropic, to_anthropic
from forge.tools.formats.bedrock import convert_bedrock
from forge.tools.formats.gemini import convert_gemini, wrap_gemini
from forge.tools.formats.langchain import convert_langchain
from forge.tools.formats.mcp import convert_mcp
from forge.tools.formats.mistral import convert_mistral
from forge.tools.formats.names import NameMap
from forge.tools.formats.ollama import convert_ollama
from forge.tools.formats.openai import convert_openai, to_openai
from forge.tools.formats.openai_responses import convert_openai_responses
from forge.tools.formats.report import ConversionReport, SchemaChange
from forge.tools.formats.strict_args import strict_arguments

if TYPE_CHECKING:
    from forge.tools.formats._definition import ToolDefinition

__all__ = [
    "PROVIDERS",
    "ConversionReport",
    "NameMap",
    "SchemaChange",
    "convert",
    "strict_arguments",
    "to_anthropic",
    "to_openai",
    "to_provider",
]

Converter = Callable[["ToolDefinition", Context], Any]

#: Every supported provider and its per-tool converter, in documentation order.
PROVIDERS: dict[str, Converter] = {
    "openai": convert_openai,
    "openai-responses": convert_openai_responses,
    "anthropic": convert_anthropic,
    "gemini": convert_gemini,
    "ollama": convert_ollama,
    "bedrock": convert_bedrock,
    "mistral": convert_mistral,
    "mcp": convert_mcp,
    "langchain": convert_langchain,
}

_WRAP: dict[str, Callable[[list[Any]], list[Any]]] = {"gemini": wrap_gemini}


def _converter(provider: str) -> Converter:
    found = PROVIDERS.get(provider) if isinstance(provider, str) else None
    if found is None:
        raise UnsupportedProviderError(provider, list(PROVIDERS))
    return found


def to_provider(
    tools: Sequence[ToolDefinition], provider: str, *, strict: bool = False
) -> list[Any]:
    """Convert tools to one provider's tool definitions, in the given order.

    Gemini's result is one ``{"functionDeclarations": [...]}`` holding every
    tool; LangChain's is a list of ``StructuredTool`` objects; every other
    provider gets one dict per tool. The list is new; the definitions in it are
    read-only (they share the tools' schemas): ``copy.deepcopy`` one to edit it.

    Raises:
        UnsupportedProviderError: ``provider`` is not one of `PROVIDERS`.
        SchemaConversionError: A schema cannot be expressed for ``provider``.
    """
    convert_one = _converter(provider)
    out = [convert_one(t, Context(t.name, provider, strict)) for t in tools]
    wrap = _WRAP.get(provider)
    return wrap(out) if wrap is not None else out


def convert(
    tool: ToolDefinition, provider: str, *, strict: bool = False
) -> tuple[Any, ConversionReport]:
    """Convert one tool and report what its schema compiler changed.

    For Gemini the definition is the function declaration (not the wrapper).

    Raises:
        UnsupportedProviderError: ``provider`` is not one of `PROVIDERS`.
        SchemaConversionError: The schema cannot be expressed for ``provider``.
    """
    ctx = Context(tool.name, provider, strict)
    definition = _converter(provider)(tool, ctx)
    return definition, ctx.report()
