"""Logging for forge-tools: standard `logging` loggers under the ``forge`` namespace."""

from __future__ import annotations

import logging

__all__ = ["get_logger"]

_ROOT = "forge"
logging.getLogger(_ROOT).addHandler(logging.NullHandler())


def get_logger(name: str) -> logging.Logger:
    """Return the logger ``forge.<name>`` (or ``name`` itself if already namespaced).

    The library never configures handlers beyond a `NullHandler`; applications
    decide where logs go.
    """
    if name == _ROOT or name.startswith(_ROOT + "."):
        return logging.getLogger(name)
    return logging.getLogger(f"{_ROOT}.{name}")
