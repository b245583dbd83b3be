"""Provider wire formats for tool definitions (PV-1, PV-2)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from forge.core.errors import UnsupportedProviderError
from forge.tools.formats.anthropic import to_anthropic
from forge.tools.formats.openai import to_openai

if TYPE_CHECKING:
    from forge.tools.tool import Tool

__all__ = ["PROVIDERS", "to_anthropic", "to_openai", "to_provider"]

PROVIDERS: dict[str, Callable[[Tool], dict[str, Any]]] = {
    "openai": to_openai,
    "anthropic": to_anthropic,
}


def to_provider(tools: Sequence[Tool], provider: str) -> list[dict[str, Any]]:
    """Convert tools to one provider's tool definitions, in the given order.

    Raises:
        UnsupportedProviderError: ``provider`` is not one of `PROVIDERS`.
    """
    convert = PROVIDERS.get(provider)
    if convert is None:
        raise UnsupportedProviderError(provider, sorted(PROVIDERS))
    return [convert(t) for t in tools]
