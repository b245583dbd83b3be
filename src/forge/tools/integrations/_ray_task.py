"""The Ray task that runs one call on a worker (the worker side of `RayBackend`).

It imports nothing heavy: the handler arrives once per worker by object
reference, and each call's arguments arrive pickled by the caller, so a value
that cannot be pickled is caught where it was made, with a clear message.
The task answers pickled bytes of one outcome (the format of
`forge.tools.execution._isolation.Outcome`, plus the ``"cancelled"``,
``"unloadable"`` and ``"unsent"`` outcomes of this backend) and never raises:
anything the handler does, short of killing its process, comes back as data.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import pickle
import traceback
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Shipped", "dumps", "run_call"]

_CACHED = 256
_handlers: OrderedDict[str, Shipped] = OrderedDict()


@dataclass(frozen=True, slots=True)
class Shipped:
    """What a worker needs to call a tool's handler (shipped once per tool, by reference)."""

    name: str
    invoke: Callable[[dict[str, Any], Any], Any]
    """``invoke(kwargs, context)``: the compiled tool's own way of calling its handler."""


def run_call(key: str, box: list[Any], payload: bytes) -> bytes:
    """Run one call: ``payload`` is the pickled ``(kwargs, context, carrier)``."""
    shipped = _handlers.get(key)
    if shipped is None:
        try:
            shipped = _load(box[0])
        except Exception as exc:
            return dumps(("unloadable", f"{type(exc).__name__}: {exc}"))
        _handlers[key] = shipped
        if len(_handlers) > _CACHED:
            _handlers.popitem(last=False)
    kwargs, context, carrier = pickle.loads(payload)
    with _trace(carrier):
        outcome = _call(shipped, kwargs, context)
    try:
        return dumps(outcome)
    except Exception as exc:
        what = type(outcome[1]).__name__ if outcome[0] == "ok" else "error"
        return dumps(("unsent", what, f"{type(exc).__name__}: {exc}"))


def _load(ref: Any) -> Shipped:
    import ray

    shipped: Shipped = pickle.loads(ray.get(ref))
    return shipped


def _call(shipped: Shipped, kwargs: dict[str, Any], context: Any) -> tuple[Any, ...]:
    try:
        out = shipped.invoke(kwargs, context)
        if inspect.isawaitable(out):
            out = asyncio.run(_await(out))
    except asyncio.CancelledError:
        return ("cancelled",)
    except BaseException as exc:  # everything, even SystemExit, is reported to the caller
        return ("error", type(exc).__name__, str(exc), traceback.format_exc().rstrip())
    return ("ok", out)


async def _await(awaitable: Any) -> Any:
    return await awaitable


def dumps(value: Any) -> bytes:
    """``value`` pickled with cloudpickle (closures and lambdas by value), protocol 5."""
    from ray import cloudpickle

    blob: bytes = cloudpickle.dumps(value, protocol=5)  # type: ignore[no-untyped-call]
    return blob


@contextlib.contextmanager
def _trace(carrier: Mapping[str, str]) -> Iterator[None]:
    """Continue the caller's trace around the handler (OpenTelemetry, when present)."""
    if not carrier:
        yield
        return
    try:
        import importlib

        otel: Any = importlib.import_module("forge.tools.integrations.otel")
        attach = otel.attach_context
    except (ImportError, AttributeError):
        yield
        return
    with attach(carrier):
        yield
