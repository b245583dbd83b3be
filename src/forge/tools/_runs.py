"""The run methods a registry and its views share (`RunMethods`).

Every run method goes through the one engine (`forge.tools.execution._pipeline`),
an executor with no context, hooks or policy over the object itself, so a view's
calls look tools up by the view's names. The raising methods turn the engine's
unknown-tool and invalid-argument results into exceptions carrying the same message.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from forge.core.errors import ToolDefinitionError, ToolNotFoundError, ToolValidationError
from forge.tools.execution import checked as _checked
from forge.tools.execution import failure, fault, finish, plain
from forge.tools.values import ok_result_for as _ok_for
from forge.tools.values.results import ToolResult

if TYPE_CHECKING:
    from forge.tools.execution.executor import ToolExecutor
    from forge.tools.model.tool import Tool
    from forge.tools.turns import Turn, TurnStream
    from forge.tools.values.calls import ToolCall
    from forge.tools.values.context import ExecutionContext

__all__ = ["RunMethods"]

T = TypeVar("T")


class RunMethods:
    """``execute``, ``aexecute``, ``execute_all`` and ``aexecute_all`` over ``self.get``.

    The class using it provides ``get``, ``names``, ``version``, ``derived``,
    ``_not_found`` and a ``_lock``.
    """

    __slots__ = ()

    if TYPE_CHECKING:
        _lock: threading.RLock

        @property
        def version(self) -> int: ...
        def get(self, name: str) -> Tool | None: ...
        def names(self) -> list[str]: ...
        def derived(self, key: Hashable, build: Callable[[list[Tool]], T]) -> T: ...
        def _not_found(self, name: str) -> ToolNotFoundError: ...

    def execute(
        self, name: str, arguments: Any = None, *, context: ExecutionContext | None = None
    ) -> ToolResult:
        """Validate and run one tool.

        The context's timeout holds as on every entry point: a sync handler then
        runs on a worker thread (see `forge.tools.execution.executor`).

        Returns:
            ``ToolResult.ok(<return value>)``, or a failed result if the handler raised,
            timed out or was denied.

        Raises:
            ToolNotFoundError: No tool is called ``name``.
            ToolValidationError: The arguments are not JSON or do not match the schema.
            ToolDefinitionError: The tool's definition cannot be compiled.

        Both model-caused errors carry, as ``message``, the text every other entry
        point puts in its failed result (`forge.tools.execution.failures`).
        """
        found = self.get(name)
        if found is not None and found._direct and context is None:
            compiled = found._compiled
            if compiled is not None and compiled.run_sync is not None:
                try:  # the engine's sync fast path, inlined: the hottest case of all
                    result: ToolResult = compiled.run_sync(arguments, None)
                except ToolValidationError:
                    pass  # the engine builds the failure and its message
                else:  # the runner has checked the output (see `_shaped`)
                    return result if result.success else _shaped(result, self)
        return _raise_for(self, name, self._engine().run_sync(name, arguments, context))

    async def aexecute(
        self, name: str, arguments: Any = None, *, context: ExecutionContext | None = None
    ) -> ToolResult:
        """`execute` for async code (sync handlers run off the event loop unless placed inline)."""
        found = self.get(name)
        fn = _async_fn(found) if context is None and type(arguments) is dict else None
        if fn is not None:
            try:  # the engine's async fast path, inlined for a plain coroutine function
                kwargs = found._compiled.validate_python(arguments)[1]  # type: ignore[union-attr, misc]
            except Exception:
                pass  # the engine validates again and builds the failure and its message
            else:
                try:
                    out = await fn(**kwargs)
                except Exception as exc:
                    return _shaped(failure(found, exc), self)  # type: ignore[arg-type]
                except BaseException as exc:
                    return _shaped(fault(found, exc), self)  # type: ignore[arg-type]
                if type(out) in _SCALARS and plain(out):
                    return _ok_for(out, name, None)
                return _shaped(finish(out, name), self)
        result = await self._engine().run(name, arguments, context)
        return result if result.success else _raise_for(self, name, result)

    def execute_all(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any]],
        *,
        context: ExecutionContext | None = None,
        strict: bool | None = None,
    ) -> list[ToolResult]:
        """Run calls in order; always one result per call, tagged with its ``call_id``.

        Unknown tools, arguments that are not valid JSON (``invalid_json``, see
        `ToolCall.argument_error`) and invalid arguments become failed results here, so
        one bad call never loses the others' results.

        Args:
            calls: `ToolCall`s or mappings with ``name``, ``arguments`` and ``id``.
            context: The calls' context (passed to tools that ask for it; its timeout holds).
            strict: Deprecated and ignored: arguments answering strict-mode definitions are
                always understood.
        """
        _deprecated_strict(strict)
        return self._engine().execute_all_sync(calls, context, parallel=False)

    async def aexecute_all(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any]],
        *,
        context: ExecutionContext | None = None,
        strict: bool | None = None,
    ) -> list[ToolResult]:
        """`execute_all` for async code: calls run concurrently, results in call order."""
        _deprecated_strict(strict)
        return await self._engine().execute_all(calls, context)

    def run_turn(
        self, response: Any, *, provider: str | None = None,
        context: ExecutionContext | None = None,
    ) -> Turn:  # fmt: skip
        """Run the calls of one model response, in order; return the `Turn` to append.

        ``response`` is what the SDK returned (or a dict, JSON text, a stream to read to
        its end, or a finished `TurnBuilder`); ``provider`` is detected when ``None``.
        ``turn.messages`` extends the conversation; ``turn.done`` says the model called no
        tool, and ``turn.text`` is then its answer. Failed calls are results, as in
        `execute_all`. With a `ToolExecutor`, ``run_turn`` adds permissions, hooks,
        timeouts and metrics.

        Raises:
            ToolCallFormatError: The response is not in a provider's shape.
        """
        from forge.tools.turns import read_finished

        assistant = read_finished(response, provider)
        return assistant.answer(self.execute_all(assistant.calls, context=context))

    async def arun_turn(
        self, response: Any, *, provider: str | None = None,
        context: ExecutionContext | None = None,
    ) -> Turn:  # fmt: skip
        """`run_turn` for async code (also takes an async stream); calls run concurrently."""
        return await self._engine().run_turn(response, context, provider=provider)

    def stream_turn(
        self, stream: Any, *, provider: str | None = None,
        context: ExecutionContext | None = None,
    ) -> TurnStream:  # fmt: skip
        """Read a streamed response: iterate for its text, then read ``.turn``.

        See `ToolExecutor.stream_turn`.
        """
        return self._engine().stream_turn(stream, context, provider=provider)

    def _engine(self) -> ToolExecutor:
        """The engine of the run methods: no context of its own, no hooks, no policy."""
        engine: ToolExecutor | None = self.__dict__.get("_run_engine")
        if engine is None:
            from forge.tools.execution.executor import contextless

            with self._lock:
                engine = self.__dict__.setdefault("_run_engine", contextless(self))
        return engine

    def _close_engine(self) -> None:
        """Stop the worker threads of the run methods' engine, if it started any."""
        engine = self.__dict__.get("_run_engine")
        if engine is not None:
            engine.close()


def _raise_for(registry: RunMethods, name: str, result: ToolResult) -> ToolResult:
    """The raising API over the engine's result: the same message, as an exception."""
    kind = result.error_kind
    if kind == "unknown_tool":
        found = registry._not_found(name)
        raise ToolNotFoundError(str(name), result.error, suggestions=found.suggestions)
    if "definition_error" in result.metadata:  # a developer's mistake, not the model's
        raise ToolDefinitionError(name, result.metadata["definition_error"])
    if kind in ("invalid_arguments", "invalid_json"):
        from forge.core.errors import FieldError

        errors = [FieldError(**e) for e in result.metadata.get("errors", ())] or [
            FieldError(path="", kind=str(kind), message=result.error or "")
        ]
        raise ToolValidationError(name, errors, message=result.error)
    return result


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _async_fn(tool: Tool | None) -> Any:
    """The coroutine function `aexecute` may call directly, if ``tool`` has one."""
    if tool is None or not tool._plain or tool.timeout is not None or not tool.source.is_async:
        return None
    compiled = tool._compiled
    return None if compiled is None or compiled.validate_python is None else compiled.fn


def _shaped(result: ToolResult, runs: Any) -> ToolResult:
    """What the engine's fast path does to a result that is not a plain success."""
    from forge.tools.execution import log_outcome as _log_outcome
    from forge.tools.execution import redacted as _redacted

    result = _checked(result)
    if not result.success:
        result = _redacted(result, runs._engine()._redact)  # the engine's default `Redaction`
        _log_outcome(result.tool_name or "?", result, None)
    return result


def _deprecated_strict(strict: bool | None) -> None:
    if strict is not None:
        import warnings

        warnings.warn(
            "execute_all(strict=...) is deprecated and has no effect: arguments answering "
            "strict-mode definitions are always understood",
            DeprecationWarning,
            stacklevel=3,
        )
