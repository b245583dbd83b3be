"""Bridges to other tool ecosystems; each imports its optional dependency lazily."""
