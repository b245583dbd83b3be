"""Import a script of ``bench/`` or ``corpora/`` by path (neither folder is a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]


def module_at(key: str, path: Path) -> ModuleType:
    """The module of the file at ``path``, imported once per process under the name ``key``."""
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def bench_module(name: str) -> ModuleType:
    """The module ``bench/<name>.py``, imported as ``forge_bench_<name>``."""
    return module_at(f"forge_bench_{name}", REPO / "bench" / f"{name}.py")
