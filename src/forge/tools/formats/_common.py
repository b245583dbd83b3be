"""Checks shared by the provider modules: the per-provider limits of `limits.LIMITS`."""

from __future__ import annotations

from forge.tools.formats._schema import Context
from forge.tools.formats.limits import LIMITS, shorten

__all__ = ["fit_description"]


def fit_description(description: str, ctx: Context) -> str:
    """Return ``description`` within the provider's length limit.

    Too long: shortened at a sentence boundary and reported (the cut text is
    what ``generate_prompt(shortened_for=provider)`` gives for the system
    prompt), or, with ``errors="raise"``, a `SchemaConversionError`.
    """
    limit = LIMITS[ctx.provider].max_description
    if limit is None or len(description) <= limit:
        return description
    message = (f"the description is {len(description)} characters; {ctx.provider} takes at "
               f"most {limit}")  # fmt: skip
    if ctx.errors == "raise":
        ctx.fail((), "description", f"{message}. Shorten it or move details to usage notes")
    kept, cut = shorten(description, limit)
    ctx.note((), "description", "shortened",
             f"{message}: cut to {len(kept)} at a sentence boundary; the {len(cut)} characters "
             f"cut are in generate_prompt(shortened_for={ctx.provider!r})")  # fmt: skip
    return kept
