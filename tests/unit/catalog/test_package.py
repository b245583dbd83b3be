"""The catalog as shipped: its front end is package data, and the data side needs no HTTP."""

from __future__ import annotations

import subprocess
import sys
from importlib import resources

from forge.catalog._static import PACKAGE, STATIC_DIR, load_assets


def test_the_front_end_is_found_through_importlib_resources() -> None:
    """``static/index.html`` ships inside the package (so it is in the wheel)."""
    static = resources.files(PACKAGE) / STATIC_DIR
    assert (static / "index.html").is_file()
    assets = load_assets()
    assert assets["index.html"].content_type == "text/html; charset=utf-8"
    assert assets["index.html"].body.lstrip().lower().startswith(b"<!doctype html>")
    for name, asset in assets.items():
        if name.endswith(".js"):
            assert asset.content_type == "text/javascript; charset=utf-8"
        if name.endswith(".css"):
            assert asset.content_type == "text/css; charset=utf-8"


def test_importing_the_catalog_loads_no_web_framework() -> None:
    """`forge.catalog` is plain data; starlette comes only with its app."""
    code = (
        "import sys, forge.tools, forge.catalog\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('starlette', 'uvicorn', 'mcp')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
