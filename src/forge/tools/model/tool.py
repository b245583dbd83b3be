"""`Tool`, the one canonical tool record, and the `@tool` decorator."""

from __future__ import annotations

import importlib
import inspect
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar, Unpack, overload

from forge.core.errors import ToolDefinitionError, ToolValidationError
from forge.tools.model import _callable
from forge.tools.model.options import ErrorDetails, Placement, tool_fields
from forge.tools.schema import analyse, check_name
from forge.tools.values import timeout_problem
from forge.tools.values.categories import ToolCategory
from forge.tools.values.metadata import ToolAnnotations, ToolMetadata
from forge.tools.values.output_limit import OutputLimit
from forge.tools.values.readonly import freeze
from forge.tools.values.resources import ToolResources

if TYPE_CHECKING:
    from forge.tools.model.options import ToolOptions
    from forge.tools.schema import Compiled, ReturnSchema, Source, Table
    from forge.tools.values.results import ToolResult

__all__ = ["ErrorDetails", "Placement", "Tool", "tool"]

F = TypeVar("F", bound=Callable[..., Any])

_COMPILE_LOCK = threading.RLock()
_UNSET = object()


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Tool(_callable.Named):
    """One tool: its definition, its metadata and the thing that runs it.

    Every way of defining a tool (decorator, `BaseTool`, builder, record,
    configuration) produces a `Tool`; the registry, the formats and the
    executor all work from it. The parameters schema and its validator are
    compiled on first use and cached (see `compile`).
    """

    name: str
    """The tool's unique name (``^[A-Za-z_][A-Za-z0-9_-]{0,63}$``)."""
    description: str
    """What the tool does, for the model."""
    handler: Callable[..., Any] | None = None
    """The Python callable behind the tool, if it has one."""
    metadata: ToolMetadata = field(default_factory=ToolMetadata)
    """Information for people, prompts and search."""
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    """Behaviour hints (read-only, destructive, ...)."""
    timeout: float | None = None
    """Seconds a call may take, overriding the context's timeout."""
    output_option: Mapping[str, Any] | bool | None = field(default=None, repr=False)
    """The ``output_schema`` option as given: a JSON Schema (kept as a read-only copy),
    ``False`` (none), ``True`` (from the return annotation, which must give one) or
    ``None`` (from the return annotation, if the tool has one that gives one)."""
    placement: Placement = "auto"
    """Where the handler runs (see `Placement`)."""
    max_concurrency: int | None = None
    """The most calls of this tool that may run at once (1: not safe for concurrent use)."""
    error_details: ErrorDetails = "message"
    """How much of a handler exception the model sees: ``message``, ``type`` or ``traceback``."""
    output_limit: OutputLimit | None = None
    """How much of an output goes back to the model (``None``: the executor's, else the
    default); an int is ``max_chars``, a mapping `OutputLimit`'s fields."""
    resources: ToolResources | None = None
    """What one call reserves on a remote backend's worker (a mapping of `ToolResources`'
    option keys is accepted); local execution ignores it."""
    source: Source = field(repr=False)
    """How the tool's schema is built and its handler called (internal)."""
    _compiled: Compiled | None = field(default=None, repr=False)
    _advertised: tuple[Mapping[str, Any], Table | None] | None = field(
        default=None, init=False, repr=False
    )
    """The parameters schema and its table, built without the validator when the types
    are plain (`forge.tools.schema._quick`); the compiled form then shares it."""
    _returns: ReturnSchema | object | None = field(default=_UNSET, init=False, repr=False)
    """The output schema from the return annotation, once read (internal)."""
    _plain: int = field(default=0, init=False, repr=False)
    """Which of the engine's fast paths may run it, and how (internal): 0 none (a
    concurrency limit, an output limit or a process); 1 the async driver's, awaiting an
    async handler; 2 the async driver's on a worker thread, and the blocking driver's when
    the call has no deadline; 3 both, on the caller's thread (a sync handler placed
    inline); 4 the async driver's on a worker thread (a sync handler with a timeout); 5 as
    1, for an async handler with a timeout."""

    def __post_init__(self) -> None:
        check_name(self.name)
        if not isinstance(self.description, str):
            raise ToolDefinitionError(self.name, "the description must be a string")
        wrong = None if self.timeout is None else timeout_problem(self.timeout)
        if wrong is not None:
            raise ToolDefinitionError(self.name, f"timeout {wrong}")
        _check_execution_options(self)
        _check_output_option(self)
        object.__setattr__(self, "_plain", _fast_paths(self))
        object.__setattr__(self, "__qualname__", _callable.qualname(self))

    def __setstate__(self, state: list[Any]) -> None:
        """Unpickle: the fields in order, as dataclasses pickles them, then ``__qualname__``."""
        for name, value in zip((f.name for f in fields(self)), state, strict=True):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "__qualname__", _callable.qualname(self))

    @property
    def parameters(self) -> dict[str, Any]:
        """The parameters JSON Schema (``type: object``), read-only.

        It is the schema the tool advertises and validates with, shared by every
        reader; ``copy.deepcopy`` gives a mutable copy.
        """
        compiled = self._compiled
        if compiled is not None:
            return compiled.parameters
        return (self._advertised or self._advertise())[0]  # type: ignore[return-value]

    @property
    def output_schema(self) -> Mapping[str, Any] | None:
        """The JSON Schema of the output, read-only; ``None`` when the tool has none.

        The one declared (``output_schema=``), else the one the handler's return
        annotation gives (``-> int``, ``-> Model``, ``-> list[Item]``, ...), built
        on first read; ``output_schema=False`` turns it off.
        """
        option = self.output_option
        if isinstance(option, Mapping):
            return option
        returns = self._returns_()
        return returns.schema if returns is not None else None

    def dump_output(self, output: Any) -> Any:
        """``output`` as JSON data, the way `output_schema` describes it (internal).

        With a schema from the return annotation, pydantic's serializer for that
        type makes it (aliases and custom serializers apply); otherwise
        `forge.tools.values.jsonable.to_jsonable`. Whether it matches is checked by the caller.
        """
        returns = None if isinstance(self.output_option, Mapping) else self._returns_()
        if returns is not None:
            return returns.dump(output)
        from forge.tools.values.jsonable import to_jsonable

        return to_jsonable(output)

    def _returns_(self) -> ReturnSchema | None:
        found = self._returns
        if found is _UNSET:
            with _COMPILE_LOCK:
                found = self._returns
                if found is _UNSET:
                    found = _infer_output(self)
                    object.__setattr__(self, "_returns", found)
        return found  # type: ignore[return-value]

    @property
    def schema_rewrites(self) -> tuple[str, ...]:
        """What upgrading the given parameters schema to JSON Schema 2020-12 changed.

        One line per rewrite (older-draft forms such as ``"exclusiveMinimum": true``),
        naming where and what; empty for a schema that needed none.
        """
        return tuple(getattr(self.source, "rewrites", ()))

    @property
    def category(self) -> ToolCategory:
        """The tool's category (from its metadata)."""
        return self.metadata.category

    @property
    def tags(self) -> tuple[str, ...]:
        """The tool's tags (from its metadata)."""
        return self.metadata.tags

    @property
    def is_async(self) -> bool:
        """Whether the handler is a coroutine function."""
        return self.source.is_async

    def compile(self) -> Tool:
        """Build and cache the schema and validator now; return the tool.

        Raises:
            ToolDefinitionError: The types cannot be turned into a schema, or an
                example is rejected by the tool's own parameters.
        """
        self.compiled()
        return self

    def compiled(self) -> Compiled:
        """Return the compiled form (schema, validator, caller), built on first use (internal).

        `compile` builds the same thing ahead of the first call and returns the tool.
        """
        compiled = self._compiled
        if compiled is not None:
            return compiled
        with _COMPILE_LOCK:
            if self._compiled is None:
                compiled = self.source.compile(self.name)
                compiled.validate = _lenient(compiled.validate, compiled.parameters)
                _check_examples(self, compiled.validate)
                if self._advertised is not None:  # the same schema, already read by others
                    compiled.parameters, compiled.table = self._advertised  # type: ignore[assignment]
                else:
                    compiled.parameters = freeze(compiled.parameters)
                    compiled.table = analyse(compiled.parameters)
                object.__setattr__(self, "_compiled", compiled)
            return self._compiled  # type: ignore[return-value]

    def schema_and_table(self) -> tuple[dict[str, Any], Table | None]:
        """The parameters schema and its parameter table (internal, for the provider formats)."""
        compiled = self._compiled
        if compiled is not None:
            return compiled.parameters, compiled.table
        return self._advertised or self._advertise()  # type: ignore[return-value]

    def _advertise(self) -> tuple[Mapping[str, Any], Table | None]:
        """Build the schema an export needs, without the validator when the types allow.

        A tool with examples is compiled instead: its examples are checked then.
        """
        quick = getattr(self.source, "quick_parameters", None)
        parameters = quick() if quick is not None and not self.metadata.examples else None
        if parameters is None:
            compiled = self.compiled()
            return compiled.parameters, compiled.table
        with _COMPILE_LOCK:
            if self._compiled is not None:
                return self._compiled.parameters, self._compiled.table
            if self._advertised is None:
                frozen = freeze(parameters)
                object.__setattr__(self, "_advertised", (frozen, analyse(frozen)))
            return self._advertised  # type: ignore[return-value]

    def validate(self, arguments: Any) -> dict[str, Any]:
        """Validate arguments, returning the keyword arguments the handler receives.

        Raises:
            ToolValidationError: Naming every bad field.
        """
        return (self._compiled or self.compiled()).validate(arguments)

    def to_dict(self) -> dict[str, Any]:
        """Return the provider-neutral definition: name, description, parameters (+ extras).

        The dict is new on each call; the schemas in it are the tool's own, read-only.
        """
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        }
        if self.output_schema is not None:
            out["output_schema"] = self.output_schema
        return out

    def to_openai_schema(self, *, strict: bool = False) -> dict[str, Any]:
        """Return the OpenAI Chat Completions tool definition (same code as `to_provider`)."""
        from forge.tools.formats import to_provider

        return to_provider([self], "openai", strict=strict)[0]  # type: ignore[no-any-return]

    def to_anthropic_schema(self, *, strict: bool = False) -> dict[str, Any]:
        """Return the Anthropic Messages tool definition (same code as `to_provider`)."""
        from forge.tools.formats import to_provider

        return to_provider([self], "anthropic", strict=strict)[0]  # type: ignore[no-any-return]

    # -- the tool API of the original design, as thin delegates ------------------------

    @property
    def schema(self) -> dict[str, Any]:
        """The input JSON Schema, read-only: `parameters` under the original design's name."""
        return self.parameters

    async def execute(self, input: Any = None) -> Any:
        """Validate ``input``, run the tool and return its value (the original design's API).

        It runs as ``ToolRegistry([tool]).aexecute(tool.name, input)`` does, on the one
        engine of every entry point; `__call__` calls the handler without validation.

        Raises:
            ToolValidationError: ``input`` does not match the schema (or is not JSON).
            ToolExecutionError: The handler raised, timed out or was denied; ``.result``
                is the failed result and its message the text a model would read.
        """
        registry = _alone(self)
        try:
            return _value(self, await registry.aexecute(self.name, input))
        finally:
            registry.close()

    def execute_sync(self, input: Any = None) -> Any:
        """`execute` for sync code."""
        registry = _alone(self)
        try:
            return _value(self, registry.execute(self.name, input))
        finally:
            registry.close()

    def to_langchain_tool(self) -> Any:
        """Return a LangChain ``StructuredTool`` running this tool on an executor of its own.

        It is `forge.tools.integrations.langchain.to_langchain` (``langchain`` extra).

        Raises:
            MissingDependencyError: ``langchain-core`` is not installed.
        """
        from forge.tools.formats.langchain import integration

        return integration("to_langchain")(self)

    def replace(self, **changes: Any) -> Tool:
        """Return a copy with some fields changed (the compiled cache is kept if valid)."""
        import dataclasses

        if "output_schema" in changes:
            declared = changes.pop("output_schema")
            changes["output_option"] = False if declared is None else declared
        keep = not ({"source", "name"} & changes.keys())
        changes.setdefault("_compiled", self._compiled if keep else None)
        return dataclasses.replace(self, **changes)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying handler directly, without validation."""
        if self.handler is None:
            raise TypeError(f"tool {self.name!r} has no Python handler to call")
        return self.handler(*args, **kwargs)

    # -- what libraries that inspect callables read (`forge.tools.model._callable`) ---------

    @property
    def __name__(self) -> str:
        """The tool's name, as a function's ``__name__``."""
        return self.name

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        """The handler (so `inspect.signature` gives its signature); absent without one."""
        return _callable.wrapped(self)  # type: ignore[no-any-return]


_callable.install(Tool)


def _alone(t: Tool) -> Any:
    """A registry holding only ``t``, for `Tool.execute`.

    Running a tool is the executor's job, and it sits above the model, so the
    registry is loaded by name when a tool runs this way, as the formats load the
    LangChain integration (`forge.tools.formats.langchain`).
    """
    return importlib.import_module("forge.tools.registry").ToolRegistry([t])


def _fast_paths(t: Tool) -> int:
    """What `Tool._plain` says of ``t``."""
    if t.max_concurrency is not None or t.placement == "process" or t.output_limit is not None:
        return 0
    if t.source.is_async:
        return 5 if t.timeout else 1
    if t.placement == "inline":
        return 3
    return 4 if t.timeout else 2


def _value(t: Tool, result: ToolResult) -> Any:
    """A run's output, or the `ToolExecutionError` of a failed run."""
    if result.success:
        return result.output
    from forge.core.errors import ToolExecutionError

    raise ToolExecutionError(t.name, result.error or "the tool failed", result=result)


def _check_execution_options(t: Tool) -> None:
    limit = t.max_concurrency
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ToolDefinitionError(
            t.name, f"max_concurrency must be a positive integer or None, got {limit!r}"
        )
    if t.error_details not in ("message", "type", "traceback"):
        raise ToolDefinitionError(
            t.name,
            f"error_details must be 'message', 'type' or 'traceback', got {t.error_details!r}",
        )
    if t.placement not in ("auto", "inline", "process", "local"):
        raise ToolDefinitionError(
            t.name,
            f"placement must be 'auto', 'inline', 'process' or 'local', got {t.placement!r}",
        )
    try:
        object.__setattr__(t, "resources", ToolResources.coerce(t.resources))
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(t.name, f"resources: {exc}") from None
    try:
        object.__setattr__(t, "output_limit", OutputLimit.coerce(t.output_limit))
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(t.name, f"output_limit: {exc}") from None


def _check_output_option(t: Tool) -> None:
    option = t.output_option
    if isinstance(option, Mapping):
        object.__setattr__(t, "output_option", freeze(option))
    elif option is True:
        if getattr(t.source, "returns", None) is None:
            raise ToolDefinitionError(
                t.name,
                "output_schema=True takes the schema from a typed function's return "
                "annotation, and this tool has none; pass the output JSON Schema instead",
            )
        t._returns_()
    elif option is not None and option is not False:
        raise ToolDefinitionError(
            t.name,
            "output_schema must be a JSON Schema object, True (from the return annotation) "
            f"or False (none), got {type(option).__name__}",
        )


def _infer_output(t: Tool) -> ReturnSchema | None:
    """The output schema of the tool's return annotation, unless turned off or declared."""
    returns = getattr(t.source, "returns", None)
    if t.output_option is False or returns is None:
        return None
    from forge.tools.schema import ReturnSchema, return_schema

    found = return_schema(t.name, returns, required=t.output_option is True)
    if found is not None:
        return ReturnSchema(freeze(found.schema), found.dump)
    return None


def _lenient(
    validate: Callable[[Any], dict[str, Any]], parameters: Mapping[str, Any]
) -> Callable[[Any], dict[str, Any]]:
    """Validation that also accepts what strict-mode definitions make a model send.

    Arguments that validate are never touched. Rejected ones are mapped back
    from strict mode (`forge.tools.formats.strict_arguments`) and validated
    once more: a ``null`` for an optional parameter whose schema does not allow
    ``null`` can only mean "left out" (so its default applies), and an object or
    array sent as JSON text where the schema wants one can only mean that
    value. Either would be invalid otherwise, so no switch is needed.
    """

    def lenient(arguments: Any) -> dict[str, Any]:
        try:
            return validate(arguments)
        except ToolValidationError:
            if not isinstance(arguments, Mapping):
                raise
            from forge.tools.formats.strict_args import restore_arguments

            restored = restore_arguments(parameters, arguments)
            if restored == arguments:
                raise
        return validate(restored)

    return lenient


def _check_examples(t: Tool, validate: Callable[[Any], Any]) -> None:
    for i, example in enumerate(t.metadata.examples):
        try:
            validate(dict(example.input))
        except ToolValidationError as exc:
            details = "; ".join(str(e) for e in exc.errors)
            raise ToolDefinitionError(
                t.name,
                f"example {i + 1} ({example.description!r}) is rejected by the tool's own "
                f"parameters: {details}",
            ) from None


@overload
def tool(fn: F, /, **options: Unpack[ToolOptions]) -> Tool: ...
@overload
def tool(**options: Unpack[ToolOptions]) -> Callable[[F], Tool]: ...
def tool(
    fn: Callable[..., Any] | None = None, /, **options: Unpack[ToolOptions]
) -> Tool | Callable[[F], Tool]:
    """Turn a typed function (sync or async) into a `Tool`.

    Use as ``@tool``, ``@tool(name=..., category=..., ...)`` or
    ``tool(fn, name=..., ...)``. The parameters
    schema comes from the type hints, descriptions from the docstring (Google,
    NumPy or reST). A parameter annotated with `ExecutionContext` is injected
    at call time and hidden from the model. The returned `Tool` can still be
    called like the function.

    Args:
        **options: Any of the `ToolOptions` (``name``, ``description``,
            ``category``, ``tags``, ``timeout``, ``placement``,
            ``max_concurrency``, ``examples``, ...). ``name`` defaults to the
            function's name, ``description`` to its docstring's.

    Raises:
        ToolDefinitionError: An unknown option, an invalid value or an
            unsupported signature, naming the tool.
    """

    def decorate(func: Callable[..., Any]) -> Tool:
        return function_tool(func, **options)

    if fn is not None:
        return decorate(fn)
    return decorate


def function_tool(func: Callable[..., Any], **options: Unpack[ToolOptions]) -> Tool:
    """Build a `Tool` from a typed function (the implementation of `tool`)."""
    from forge.tools.schema import FunctionSource, check_signature, describe_function

    name = options.get("name")
    if isinstance(func, Tool):
        raise ToolDefinitionError(func.name, "this function is already a Tool")
    if not callable(func):
        raise ToolDefinitionError(str(name), f"@tool needs a function, got {type(func).__name__}")
    tool_name = check_name(name if name is not None else getattr(func, "__name__", None))
    check_signature(tool_name, func)
    doc_description, param_docs = describe_function(func)
    description = options.get("description")
    result = Tool(
        name=tool_name,
        description=description if description is not None else doc_description,
        handler=func,
        source=FunctionSource(func, param_docs, is_coroutine(func)),
        **tool_fields(tool_name, options),
    )
    if result.metadata.examples:
        result.compile()
    return result


def is_coroutine(func: Callable[..., Any]) -> bool:
    """Return whether calling ``func`` returns a coroutine."""
    if inspect.iscoroutinefunction(func):
        return True
    method = getattr(type(func), "__call__", None)  # noqa: B004 - the method itself is needed
    return method is not None and inspect.iscoroutinefunction(method)
