"""`create_tool()`: the fluent builder of the original design."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Unpack, cast

from forge.core.errors import ToolDefinitionError
from forge.tools.model.options import tool_fields
from forge.tools.model.tool import Tool, function_tool, is_coroutine
from forge.tools.values.categories import ToolCategory
from forge.tools.values.metadata import ToolAnnotations, ToolExample, string_tuple

if TYPE_CHECKING:
    from forge.tools.model.options import ToolOptions

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
        self._options: dict[str, Any] = {}

    def name(self, name: str) -> ToolBuilder:
        """Set the tool name (checked at once)."""
        from forge.tools.schema import check_name

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
        validated instance, like the original design's ``implement(input => ...)``;
        otherwise it receives the fields as keyword arguments.
        """
        if not callable(fn):
            raise TypeError(f"implement() needs a callable, got {type(fn).__name__}")
        self._fn = fn
        return self

    def options(self, **options: Unpack[ToolOptions]) -> ToolBuilder:
        """Set any of the `ToolOptions` (``placement``, ``max_concurrency``, ``title``, ...).

        A value given here replaces the one set before (tags, examples and
        limitations included); the methods below are shorthands for the common ones.
        """
        from forge.tools.model.options import reject_unknown

        given: dict[str, Any] = dict(options)
        reject_unknown(self._name or "<unnamed>", given)
        for key, value in given.items():
            if key in ("name", "description", "category"):
                getattr(self, key)(value)
            elif key == "examples":
                self._options[key] = list(value)
            elif key in ("tags", "limitations"):
                self._options[key] = list(string_tuple(value, key))
            else:
                self._options[key] = value
        return self

    def _add(self, key: str, values: list[Any]) -> ToolBuilder:
        self._options.setdefault(key, []).extend(values)
        return self

    def display_name(self, name: str) -> ToolBuilder:
        """Set a human-readable name."""
        return self.options(display_name=name)

    def tags(self, tags: Iterable[str] | str) -> ToolBuilder:
        """Add tags: a list of them, or one tag as a string."""
        return self._add("tags", list(string_tuple(tags, "tags")))

    def example(self, example: ToolExample | Mapping[str, Any]) -> ToolBuilder:
        """Add an example call (validated by `build`)."""
        return self._add("examples", [example])

    def usage_notes(self, notes: str) -> ToolBuilder:
        """Set usage notes."""
        return self.options(usage_notes=notes)

    def limitations(self, limitations: Iterable[str] | str) -> ToolBuilder:
        """Add known limitations: a list of them, or one as a string."""
        return self._add("limitations", list(string_tuple(limitations, "limitations")))

    def version(self, version: str) -> ToolBuilder:
        """Set the tool version."""
        return self.options(version=version)

    def author(self, author: str) -> ToolBuilder:
        """Set the author."""
        return self.options(author=author)

    def deprecated(self, replaced_by: str | None = None) -> ToolBuilder:
        """Mark the tool deprecated, optionally naming its replacement."""
        return self.options(deprecated=True, replaced_by=replaced_by)

    def annotations(self, **hints: Any) -> ToolBuilder:
        """Add behaviour hints (``read_only=True``, ``destructive=False``, ...)."""
        current = self._options.get("annotations") or {}
        if isinstance(current, ToolAnnotations):
            current = current.to_mcp()
        self._options["annotations"] = {**current, **hints}
        return self

    def timeout(self, seconds: float) -> ToolBuilder:
        """Set the per-tool timeout in seconds."""
        return self.options(timeout=seconds)

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
        fields = tool_fields(name, {**self._options, "category": self._category})
        if self._schema is None:
            built = function_tool(fn, name=name, description=description).replace(**fields)
        else:
            source = self._source(name, self._schema, fn)
            built = Tool(name=name, description=description, handler=fn, source=source, **fields)
        return built.compile()

    @staticmethod
    def _source(name: str, schema: type[Any] | Mapping[str, Any], fn: Callable[..., Any]) -> Any:
        from forge.tools.schema import ModelSource, SchemaSource, call_style, check_json_schema

        if isinstance(schema, Mapping):
            rewrites: list[str] = []
            checked = check_json_schema(name, schema, rewrites)
            style = call_style(name, fn, checked)
            return SchemaSource(checked, fn, style, is_coroutine(fn), tuple(rewrites))
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
