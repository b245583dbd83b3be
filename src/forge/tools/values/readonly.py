"""Read-only JSON trees for the values every caller shares (schemas, cached definitions).

A registry hands the same cached definitions to every caller, and a tool the
same parameters schema; copying them on each read would cost more than the
conversion they cache. They are built from `ReadOnlyDict` and `ReadOnlyList`
instead: subclasses of ``dict`` and ``list``, so ``json.dumps``, ``orjson``,
httpx and pydantic (the provider SDKs' request types) take them as they are,
but every method that would change them raises ``TypeError`` saying how to get
a copy. ``copy.deepcopy`` and `thaw` return plain, mutable ``dict``/``list``
trees; ``dict(value)``, ``list(value)`` and ``.copy()`` a plain shallow copy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

__all__ = ["DICTS", "LISTS", "ReadOnlyDict", "ReadOnlyList", "freeze", "thaw"]

_MESSAGE = (
    "this {kind} is read-only: forge-tools shares it between every caller (tool "
    "schemas and cached provider definitions are not copied on each read). "
    "Edit a copy instead: copy.deepcopy(value) returns a plain, mutable {plain}"
)


def _refuse(obj: object, *_args: Any, **_kwargs: Any) -> NoReturn:
    plain = "dict" if isinstance(obj, dict) else "list"
    raise TypeError(_MESSAGE.format(kind=type(obj).__name__, plain=plain))


class ReadOnlyDict(dict[str, Any]):
    """A ``dict`` that refuses changes; ``copy.deepcopy`` returns a plain, mutable one."""

    __slots__ = ()

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: Any) -> dict[str, Any]:
        return _thaw_dict(self)

    def __reduce__(self) -> tuple[type[ReadOnlyDict], tuple[dict[str, Any]]]:
        return (ReadOnlyDict, (dict(self),))


class ReadOnlyList(list[Any]):
    """A ``list`` that refuses changes; ``copy.deepcopy`` returns a plain, mutable one."""

    __slots__ = ()

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = clear = extend = insert = pop = remove = reverse = sort = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: Any) -> list[Any]:
        return _thaw_list(self)

    def __reduce__(self) -> tuple[type[ReadOnlyList], tuple[list[Any]]]:
        return (ReadOnlyList, (list(self),))


#: The exact types of a JSON object and of a JSON array (for ``type(x) in ...`` checks).
DICTS = (dict, ReadOnlyDict)
LISTS = (list, ReadOnlyList)

_SCALARS = frozenset({str, int, float, bool, type(None)})
_FROZEN = frozenset({ReadOnlyDict, ReadOnlyList})


def freeze(value: Any) -> Any:
    """Return ``value`` with every dict, list and mapping in it made read-only.

    Read-only parts are reused as they are (they never change), scalars and
    other objects are kept; everything else is copied, so later changes to
    ``value`` do not show through.
    """
    kind = type(value)
    if kind in _SCALARS or kind in _FROZEN:
        return value
    if kind is dict:
        return _freeze_dict(value)
    if kind is list:
        return _freeze_list(value)
    if isinstance(value, Mapping):
        return _freeze_dict(dict(value))
    if isinstance(value, list):
        return _freeze_list(value)
    if kind is tuple:
        return tuple(freeze(v) for v in value)
    return value


def _freeze_dict(value: dict[str, Any]) -> ReadOnlyDict:
    out = ReadOnlyDict(value)
    for key, item in value.items():
        kind = type(item)
        if kind not in _SCALARS and kind not in _FROZEN:
            dict.__setitem__(out, key, freeze(item))
    return out


def _freeze_list(value: list[Any]) -> ReadOnlyList:
    out = ReadOnlyList(value)
    for index, item in enumerate(value):
        kind = type(item)
        if kind not in _SCALARS and kind not in _FROZEN:
            list.__setitem__(out, index, freeze(item))
    return out


def thaw(value: Any) -> Any:
    """Return a plain, mutable deep copy of the dicts and lists in ``value``."""
    if isinstance(value, dict):
        return _thaw_dict(value)
    if isinstance(value, list):
        return _thaw_list(value)
    if type(value) is tuple:
        return tuple(thaw(v) for v in value)
    return value


def _thaw_dict(value: dict[str, Any]) -> dict[str, Any]:
    out = dict(value)
    for key, item in out.items():
        if type(item) not in _SCALARS:
            out[key] = thaw(item)
    return out


def _thaw_list(value: list[Any]) -> list[Any]:
    out = list(value)
    for index, item in enumerate(out):
        if type(item) not in _SCALARS:
            out[index] = thaw(item)
    return out
