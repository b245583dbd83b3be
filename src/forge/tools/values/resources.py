"""`ToolResources`: what one call of a tool needs on the machine that runs it.

A remote backend (`forge.tools.integrations.ray.RayBackend`) schedules each call
on a node that has these free; local execution ignores them. The option takes
Ray's own names, so a mapping reads like ``@ray.remote``'s arguments::

    @tool(resources={"num_cpus": 2, "num_gpus": 1, "memory": 4 * 2**30,
                     "resources": {"dataset_shard": 1}})
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from forge.tools.values._seconds import shown_number

__all__ = ["ToolResources"]

_KEYS: Final = ("num_cpus", "num_gpus", "memory", "resources")


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResources:
    """The resources one call reserves on a worker (``None``: the backend's default).

    >>> ToolResources.coerce({"num_cpus": 2, "resources": {"ssd": 1}}).requirements()
    {'CPU': 2.0, 'ssd': 1.0}
    """

    num_cpus: float | None = None
    """CPU cores (fractions allowed; Ray's default for a task is 1)."""
    num_gpus: float | None = None
    """GPUs (fractions allowed)."""
    memory: int | None = None
    """Bytes of memory reserved for the call (a scheduling reservation, not a cap)."""
    custom: Mapping[str, float] = field(default_factory=dict)
    """Custom resources by name (``{"dataset_shard": 1}``), as the cluster's nodes declare."""

    def __post_init__(self) -> None:
        for name in ("num_cpus", "num_gpus", "memory"):
            _check_amount(name, getattr(self, name))
        if self.memory is not None and not isinstance(self.memory, int):
            raise TypeError(f"memory must be a whole number of bytes, got {self.memory!r}")
        if not isinstance(self.custom, Mapping):
            raise TypeError(
                f"resources must map custom resource names to amounts, got {self.custom!r}"
            )
        custom = {}
        for key, amount in self.custom.items():
            if not isinstance(key, str) or not key or key in ("CPU", "GPU", "memory"):
                raise ValueError(
                    f"custom resource names must be non-empty strings other than CPU, GPU "
                    f"and memory (use num_cpus, num_gpus, memory), got {key!r}"
                )
            _check_amount(f"resources[{key!r}]", amount)
            custom[key] = float(amount)
        object.__setattr__(self, "custom", MappingProxyType(custom))

    @classmethod
    def coerce(cls, value: ToolResources | Mapping[str, Any] | None) -> ToolResources | None:
        """A `ToolResources` from itself, a mapping of its option keys, or ``None``.

        Raises:
            TypeError: ``value`` is neither, or an amount has the wrong type.
            ValueError: An unknown key or a negative amount, named.
        """
        if value is None or isinstance(value, ToolResources):
            return value
        if not isinstance(value, Mapping):
            raise TypeError(
                "resources must be a mapping of num_cpus, num_gpus, memory and resources "
                f"(custom resources), got {type(value).__name__}"
            )
        unknown = sorted(str(k) for k in value if k not in _KEYS)
        if unknown:
            raise ValueError(
                f"unknown resource key(s) {', '.join(unknown)}; use {', '.join(_KEYS)}"
            )
        return cls(
            num_cpus=value.get("num_cpus"),
            num_gpus=value.get("num_gpus"),
            memory=value.get("memory"),
            custom=value.get("resources") or {},
        )

    def to_options(self) -> dict[str, Any]:
        """The options of a Ray task that reserves these resources."""
        options: dict[str, Any] = {}
        for name in ("num_cpus", "num_gpus", "memory"):
            amount = getattr(self, name)
            if amount is not None:
                options[name] = amount
        if self.custom:
            options["resources"] = dict(self.custom)
        return options

    def requirements(self) -> dict[str, float]:
        """What a node must have, by the names clusters report (``CPU``, ``GPU``, ...)."""
        needed: dict[str, float] = {}
        for name, key in (("num_cpus", "CPU"), ("num_gpus", "GPU"), ("memory", "memory")):
            amount = getattr(self, name)
            if amount:
                needed[key] = float(amount)
        needed.update(self.custom)
        return needed


def _check_amount(name: str, amount: Any) -> None:
    if amount is None:
        return
    if isinstance(amount, bool) or not isinstance(amount, int | float):
        raise TypeError(f"{name} must be a number, got {amount!r}")
    try:
        finite = math.isfinite(float(amount))
    except OverflowError:
        finite = False
    if not (finite and amount >= 0):
        raise ValueError(f"{name} must be zero or more and finite, got {shown_number(amount)}")
