"""`create_tool()`: the fluent builder (seed 001, TM-6.3)."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from forge.core.errors import ToolDefinitionError
from forge.tools.model.tool import Tool, function_tool, is_coroutine
from forge.tools.values.categories import ToolCategory
from forge.tools.values.metadata import ToolAnnotations, ToolExample, ToolMetadata, string_tuple

__all__ = ["ToolBuilder", "create_tool"]


def create_tool() -> ToolBuilder:
    """Start building a tool: ``create_tool().name(...).description(...)...build()``."""
    return ToolBuilder()


class ToolBuilder:
    """Collects a tool's parts; `build` checks them and returns a `Tool`.

    Required: `name`, `description`, `category` and `implement`. Without
    `schema`, the parameters come from the implementation's type hints.
    """

    def __init__(self) -> None:
        self._name: str | None = None
        self._description: str | None = None
        self._category: ToolCategory | None = None
        self._schema: type[Any] | Mapping[str, Any] | None = None
        self._fn: Callable[..., Any] | None = None
        self._meta: dict[str, Any] = {}
        self._tags: list[str] = []
        self._examples: list[ToolExample | Mapping[str, Any]] = []
        self._limitations: list[str] = []
        self._annotations: dict[str, Any] = {}
        self._timeout: float | None = None

    def name(self, name: str) -> ToolBuilder:
        """Set the tool name (checked at once)."""
        from forge.tools.schema._names import check_name

        self._name = check_name(name)
        return self

    def description(self, description: str) -> ToolBuilder:
        """Set the description for the model."""
        self._description = description
        return self

    def category(self, category: ToolCategory | str) -> ToolBuilder:
        """Set the category."""
        self._category = ToolCategory.parse(category)
        return self

    def schema(self, schema: type[Any] | Mapping[str, Any]) -> ToolBuilder:
        """Set the parameters: a pydantic model class or a JSON Schema object."""
        self._schema = schema
        return self

    def implement(self, fn: Callable[..., Any]) -> ToolBuilder:
        """Set the handler (sync or async).

        With a model schema, a handler with a single parameter that is annotated
        with the model (or unannotated and not named like a field) receives the
        validated instance, like the seed's ``implement(input => ...)``;
        otherwise it receives the fields as keyword arguments.
        """
        if not callable(fn):
            raise TypeError(f"implement() needs a callable, got {type(fn).__name__}")
        self._fn = fn
        return self

    def display_name(self, name: str) -> ToolBuilder:
        """Set a human-readable name."""
        self._meta["display_name"] = name
        return self

    def tags(self, tags: Iterable[str] | str) -> ToolBuilder:
        """Add tags: a list of them, or one tag as a string."""
        self._tags.extend(string_tuple(tags, "tags"))
        return self

    def example(self, example: ToolExample | Mapping[str, Any]) -> ToolBuilder:
        """Add an example call (validated by `build`)."""
        self._examples.append(example)
        return self

    def usage_notes(self, notes: str) -> ToolBuilder:
        """Set usage notes."""
        self._meta["usage_notes"] = notes
        return self

    def limitations(self, limitations: Iterable[str] | str) -> ToolBuilder:
        """Add known limitations: a list of them, or one as a string."""
        self._limitations.extend(string_tuple(limitations, "limitations"))
        return self

    def version(self, version: str) -> ToolBuilder:
        """Set the tool version."""
        self._meta["version"] = version
        return self

    def author(self, author: str) -> ToolBuilder:
        """Set the author."""
        self._meta["author"] = author
        return self

    def deprecated(self, replaced_by: str | None = None) -> ToolBuilder:
        """Mark the tool deprecated, optionally naming its replacement."""
        self._meta["deprecated"] = True
        self._meta["replaced_by"] = replaced_by
        return self

    def annotations(self, **hints: Any) -> ToolBuilder:
        """Set behaviour hints (``read_only=True``, ``destructive=False``, ...)."""
        self._annotations.update(hints)
        return self

    def timeout(self, seconds: float) -> ToolBuilder:
        """Set the per-tool timeout in seconds."""
        self._timeout = seconds
        return self

    def build(self) -> Tool:
        """Check the parts and return the `Tool`.

        Raises:
            ToolDefinitionError: A required part is missing or a part is invalid.
        """
        missing = [
            part for part, value in (
                ("name", self._name),
                ("description", (self._description or "").strip() or None),
                ("category", self._category), ("implement", self._fn),
            ) if value is None
        ]  # fmt: skip
        if missing:
            raise ToolDefinitionError(
                self._name or "<unnamed>",
                f"cannot build the tool: missing {', '.join(missing)}; call "
                + ", ".join(f".{m}(...)" for m in missing)
                + " before .build()",
            )
        name, fn, description = (
            cast("str", self._name),
            cast("Any", self._fn),
            cast("str", self._description),
        )
        try:
            meta = ToolMetadata.build(
                category=self._category, tags=self._tags, examples=self._examples,
                limitations=self._limitations, **self._meta,
            )  # fmt: skip
            notes = ToolAnnotations.coerce(self._annotations or None)
        except (TypeError, ValueError) as exc:
            raise ToolDefinitionError(name, str(exc)) from None
        if self._schema is None:
            built = function_tool(fn, name=name, description=description)
            built = built.replace(metadata=meta, annotations=notes, timeout=self._timeout)
        else:
            built = Tool(
                name=name, description=description, handler=fn,
                metadata=meta, annotations=notes, timeout=self._timeout,
                source=self._source(name, self._schema, fn),
            )  # fmt: skip
        return built.compile()

    @staticmethod
    def _source(name: str, schema: type[Any] | Mapping[str, Any], fn: Callable[..., Any]) -> Any:
        from forge.tools.schema._sources import ModelSource, SchemaSource, call_style
        from forge.tools.schema._validation import check_json_schema

        if isinstance(schema, Mapping):
            checked = check_json_schema(name, schema)
            return SchemaSource(checked, fn, call_style(name, fn, checked), is_coroutine(fn))
        if not (isinstance(schema, type) and hasattr(schema, "__pydantic_core_schema__")):
            raise ToolDefinitionError(
                name, f"schema() needs a pydantic model class or a JSON Schema dict, got {schema!r}"
            )
        return ModelSource(schema, fn, _model_parameter(fn, schema), is_coroutine(fn))


def _model_parameter(fn: Callable[..., Any], model: type[Any]) -> str | None:
    """Return the name of ``fn``'s single parameter if it is annotated with ``model``."""
    try:
        params = list(inspect.signature(fn).parameters.values())
        hints = typing.get_type_hints(fn)
    except (TypeError, ValueError, NameError):
        return None
    if len(params) != 1:
        return None
    only = params[0]
    annotated = hints.get(only.name)
    fields = getattr(model, "model_fields", {})
    if annotated is model or (annotated is None and only.name not in fields):
        return only.name
    return None
