"""The front end's files, read once from the package data in ``static/``.

Only files that ship in the package are served, looked up by their exact relative
path, so no request can name anything else on disk.
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

__all__ = ["PACKAGE", "STATIC_DIR", "Asset", "load_assets"]

PACKAGE = "forge.catalog"
STATIC_DIR = "static"
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".txt": "text/plain; charset=utf-8",
}


@dataclass(frozen=True, slots=True)
class Asset:
    """One file of the front end."""

    body: bytes
    content_type: str


def load_assets() -> dict[str, Asset]:
    """Every file under ``static/`` by its path relative to it (``app.js``, ``vendor/x.js``)."""
    root = resources.files(PACKAGE) / STATIC_DIR
    out: dict[str, Asset] = {}
    if root.is_dir():
        _walk(root, "", out)
    return out


def _walk(folder: Traversable, prefix: str, out: dict[str, Asset]) -> None:
    for entry in folder.iterdir():
        name = prefix + entry.name
        if entry.name.startswith(".") or entry.name == "__pycache__":
            continue
        if entry.is_dir():
            _walk(entry, name + "/", out)
        else:
            out[name] = Asset(entry.read_bytes(), _content_type(name))


def _content_type(name: str) -> str:
    suffix = name[name.rfind(".") :].lower() if "." in name else ""
    return _TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
