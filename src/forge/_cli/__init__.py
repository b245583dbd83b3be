"""Internals of the forge-tools command line (typer and rich are imported only here)."""
