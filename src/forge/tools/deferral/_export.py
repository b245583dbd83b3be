"""A provider export with some tools deferred to the provider's own tool search."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from forge.tools.deferral._select import Searchable, resolve
from forge.tools.formats.deferral import NATIVE_SEARCH, NoNativeSearchError, defer_definitions

if TYPE_CHECKING:
    from forge.tools.formats.report import Errors

__all__ = ["deferred_export"]


class _Exporting(Searchable, Protocol):
    def to_provider(
        self, provider: str, *, allowed: Iterable[str] | None = None, strict: bool = False,
        errors: Errors = "report",
    ) -> list[Any]: ...  # fmt: skip


def deferred_export(
    source: _Exporting,
    provider: str,
    defer: Any,
    *,
    tool_search: str | bool = True,
    allowed: Iterable[str] | None = None,
    strict: bool = False,
    errors: Errors = "report",
) -> list[Any]:
    """``source.to_provider(...)`` with the tools ``defer`` names marked ``defer_loading``.

    The provider's search tool goes last (``tool_search``: ``True`` for its default
    variant, a variant's name, or ``False`` for none).

    Raises:
        NoNativeSearchError: The provider has no native deferred loading, or no such variant.
        ToolNotFoundError: ``defer`` names a tool that does not exist.
    """
    if provider not in NATIVE_SEARCH:
        raise NoNativeSearchError(provider)
    if not isinstance(tool_search, bool | str):
        raise TypeError(f"tool_search must be True, False or a variant's name, got {tool_search!r}")
    deferred = resolve(defer, source)
    definitions = source.to_provider(provider, allowed=allowed, strict=strict, errors=errors)
    variant = tool_search if isinstance(tool_search, str) else None
    return defer_definitions(
        definitions, deferred, provider, search=variant, add_search=tool_search is not False
    )
