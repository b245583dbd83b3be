"""Shared infrastructure: the error hierarchy and logging."""
