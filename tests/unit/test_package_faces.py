"""Private means private: code reaches another package only through its face.

A module whose name, or any package on its path, starts with ``_`` belongs to the
package that contains it, and so does a ``_name`` a module defines. Code outside that
package imports it from the package's ``__init__`` (its face) or from a public module.
Imports inside functions and under ``TYPE_CHECKING`` count.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


@dataclass(frozen=True)
class Offence:
    """One import of something private to another package."""

    where: str
    imported: str
    owner: str
    use: str

    def __str__(self) -> str:
        return f"{self.where}: {self.imported} is private to {self.owner}; {self.use}"


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def _module_name(src: Path, path: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from`` import names."""
    if node.level == 0:
        return node.module or ""
    base = module if is_package else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


def _owner(dotted: str, modules: set[str], packages: set[str]) -> str | None:
    """The package ``dotted`` (a module, or a name in one) is private to, if any."""
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if not _private(part):
            continue
        parent = ".".join(parts[:i])
        if i < len(parts) - 1 or dotted in modules or parent in packages:
            return parent  # a private module, or a private name in a package's face
        return parent.rpartition(".")[0]  # a private name of a public module
    return None


def _faces(src: Path) -> dict[str, set[str]]:
    """Each package with the names its face exports (``__all__``)."""
    faces: dict[str, set[str]] = {}
    for init in src.rglob("__init__.py"):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        names: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                names = set(ast.literal_eval(node.value))
        faces[_module_name(src, init)] = names
    return faces


def offences(src: Path) -> list[Offence]:
    """Every import under ``src`` of a module or name private to another package."""
    faces = _faces(src)
    modules = {_module_name(src, p) for p in src.rglob("*.py")}
    found: list[Offence] = []
    for path in sorted(src.rglob("*.py")):
        module = _module_name(src, path)
        is_package = path.name == "__init__.py"
        package = module if is_package else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [(a.name, a.name.rpartition(".")[2]) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _base(module, is_package, node)
                targets = [(f"{base}.{a.name}", a.name) for a in node.names]
            else:
                continue
            for dotted, name in targets:
                owner = _owner(dotted, modules, set(faces))
                if (
                    dotted.split(".")[0] not in faces
                    or owner is None
                    or package == owner
                    or package.startswith(owner + ".")
                ):
                    continue
                exported = name in faces.get(owner, set())
                use = (
                    f"use `from {owner} import {name}`"
                    if exported
                    else f"export it from {owner} (its __all__) and import it from there"
                )
                where = f"{path.relative_to(src)}:{node.lineno}"
                found.append(Offence(where, dotted, owner, use))
    return found


def test_no_import_reaches_into_another_package() -> None:
    """No module in src/forge imports another package's private module or name."""
    assert [str(o) for o in offences(SRC)] == []


@pytest.mark.parametrize(
    ("line", "imported", "use"),
    [
        (
            "from forge.lib._inner import thing",
            "forge.lib._inner.thing",
            "from forge.lib import thing",
        ),
        (
            "from forge.lib._inner import hidden",
            "forge.lib._inner.hidden",
            "export it from forge.lib",
        ),
        ("import forge.lib._inner", "forge.lib._inner", "export it from forge.lib"),
        ("from forge.lib.public import _helper", "forge.lib.public._helper", "export it"),
        ("from forge.lib import _inner", "forge.lib._inner", "export it from forge.lib"),
        ("from ..lib._inner import thing", "forge.lib._inner.thing", "from forge.lib import thing"),
    ],
)
def test_a_planted_offender_is_named(tmp_path: Path, line: str, imported: str, use: str) -> None:
    """An import into another package's private part is reported with its file, line and fix."""
    lib = tmp_path / "forge" / "lib"
    app = tmp_path / "forge" / "app"
    for folder in (lib, app):
        folder.mkdir(parents=True)
    (tmp_path / "forge" / "__init__.py").write_text("")
    (lib / "__init__.py").write_text("from forge.lib._inner import thing\n\n__all__ = ['thing']\n")
    (lib / "_inner.py").write_text("thing = 1\nhidden = 2\n")
    (lib / "public.py").write_text("from forge.lib._inner import hidden as _helper\n")
    (app / "__init__.py").write_text("")
    (app / "use.py").write_text(f"import os\n{line}\n")

    (found,) = offences(tmp_path)

    assert found.where == "forge/app/use.py:2"
    assert found.imported == imported
    assert found.owner == "forge.lib"
    assert use in found.use


def test_imports_inside_the_owner_are_allowed(tmp_path: Path) -> None:
    """A package's own modules, and its subpackages, use its private modules freely."""
    inner = tmp_path / "forge" / "lib" / "sub"
    inner.mkdir(parents=True)
    (tmp_path / "forge" / "__init__.py").write_text("")
    (tmp_path / "forge" / "lib" / "__init__.py").write_text("from forge.lib._inner import x\n")
    (tmp_path / "forge" / "lib" / "_inner.py").write_text("x = 1\n")
    (inner / "__init__.py").write_text("from forge.lib._inner import x\nfrom .._inner import x\n")

    assert offences(tmp_path) == []


def _library_packages() -> list[str]:
    """The library's packages; integrations import optional dependencies and are left out."""
    names = sorted(_module_name(SRC, p.parent / "__init__.py") for p in SRC.rglob("__init__.py"))
    return [n for n in names if n.startswith("forge.tools.") and ".integrations" not in n]


@pytest.mark.parametrize("package", _library_packages())
def test_a_face_exports_what_it_lists(package: str) -> None:
    """Every name in a package's ``__all__`` resolves, lazy ones included, listed once."""
    module = importlib.import_module(package)
    exported = list(getattr(module, "__all__", []))
    assert len(exported) == len(set(exported))
    assert [name for name in exported if not hasattr(module, name)] == []
    assert set(exported) <= set(dir(module))


def test_a_lazy_face_imports_a_name_on_first_read() -> None:
    """A lazy face loads a name's module only when the name is first read, then keeps it."""
    code = (
        "import sys, forge.tools.schema as face\n"
        "before = 'forge.tools.schema._wrapped' in sys.modules\n"
        "value = face.wrap_output\n"
        "print(before, 'forge.tools.schema._wrapped' in sys.modules, 'wrap_output' in vars(face))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert proc.stdout.split() == ["False", "True", "True"]


def test_a_lazy_face_refuses_an_unknown_name() -> None:
    """Reading a name a lazy face does not export raises AttributeError naming the package."""
    import forge.tools.values

    with pytest.raises(AttributeError, match=r"'forge\.tools\.values' has no attribute 'nope'"):
        _ = forge.tools.values.nope  # type: ignore[attr-defined]
