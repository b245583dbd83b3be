"""The web catalog of a registry's tools, served beside ``/mcp`` (``forge-tools serve``).

`Catalog` is the data side, plain methods with no HTTP: the tool list, a tool's page
(metadata, schemas, every provider's definition with its conversion report, lint),
validation with field paths, runs through the executor, metrics and a live feed of
registry changes. `forge.catalog.app.catalog_app` serves it as an ASGI app with
the single-page front end in ``static/``; it needs starlette (the ``mcp`` extra) and is
imported only when served.
"""

from __future__ import annotations

from forge.catalog.errors import BadRequestError, ConfirmationRequiredError
from forge.catalog.service import Catalog

__all__ = ["BadRequestError", "Catalog", "ConfirmationRequiredError"]
