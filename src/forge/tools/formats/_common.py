"""Checks shared by the provider modules."""

from __future__ import annotations

from forge.tools.formats._schema import Context

MAX_DESCRIPTION = 1024


def check_description(description: str, ctx: Context) -> None:
    """Fail if the description is over the 1,024 characters OpenAI-style APIs take."""
    if len(description) > MAX_DESCRIPTION:
        ctx.fail(
            (),
            "description",
            f"the description is {len(description)} characters; {ctx.provider} takes "
            f"at most {MAX_DESCRIPTION}. Shorten it or move details to usage notes",
        )
