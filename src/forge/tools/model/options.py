"""`ToolOptions`: a tool's options, written once for every way of defining a tool.

`@tool` and `ToolFactory.tool` take them as keyword arguments, `ToolBuilder.options`
too (with a fluent method for the common ones), a record as keys, a
configuration file as keys (all but ``placement``, which its implementation
decides, and ``extra``, which the loader fills) and a `BaseTool` as class
attributes. `tool_fields` turns any of them into the `Tool` fields they set, so
a new option is one entry here, plus the `Tool` (or `ToolMetadata`) field it sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal, TypedDict

from forge.core.errors import ToolDefinitionError
from forge.tools.values.categories import ToolCategory
from forge.tools.values.metadata import ToolAnnotations, ToolExample, ToolMetadata
from forge.tools.values.output_limit import OutputLimit
from forge.tools.values.resources import ToolResources

__all__ = [
    "OPTION_NAMES",
    "ErrorDetails",
    "Placement",
    "ToolOptions",
    "options_of",
    "reject_unknown",
    "tool_fields",
]

Placement = Literal["auto", "inline", "process", "local"]
"""Where a tool's handler runs; one setting, chosen by the tool's author.

``auto`` (the default): an async handler is awaited by the caller; a sync
handler runs on a worker thread, so the call's deadline holds, except when a
sync caller's call has no deadline at all (then it runs on the caller's thread).
``inline``: a sync handler always runs on the caller's thread or event loop.
It saves the thread hop (about 50-100 µs), but nothing can interrupt it, so a
deadline is not enforced: choose it for fast, non-blocking handlers.
``process``: each call runs in a child process that is killed at the deadline,
for handlers that must really stop (the handler must be a module-level function).
``local``: like ``auto``, but never shipped to a remote backend
(`forge.tools.integrations.ray.RayBackend`): for handlers that need this process
(open connections, locks, in-memory state) or cannot be pickled.
"""
ErrorDetails = Literal["message", "type", "traceback"]
"""How much of a handler's exception a failed result shows (`forge.tools.execution.failures`)."""


class ToolOptions(TypedDict, total=False):
    """The options of a tool; every one may be left out."""

    name: str | None
    """The tool's unique name (default, or ``None``: the function's or class's)."""
    description: str | None
    """What the tool does, for the model (default, or ``None``: from the docstring)."""
    category: ToolCategory | str | None
    """A `ToolCategory` or its name."""
    tags: Iterable[str] | str
    """Keywords for search and filtering (one string is one tag)."""
    examples: Iterable[ToolExample | Mapping[str, Any]]
    """Example calls, validated against the parameters."""
    annotations: ToolAnnotations | Mapping[str, Any] | None
    """Behaviour hints (``read_only``, ``destructive``, ... or MCP's camelCase names)."""
    title: str | None
    """A human-readable title (``annotations.title``, unless that is set)."""
    timeout: float | None
    """Seconds a call may take, overriding the context's timeout."""
    placement: Placement
    """Where the handler runs: ``auto``, ``inline``, ``process`` or ``local`` (see `Placement`)."""
    max_concurrency: int | None
    """The most calls of this tool that may run at once (1: one at a time)."""
    resources: ToolResources | Mapping[str, Any] | None
    """What one call reserves on a remote backend's worker: ``num_cpus``, ``num_gpus``,
    ``memory`` (bytes) and ``resources`` (custom, by name); see `ToolResources`."""
    error_details: ErrorDetails
    """How much of a handler exception the model sees: ``message``, ``type`` or ``traceback``."""
    output_limit: OutputLimit | int | Mapping[str, Any] | None
    """How much of an output goes back to the model: an `OutputLimit`, ``max_chars``, or a
    mapping of ``max_chars`` and ``max_bytes`` (default: the executor's limit)."""
    display_name: str | None
    """A human-readable name."""
    usage_notes: str | None
    """Guidance on how to use the tool."""
    limitations: Iterable[str] | str
    """Known limitations (one string is one limitation)."""
    version: str | None
    """The tool's version."""
    author: str | None
    """Who wrote the tool."""
    deprecated: bool
    """Whether the tool should no longer be used."""
    replaced_by: str | None
    """The tool to use instead, when deprecated."""
    extra: Mapping[str, Any]
    """Free-form application data."""
    output_schema: Mapping[str, Any] | bool | None
    """The JSON Schema of the output. Default (or ``None``): from a typed function's
    return annotation, if it gives one; ``False``: none; ``True``: from the return
    annotation, which must give one (checked at once)."""


OPTION_NAMES: Final = ToolOptions.__optional_keys__ | ToolOptions.__required_keys__
"""Every option's name."""
_METADATA: Final = frozenset(ToolMetadata.__dataclass_fields__) & OPTION_NAMES
_EXECUTION: Final = frozenset(
    {"timeout", "placement", "max_concurrency", "error_details", "output_limit", "resources"}
)
_MISSING: Final = object()


def tool_fields(name: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The `Tool` fields ``options`` set: metadata, annotations and how it runs.

    ``name`` and ``description`` are the caller's to pass to `Tool`; fields
    whose option is not given are left out, so `Tool`'s defaults apply.

    Raises:
        ToolDefinitionError: An unknown option or an invalid value, naming the tool.
    """
    reject_unknown(name, options)
    try:
        metadata = ToolMetadata.build(**{k: v for k, v in options.items() if k in _METADATA})
        notes = ToolAnnotations.coerce(options.get("annotations"))
        title = options.get("title")
        if title is not None and notes.title is None:
            notes = ToolAnnotations.coerce({**notes.to_mcp(), "title": title})
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(name, str(exc)) from None
    fields = {k: v for k, v in options.items() if k in _EXECUTION}
    output = options.get("output_schema")
    if output is not None:
        fields["output_option"] = _output_option(name, output)
    return {"metadata": metadata, "annotations": notes, **fields}


def _output_option(name: str, value: Any) -> Mapping[str, Any] | bool:
    """The ``output_schema`` option checked: a valid JSON Schema object, or a bool."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, Mapping):
        raise ToolDefinitionError(
            name,
            "output_schema must be a JSON Schema object, True (from the return annotation) "
            f"or False (none), got {type(value).__name__}",
        )
    from forge.tools.schema import SchemaValidator

    SchemaValidator(name, value, kind="output")
    return dict(value)


def reject_unknown(
    name: str, keys: Iterable[str], allowed: Iterable[str] = OPTION_NAMES, what: str = "option(s)"
) -> None:
    """Raise a `ToolDefinitionError` naming each unknown key (and the closest allowed one)."""
    known = set(allowed)
    unknown = [str(key) for key in keys if key not in known]
    if not unknown:
        return
    import difflib

    hints = []
    for key in unknown:
        close = difflib.get_close_matches(key, known, n=1)
        hints.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise ToolDefinitionError(
        name, f"unknown {what}: {', '.join(hints)}; allowed: {', '.join(sorted(known))}"
    )


def options_of(obj: object, names: Iterable[str] = OPTION_NAMES) -> ToolOptions:
    """The options an object declares as attributes (a `BaseTool`'s class attributes).

    Methods are not options: an attribute whose value is callable is skipped.
    """
    found: dict[str, Any] = {}
    for key in names:
        value = getattr(obj, key, _MISSING)
        if value is not _MISSING and not callable(value):
            found[key] = value
    return found  # type: ignore[return-value]
