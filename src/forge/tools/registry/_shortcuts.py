"""The run methods a registry and its views share (`RunMethods`).

Every run method is a default executor's: a `ToolExecutor` with no context, hooks
or policy over the object itself, so a view's calls look tools up by the view's
names. None has a path of its own. ``execute`` and ``aexecute`` are the
``run_sync`` and ``run`` of an executor that raises, instead of returning, the
failures the caller caused (`_raise_for`: an unknown tool, invalid arguments,
a definition error), with the message every other entry point puts in its failed
result. Once that executor exists, its two methods are bound on the instance
under those names, as `registry.get` is its dict's ``get``: a call then goes
straight to the executor.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from forge.core.errors import ToolDefinitionError, ToolNotFoundError, ToolValidationError

if TYPE_CHECKING:
    from forge.tools.execution.executor import ToolExecutor
    from forge.tools.model.tool import Tool
    from forge.tools.turns import Turn, TurnStream
    from forge.tools.values.calls import ToolCall
    from forge.tools.values.context import ExecutionContext
    from forge.tools.values.results import ToolResult

__all__ = ["RunMethods"]

T = TypeVar("T")


class RunMethods:
    """``execute``, ``aexecute``, ``execute_all`` and ``aexecute_all`` over ``self.get``.

    The class using it provides ``get``, ``names``, ``version``, ``derived``,
    ``_not_found`` and a ``_lock``.
    """

    __slots__ = ()

    _run_engine: ToolExecutor | None = None
    """The engine of the run methods once built (`_engine`); the instance's own attribute."""

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
        return self._raising().run_sync(name, arguments, context)

    async def aexecute(
        self, name: str, arguments: Any = None, *, context: ExecutionContext | None = None
    ) -> ToolResult:
        """`execute` for async code (sync handlers run off the event loop unless placed inline)."""
        return await self._raising().run(name, arguments, context)

    def execute_all(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any]],
        *,
        context: ExecutionContext | None = None,
    ) -> list[ToolResult]:
        """Run calls in order; always one result per call, tagged with its ``call_id``.

        Unknown tools, arguments that are not valid JSON (``invalid_json``, see
        `ToolCall.argument_error`) and invalid arguments become failed results here, so
        one bad call never loses the others' results.

        Args:
            calls: `ToolCall`s or mappings with ``name``, ``arguments`` and ``id``.
            context: The calls' context (passed to tools that ask for it; its timeout holds).
        """
        return self._engine().execute_all_sync(calls, context, parallel=False)

    async def aexecute_all(
        self,
        calls: Iterable[ToolCall | Mapping[str, Any]],
        *,
        context: ExecutionContext | None = None,
    ) -> list[ToolResult]:
        """`execute_all` for async code: calls run concurrently, results in call order."""
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
        engine = self._run_engine
        if engine is None:
            from forge.tools.execution.executor import contextless

            with self._lock:
                engine = self.__dict__.setdefault("_run_engine", contextless(self))
        return engine

    def _raising(self) -> ToolExecutor:
        """The executor of `execute` and `aexecute`; binds them on first use (see above)."""
        engine: ToolExecutor | None = self.__dict__.get("_raising_engine")
        if engine is None:
            from forge.tools.execution.executor import contextless

            with self._lock:
                engine = self.__dict__.get("_raising_engine")
                if engine is None:
                    engine = contextless(self, lambda name, result: _raise_for(self, name, result))
                    self.__dict__["_raising_engine"] = engine
                    cls = type(self)
                    if cls.execute is RunMethods.execute:  # a subclass's own method stays
                        self.__dict__["execute"] = engine.run_sync
                    if cls.aexecute is RunMethods.aexecute:
                        self.__dict__["aexecute"] = engine.run
        return engine

    def _close_engine(self) -> None:
        """Stop the worker threads of the run methods' engines, if they started any."""
        for key in ("_run_engine", "_raising_engine"):
            engine = self.__dict__.get(key)
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
