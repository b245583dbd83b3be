"""What holds tools by name (`ToolSource`), and their provider definitions, cached per version.

The executor, the deferral and the adapters read tools through this protocol, so a
registry, a view of one or any other holder of tools can stand behind them; it sits
here, under the execution layer, because the registry package sits above it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from forge.tools.formats.report import Conversion, Errors
    from forge.tools.model.tool import Tool

__all__ = ["FixedTools", "ToolSource", "provider_conversion", "provider_definitions"]

T = TypeVar("T")


class ToolSource(Protocol):
    """What the executor and the derived functions read: a store, a registry or a view."""

    @property
    def version(self) -> int:
        """A counter that changes whenever the tools do."""
        ...

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, or ``None``."""
        ...

    def names(self) -> list[str]:
        """Every tool name, in order."""
        ...

    def derived(self, key: Hashable, build: Callable[[list[Tool]], T]) -> T:
        """A value computed from the tools, cached until they change."""
        ...


class FixedTools:
    """Tools that never change: the smallest `ToolSource` (a `BaseTool` run on its own)."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools = {t.name: t for t in tools}
        self._derived: dict[Hashable, Any] = {}

    @property
    def version(self) -> int:
        """Always 0: the tools never change."""
        return 0

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, or ``None``."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Every tool name, in order."""
        return list(self._tools)

    def derived(self, key: Hashable, build: Callable[[list[Tool]], T]) -> T:
        """A value computed from the tools once."""
        if key not in self._derived:
            self._derived[key] = build(list(self._tools.values()))
        return self._derived[key]  # type: ignore[no-any-return]


def provider_conversion(
    source: ToolSource, provider: str, *, strict: bool = False, errors: Errors = "report"
) -> Conversion:
    """The tools in a provider's wire format with one report per tool.

    Cached until the source changes; the definitions in it are read-only.
    """
    from forge.tools.formats import convert_all

    def build(tools: list[Tool]) -> Conversion:
        return convert_all(tools, provider, strict=strict, errors=errors)

    return source.derived(("to_provider", provider, bool(strict), errors), build)


def provider_definitions(
    source: ToolSource, provider: str, *, strict: bool = False, errors: Errors = "report"
) -> list[Any]:
    """The tools in a provider's wire format, in order (cached and read-only; a new list)."""
    return list(provider_conversion(source, provider, strict=strict, errors=errors).definitions)
