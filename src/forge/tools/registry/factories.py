"""Tool factories: tools built from a class, created lazily, with dependencies injected.

Register a tool *class* (or a factory function whose return annotation is
that class) and the instance is created only when a call needs it::

    factory = ToolFactory({"db": database, HttpClient: client})
    registry.register(factory.tool(SearchTool, lifetime="singleton", config={"limit": 5}))
    # or: registry.register_factory(SearchTool, dependencies={...}, config={...})

The class is either a `BaseTool` subclass or a class with a typed
``__call__`` (sync or async; its parameters are the tool's). The tool's name,
description and schema are read from the class, so listing, searching and
converting to provider formats never create an instance. Constructor
parameters are filled from ``config`` first, then from the dependencies by
parameter name, then by annotated type; a parameter that none of them
provides (and that has no default) is a `ToolDefinitionError` when the tool
is defined, not when it is first called.

Lifetimes: ``singleton`` creates one instance on first use (concurrent first
calls wait for the same one); ``per_request`` creates one per call. The
instance's ``setup()`` and ``teardown()`` methods (sync or async, both
optional) run exactly once per instance: setup right after construction,
teardown after the call (``per_request``) or when the registry or the factory
is closed (``singleton``). Teardown runs only for instances whose setup
completed; an error in it is logged, not raised. A singleton whose creation
failed is retried on the next call.
"""

from __future__ import annotations

import concurrent.futures
import inspect
import re
import threading
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Unpack

from forge.core.errors import ToolDefinitionError
from forge.core.logging import get_logger
from forge.tools.execution import ASYNC_WAIT, BLOCKING_WAIT, Waiter, complete
from forge.tools.values.context import ExecutionContext

if TYPE_CHECKING:
    from forge.tools.model.options import ToolOptions
    from forge.tools.model.tool import Tool
    from forge.tools.schema import Compiled

__all__ = ["Lifetime", "ToolFactory"]

logger = get_logger("tools.factory")

Lifetime = Literal["singleton", "per_request"]
DependencyKey = str | type


class ToolFactory:
    """Builds lazily instantiated tools and injects their dependencies.

    Args:
        dependencies: Values to inject, keyed by parameter name (``str``) or by type.
    """

    def __init__(self, dependencies: Mapping[DependencyKey, Any] | None = None) -> None:
        self._dependencies: dict[DependencyKey, Any] = dict(dependencies or {})
        self._providers: list[_Provider] = []
        self._lock = threading.Lock()

    def provide(self, key: DependencyKey, value: Any) -> None:
        """Add or replace a dependency (instances created later see it)."""
        self._dependencies[key] = value

    def tool(
        self,
        factory: Callable[..., Any],
        *,
        lifetime: Lifetime = "singleton",
        config: Mapping[str, Any] | None = None,
        **options: Unpack[ToolOptions],
    ) -> Tool:
        """Return a `Tool` whose instance ``factory`` creates when a call needs it.

        Args:
            factory: A tool class, or a function returning one (annotated with the class).
            lifetime: ``singleton`` (one instance, created on first use) or ``per_request``.
            config: Constructor arguments given directly (they win over dependencies).
            **options: Any of the `ToolOptions`; each one given (and not ``None``) wins
                over the class's. By default the name is the class's ``name`` (or its
                snake_case name), the description the class's (or its docstring), and a
                `BaseTool` class's other options are its class attributes.

        Raises:
            ToolDefinitionError: The class is not a tool, or a dependency is missing.
        """
        name, description = options.get("name"), options.get("description")
        if lifetime not in ("singleton", "per_request"):
            raise ToolDefinitionError(
                str(name or getattr(factory, "__name__", None) or factory),
                f"lifetime must be 'singleton' or 'per_request', got {lifetime!r}",
            )
        spec = _describe(factory, name, description)
        bindings = _bindings(spec.name, factory, dict(config or {}), self._dependencies)
        provider = _Provider(spec.name, self._creator(factory, bindings), lifetime, spec.cls)
        with self._lock:
            self._providers.append(provider)
        given = {k: v for k, v in options.items() if v is not None}
        return _make_tool(spec, provider, given)

    def _creator(self, factory: Callable[..., Any], bindings: dict[str, Any]) -> Callable[[], Any]:
        deps = self._dependencies

        def create() -> Any:
            kwargs = {
                param: (value if kind == "config" else deps[value])
                for param, (kind, value) in bindings.items()
            }
            return factory(**kwargs)

        return create

    def close(self) -> None:
        """Tear down every singleton this factory created (each exactly once)."""
        for provider in self._snapshot():
            complete(provider.close(BLOCKING_WAIT))

    async def aclose(self) -> None:
        """`close` for async code (async teardowns are awaited on the running loop)."""
        for provider in self._snapshot():
            await provider.close(ASYNC_WAIT)

    def _snapshot(self) -> list[_Provider]:
        with self._lock:
            return list(self._providers)


# -- describing the class ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Spec:
    cls: type[Any]
    name: str
    description: str
    kind: Literal["base_tool", "callable"]
    prototype: Any


def _describe(factory: Callable[..., Any], name: str | None, description: str | None) -> _Spec:
    from forge.tools.base import BaseTool

    label = str(name or getattr(factory, "__name__", None) or factory)
    cls = factory if isinstance(factory, type) else _returned_class(label, factory)
    if issubclass(cls, BaseTool):
        proto = _prototype(label, cls)
        try:
            found_name, found_description = proto.name, proto.description
        except Exception as exc:
            raise _unreadable(label, cls, exc) from None
        return _Spec(cls, name or found_name, description or found_description, "base_tool", proto)
    if not any("__call__" in vars(k) for k in cls.__mro__ if k is not object):
        raise ToolDefinitionError(
            label, f"{cls.__qualname__} is neither a BaseTool subclass nor a class with __call__"
        )
    own_name = cls.__dict__.get("name")
    tool_name = name or (own_name if isinstance(own_name, str) else _snake(cls.__name__))
    if description is None:
        from forge.tools.schema import describe_function

        own = cls.__dict__.get("description")
        description = own if isinstance(own, str) else describe_function(cls.__call__)[0]
        description = description or inspect.getdoc(cls) or ""
    return _Spec(cls, tool_name, description, "callable", None)


def _returned_class(label: str, factory: Callable[..., Any]) -> type[Any]:
    try:
        returned = typing.get_type_hints(factory).get("return")
    except Exception:
        returned = None
    if not isinstance(returned, type) or returned is typing.Any:
        raise ToolDefinitionError(
            label,
            "a factory function must be annotated with the tool class it returns "
            "(def make() -> MyTool), so the tool can be described without calling it",
        )
    return returned


def _prototype(label: str, cls: type[Any]) -> Any:
    """An instance that skipped ``__init__``: enough to read constant properties."""
    try:
        return object.__new__(cls)
    except TypeError as exc:  # abstract methods left unimplemented
        raise ToolDefinitionError(label, str(exc)) from None


def _unreadable(label: str, cls: type[Any], exc: Exception) -> ToolDefinitionError:
    return ToolDefinitionError(
        label,
        f"cannot read the definition of {cls.__qualname__} without creating an instance "
        f"({type(exc).__name__}: {exc}); make name, description, category and parameters "
        "class attributes or properties that do not use instance state",
    )


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _bindings(
    label: str,
    factory: Callable[..., Any],
    config: dict[str, Any],
    deps: Mapping[DependencyKey, Any],
) -> dict[str, Any]:
    """Decide, once, where each constructor parameter comes from."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return {k: ("config", v) for k, v in config.items()}
    target = factory.__init__ if isinstance(factory, type) else factory  # type: ignore[misc]
    try:
        hints = typing.get_type_hints(target)
    except Exception:
        hints = {}
    out: dict[str, Any] = {}
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        hint = hints.get(p.name)
        if p.name in config:
            out[p.name] = ("config", config[p.name])
        elif p.name in deps:
            out[p.name] = ("dependency", p.name)
        elif (key := _by_type(hint, deps)) is not None:
            out[p.name] = ("dependency", key)
        elif p.default is p.empty:
            raise ToolDefinitionError(
                label,
                f"no value for constructor parameter {p.name!r}"
                + (f" ({_type_name(hint)})" if hint is not None else "")
                + "; pass it in config or provide a dependency by that name or type",
            )
    unknown = set(config) - set(out)
    if unknown and not accepts_any:
        raise ToolDefinitionError(
            label, f"config has keys the constructor does not take: {', '.join(sorted(unknown))}"
        )
    out.update((k, ("config", config[k])) for k in unknown)
    return out


def _by_type(hint: Any, deps: Mapping[DependencyKey, Any]) -> type | None:
    if not isinstance(hint, type):
        return None
    if hint in deps:
        return hint
    for key in deps:
        if isinstance(key, type) and issubclass(key, hint):
            return key
    return None


def _type_name(hint: Any) -> str:
    return getattr(hint, "__qualname__", None) or repr(hint)


# -- instances ------------------------------------------------------------------------------


class _Provider:
    """Creates, sets up and tears down the instances of one factory tool."""

    def __init__(
        self, name: str, create: Callable[[], Any], lifetime: Lifetime, cls: type[Any]
    ) -> None:
        self.name = name
        self.lifetime = lifetime
        self._create = create
        self._has_setup = callable(getattr(cls, "setup", None))
        self._has_teardown = callable(getattr(cls, "teardown", None))
        self._lock = threading.Lock()
        self._instance: Any = None
        self._ready = False
        self._pending: concurrent.futures.Future[Any] | None = None

    # Each step is written once, over a `Waiter` (`forge.tools.execution._drive`): sync callers
    # drive it with BLOCKING_WAIT and `complete`, async ones with ASYNC_WAIT.

    async def acquire(self, io: Waiter) -> Any:
        """The instance for one call (singletons: created once, concurrent callers wait)."""
        if self.lifetime == "per_request":
            return await self._new(io)
        if self._ready:
            return self._instance
        pending, creator = self._claim()
        if not creator:
            return await io.future(pending)
        try:
            instance = await self._new(io)
        except BaseException as exc:
            self._failed(pending, exc)
            raise
        return self._created(pending, instance)

    def _claim(self) -> tuple[concurrent.futures.Future[Any], bool]:
        with self._lock:
            if self._ready:
                done: concurrent.futures.Future[Any] = concurrent.futures.Future()
                done.set_result(self._instance)
                return done, False
            if self._pending is not None:
                return self._pending, False
            self._pending = concurrent.futures.Future()
            return self._pending, True

    def _created(self, pending: concurrent.futures.Future[Any], instance: Any) -> Any:
        with self._lock:
            self._instance, self._ready, self._pending = instance, True, None
        pending.set_result(instance)
        return instance

    def _failed(self, pending: concurrent.futures.Future[Any], exc: BaseException) -> None:
        with self._lock:
            self._pending = None
        pending.set_exception(exc)

    async def _new(self, io: Waiter) -> Any:
        instance = await io.resolve(self._create())
        if self._has_setup:
            await io.resolve(instance.setup())
        return instance

    async def release(self, io: Waiter, instance: Any) -> None:
        """The call is over: a per-request instance is torn down."""
        if self.lifetime == "per_request":
            await self._teardown(io, instance)

    def _take_singleton(self) -> tuple[bool, Any]:
        with self._lock:
            ready, instance = self._ready, self._instance
            self._ready, self._instance = False, None
        return ready, instance

    async def close(self, io: Waiter) -> None:
        """Tear the singleton down, if one was created."""
        ready, instance = self._take_singleton()
        if ready:
            await self._teardown(io, instance)

    async def _teardown(self, io: Waiter, instance: Any) -> None:
        if not self._has_teardown:
            return
        try:
            await io.resolve(instance.teardown())
        except Exception:
            logger.exception("teardown of tool %r failed", self.name)


# -- the tool -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FactorySource:
    """A tool whose handler is a method of a lazily created instance."""

    spec: _Spec
    provider: _Provider
    is_async: bool

    @property
    def returns(self) -> Callable[..., Any] | None:
        """The method whose return annotation describes the output (a `BaseTool` has none)."""
        return None if self.spec.kind == "base_tool" else self.spec.cls.__call__

    def compile(self, name: str) -> Compiled:
        if self.spec.kind == "base_tool":
            return self._compile_base_tool(name)
        return self._compile_callable(name)

    def _compile_base_tool(self, name: str) -> Compiled:
        from forge.tools.schema import Compiled, SchemaValidator
        from forge.tools.values.params import parameters_schema

        try:
            schema = parameters_schema(self.spec.prototype.parameters)
        except ValueError as exc:
            raise ToolDefinitionError(name, str(exc)) from None
        except Exception as exc:
            raise _unreadable(name, self.spec.cls, exc) from None
        provider = self.provider

        async def invoke(kwargs: dict[str, Any], ctx: ExecutionContext | None) -> Any:
            instance = await provider.acquire(ASYNC_WAIT)
            try:
                return await instance._execute(ctx or ExecutionContext(), **kwargs)
            finally:
                await provider.release(ASYNC_WAIT, instance)

        return Compiled(schema, SchemaValidator(name, schema), invoke, None)

    def _compile_callable(self, name: str) -> Compiled:
        from forge.tools.schema import (
            Compiled,
            arguments_validator,
            describe_function,
            function_schema,
        )

        method = self.spec.cls.__call__
        bound = types.MethodType(method, _Unbound())
        schema = function_schema(name, bound, describe_function(method)[1])
        validate = arguments_validator(name, schema.validate_python)
        names, provider = schema.context_params, self.provider

        def extra(ctx: ExecutionContext | None) -> dict[str, Any]:
            return dict.fromkeys(names, ctx or ExecutionContext()) if names else {}

        async def call(io: Waiter, kwargs: dict[str, Any], ctx: ExecutionContext | None) -> Any:
            instance = await provider.acquire(io)
            try:
                return await io.resolve(instance(**kwargs, **extra(ctx)))
            finally:
                await provider.release(io, instance)

        def invoke(kwargs: dict[str, Any], ctx: ExecutionContext | None) -> Any:
            if self.is_async:
                return call(ASYNC_WAIT, kwargs, ctx)  # a coroutine, awaited by the engine
            return complete(call(BLOCKING_WAIT, kwargs, ctx))

        return Compiled(schema.parameters, validate, invoke, None)

    def close(self) -> None:
        """Tear down the singleton, if one was created."""
        complete(self.provider.close(BLOCKING_WAIT))

    async def aclose(self) -> None:
        """Tear down the singleton from async code."""
        await self.provider.close(ASYNC_WAIT)


class _Unbound:
    """Stands in for ``self`` while the schema is read from ``__call__``; never called."""


def _make_tool(spec: _Spec, provider: _Provider, given: dict[str, Any]) -> Tool:
    from forge.tools.model.options import options_of, tool_fields
    from forge.tools.model.tool import Tool, is_coroutine

    if spec.kind == "base_tool":
        try:
            declared = options_of(spec.prototype)
        except Exception as exc:
            raise _unreadable(spec.name, spec.cls, exc) from None
        is_async = True
    else:
        own = spec.cls.__dict__.get("category")
        declared = {"category": own} if own is not None and not callable(own) else {}
        is_async = is_coroutine(spec.cls.__call__)
    made = Tool(
        name=spec.name,
        description=spec.description,
        source=FactorySource(spec, provider, is_async),
        **tool_fields(spec.name, {**declared, **given}),
    )
    return made.compile() if made.metadata.examples else made


def close_tools(tools: Iterable[Tool]) -> None:
    """Tear down the singletons of the factory tools among ``tools``."""
    for t in tools:
        if isinstance(t.source, FactorySource):
            t.source.close()


async def aclose_tools(tools: Iterable[Tool]) -> None:
    """`close_tools` for async code."""
    for t in tools:
        if isinstance(t.source, FactorySource):
            await t.source.aclose()
