"""How each kind of tool builds its schema and calls its handler.

A `Tool` holds one `Source`; compiling it yields a `Compiled`: the parameters
schema, the validator and an ``invoke(kwargs, context)`` function. When the
handler can be called as ``fn(**kwargs)`` with nothing injected, ``fn`` is
set so the hot path skips one Python call.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from forge.core.errors import ToolDefinitionError
from forge.tools.schema._admits import Admits, admits_for
from forge.tools.schema._validation import SchemaValidator, arguments_validator
from forge.tools.values.context import ExecutionContext

if TYPE_CHECKING:
    from forge.tools.schema._param_table import Table

__all__ = ["Compiled", "FunctionSource", "ModelSource", "SchemaSource", "Source"]

Invoke = Callable[[dict[str, Any], "ExecutionContext | None"], Any]


@dataclass(slots=True)
class Compiled:
    """A tool ready to run: schema, validator and how to call the handler."""

    parameters: dict[str, Any]
    validate: Callable[[Any], dict[str, Any]]
    invoke: Invoke
    fn: Callable[..., Any] | None
    """Set when the handler is called as ``fn(**kwargs)`` with nothing injected."""
    validate_python: Callable[[Any], Any] | None = None
    """pydantic-core's validator returning ``(args, kwargs)``, when that is the validator."""
    table: Table | None = None
    """The parameter table of a simple schema (set by `Tool.compiled`), read by the formats."""
    admits: Admits | None = None
    """Says when an arguments dict needs no validation (`admits_for`): passed as it is, it
    calls ``fn`` as the validator's result would."""
    complete: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """The validator's result for arguments ``admits`` admits (parameter order, defaults)."""


class Source(Protocol):
    """Knows how to compile one kind of tool.

    A source of a typed handler also has ``returns``: the function whose return
    annotation gives the output schema (`forge.tools.schema._output`).
    """

    @property
    def is_async(self) -> bool:
        """Whether calling the handler returns an awaitable."""
        ...

    def compile(self, name: str) -> Compiled:
        """Build the schema, validator and invoker."""
        ...


def default_context(ctx: ExecutionContext | None) -> ExecutionContext:
    """The context a handler that asks for one receives: the call's, else an empty one."""
    return ctx if ctx is not None else ExecutionContext()


@dataclass(frozen=True, slots=True)
class FunctionSource:
    """A typed Python function; the schema comes from its signature."""

    fn: Callable[..., Any]
    param_descriptions: Mapping[str, str]
    is_async: bool

    @property
    def returns(self) -> Callable[..., Any]:
        """The function whose return annotation describes the output."""
        return self.fn

    def quick_parameters(self) -> dict[str, Any] | None:
        """The parameters schema without the validator, when the types are plain (else None)."""
        from forge.tools.schema._quick import quick_parameters

        return quick_parameters(self.fn, self.param_descriptions)

    def compile(self, name: str) -> Compiled:
        from forge.tools.schema._python import function_schema

        schema = function_schema(name, self.fn, dict(self.param_descriptions))
        validate = arguments_validator(name, schema.validate_python)
        fn = self.fn
        if not schema.context_params:
            compiled = Compiled(
                schema.parameters, validate, lambda kw, _ctx: fn(**kw), fn, schema.validate_python
            )
            admitted = admits_for(fn)
            if admitted is not None:
                compiled.admits, compiled.complete = admitted
            return compiled
        names = schema.context_params

        def invoke(kwargs: dict[str, Any], ctx: ExecutionContext | None) -> Any:
            context = default_context(ctx)
            return fn(**kwargs, **dict.fromkeys(names, context))

        return Compiled(schema.parameters, validate, invoke, None)


CallStyle = Literal["kwargs", "dict"]


@dataclass(frozen=True, slots=True)
class SchemaSource:
    """A JSON Schema plus a handler (records, configuration)."""

    schema: Mapping[str, Any]
    fn: Callable[..., Any] | None
    call_style: CallStyle
    is_async: bool
    rewrites: tuple[str, ...] = ()
    """What upgrading the schema given to draft 2020-12 changed (`check_json_schema`)."""

    def compile(self, name: str) -> Compiled:
        validate = SchemaValidator(name, self.schema)
        fn = self.fn
        if fn is None:
            raise ToolDefinitionError(name, "this tool has no handler to call")
        if self.call_style == "dict":
            return Compiled(dict(self.schema), validate, lambda kw, _ctx: fn(kw), None)
        return Compiled(dict(self.schema), validate, lambda kw, _ctx: fn(**kw), fn)


@dataclass(frozen=True, slots=True)
class ModelSource:
    """A pydantic model as the schema (builder ``.schema(Model)``) and a handler.

    The handler gets the validated model instance as ``pass_as`` when set,
    otherwise the model's fields as keyword arguments.
    """

    model: type[Any]
    fn: Callable[..., Any]
    pass_as: str | None
    is_async: bool

    @property
    def returns(self) -> Callable[..., Any]:
        """The function whose return annotation describes the output."""
        return self.fn

    def compile(self, name: str) -> Compiled:
        from forge.tools.schema._python import model_schema

        schema = model_schema(name, self.model)
        fn, pass_as = self.fn, self.pass_as
        if pass_as is None:
            validate = arguments_validator(name, schema.validate_python)
            return Compiled(schema.parameters, validate, lambda kw, _ctx: fn(**kw), fn)
        validate_python = schema.validate_python

        def as_instance(args: Any) -> Any:
            return ((), {pass_as: validate_python(args)})

        return Compiled(
            schema.parameters, arguments_validator(name, as_instance),
            lambda kw, _ctx: fn(**kw), fn,
        )  # fmt: skip


def call_style(name: str, fn: Callable[..., Any], schema: Mapping[str, Any]) -> CallStyle:
    """Decide how a record's handler takes its arguments.

    ``kwargs`` when the signature accepts every schema property by name (or has
    ``**kwargs``); ``dict`` when it takes exactly one positional parameter (the
    ``handler(args)`` convention of plain records).
    """
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return "kwargs"
    params = list(sig.parameters.values())
    properties = set(schema.get("properties", {}))
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return "kwargs"
    by_name = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    required = [p for p in params if p.default is p.empty and p.kind is not p.VAR_POSITIONAL]
    if properties and properties <= by_name and all(p.name in properties for p in required):
        return "kwargs"
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(required) <= 1 and positional and (not required or required[0] is positional[0]):
        return "dict"
    if not properties and not required:
        return "kwargs"
    raise ToolDefinitionError(
        name,
        f"the handler {getattr(fn, '__qualname__', fn)!r} accepts neither the parameters "
        f"{sorted(properties)} by name nor a single arguments dict; change its signature",
    )
