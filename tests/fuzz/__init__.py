"""Fuzz targets for every parser: run for minutes with ``python -m tests.fuzz.run`` (README.md)."""
