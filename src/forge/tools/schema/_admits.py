"""A cheap check that arguments need no validation.

The validator of a function typed with ``int``, ``str``, ``float`` and ``bool``
only (`forge.tools.schema._strict`) returns an argument of exactly its
parameter's type unchanged (a float only when it is finite), and fills in a
left-out parameter's default, which the function would use anyway. So when
every key of an arguments dict names a parameter, every required one is there,
and every value is exactly of its parameter's type, calling the function with
the dict as it is does what calling it with the validator's result does:
`admits_for` builds that check, in a few type comparisons instead of a pass
through pydantic-core. Whatever it does not admit goes through the validator,
which decides (and names every bad field). Where the validator's result itself
is handed on (to hooks), `Admitted.complete` writes it: the arguments in
parameter order, the left-out ones' defaults filled in. The tests compare both
with the validator on generated arguments.
"""

from __future__ import annotations

import inspect
import math
import typing
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = ["Admits", "Admitted", "admits_for"]

Admits = Callable[[dict[str, Any]], bool]


class Admitted(NamedTuple):
    """The check, and what the validator returns for the arguments it admits."""

    admits: Admits
    complete: Callable[[dict[str, Any]], dict[str, Any]]


_EXACT = (int, str, float, bool)
_BY_NAME = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_SHARED_DEFAULTS = (int, str, float, bool, type(None))  # immutable: the function's own is the one


def admits_for(fn: Callable[..., Any]) -> Admitted | None:
    """The check for ``fn``'s arguments, or ``None`` when any parameter is not a plain scalar.

    A parameter qualifies when it is passed by name, annotated with exactly one of
    ``int``, ``str``, ``float`` or ``bool`` (no ``Annotated`` metadata, no union)
    and has no default or an immutable scalar one.
    """
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn)
    except Exception:
        return None
    types: dict[str, type] = {}
    required: list[str] = []
    defaults: list[tuple[str, Any]] = []
    for name, parameter in signature.parameters.items():
        annotation = parameter.annotation
        hint = hints.get(name)
        if (
            parameter.kind not in _BY_NAME or hint not in _EXACT
            or (annotation is not hint and annotation != hint.__name__)  # not Annotated[...]
        ):  # fmt: skip
            return None
        if parameter.default is not parameter.empty:
            if type(parameter.default) not in _SHARED_DEFAULTS:
                return None
        else:
            required.append(name)
        types[name] = hint
        defaults.append((name, parameter.default))
    if not types:
        return None
    if float in types.values() or len(required) < len(types) or len(types) > 3:
        admits = _general(types, frozenset(required))
    else:
        admits = _unrolled(types)
    order = tuple(defaults)  # a required parameter's placeholder is never read: it is given

    def complete(args: dict[str, Any]) -> dict[str, Any]:
        return {name: args.get(name, default) for name, default in order}

    return Admitted(admits, complete)


def _unrolled(types: dict[str, type]) -> Admits:
    """Every parameter required, none a float: one to three comparisons written out."""
    (k1, t1), *rest = types.items()
    if not rest:
        return lambda args: len(args) == 1 and type(args.get(k1)) is t1
    (k2, t2), *rest = rest
    if not rest:
        return lambda args: len(args) == 2 and type(args.get(k1)) is t1 and type(args.get(k2)) is t2
    ((k3, t3),) = rest
    return lambda args: (
        len(args) == 3 and type(args.get(k1)) is t1 and type(args.get(k2)) is t2
        and type(args.get(k3)) is t3
    )  # fmt: skip


def _general(types: dict[str, type], required: frozenset[str]) -> Admits:
    expected = types.get
    most, least = len(types), len(required)
    isfinite = math.isfinite

    def admits(args: dict[str, Any]) -> bool:
        count = len(args)
        if count > most or count < least:
            return False
        for key, value in args.items():
            kind = type(value)
            if expected(key) is not kind or (kind is float and not isfinite(value)):
                return False
        return count == most or required <= args.keys()

    return admits
