"""Every per-provider limit on tool definitions, in one table.

Each limit names its source: the provider's official SDK (its types or the
docstrings of the fields) or the error text its API returns, quoted in issues
of public projects. A limit nobody has sourced is ``None`` (not enforced):
guessing would cut descriptions or drop tools a provider accepts.

=================  ====================================================================
provider           source
=================  ====================================================================
openai             names: openai-python ``FunctionDefinition.name`` ("a-z, A-Z, 0-9,
                   underscores and dashes, with a maximum length of 64"). Descriptions:
                   the API's ``string_above_max_length`` error ("Expected a string with
                   maximum length 1024"). Tools: "Expected an array with maximum length
                   128". Strict mode: the structured-outputs guide ("up to 5000 object
                   properties total, with up to 10 levels of nesting", "up to 1000 enum
                   values across all enum properties", "for a single enum property with
                   string values, the total string length of all enum values cannot
                   exceed 15,000 characters when there are more than 250 enum values",
                   and at most 120,000 characters of property names, definition names,
                   enum values and const values in all).
openai-responses   the same API family and platform; the Responses SDK states no name
                   rule, so OpenAI's are assumed.
anthropic          names: ``^[a-zA-Z0-9_-]{1,64}$`` (tool-use docs). No description limit.
gemini             names: google-genai ``FunctionDeclaration.name`` ("must start with a
                   letter or an underscore ... underscores, dots, colons and dashes, with
                   a maximum length of 128"). Parameter names: ``FunctionDeclaration
                   .parameters`` ("start with a letter or an underscore ... a-z, A-Z, 0-9,
                   or underscores with a maximum length of 64"), only for ``parameters``.
bedrock            botocore ``bedrock-runtime`` shapes: ``ToolName`` (pattern
                   ``[a-zA-Z0-9_-]+``, 1 to 64), ``NonEmptyString`` descriptions (an empty
                   one is left out).
mistral            no name or description rule in mistralai's SDK; OpenAI's name rule
                   is the one its API is compatible with.
mcp                names SHOULD be 1 to 128 of ``[A-Za-z0-9_.-]`` (2025-11-25 ``tools.mdx``).
ollama             none enforced by its client.
=================  ====================================================================
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

__all__ = [
    "LIMITS", "MAX_BUILT_SCHEMA", "OPENAI_STRICT", "ProviderLimits", "StrictLimits", "shorten",
]  # fmt: skip

#: The largest schema (in characters of compact JSON, about) a conversion builds for one tool
#: by inlining references. Definitions that each refer to the next twice double at every
#: level, so a 2 KB schema could otherwise grow to gigabytes. Past it the tool goes as its
#: JSON Schema unchanged where the provider takes one (Gemini's ``parametersJsonSchema``,
#: the non-strict modes), else it is left out and reported. 250,000 characters (some 80,000
#: tokens) is more than a model can usefully read of one tool, and than OpenAI's strict mode
#: takes (120,000 characters of names and values).
MAX_BUILT_SCHEMA = 250_000


@dataclass(frozen=True, slots=True, kw_only=True)
class StrictLimits:
    """Size limits of a provider's strict schema mode."""

    max_depth: int
    """The deepest nesting of objects."""
    max_properties: int
    """Object properties in the whole schema."""
    max_enum_values: int
    """Enum values in the whole schema."""
    max_enum_chars: int
    """Total length of one string enum's values, once it has more than ``large_enum``."""
    large_enum: int
    """How many values make a string enum subject to ``max_enum_chars``."""
    max_schema_chars: int
    """Total length of property names, definition names, enum and const values."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderLimits:
    """What one provider takes in a tool definition (``None``: no known limit)."""

    name_pattern: str | None = None
    """The regular expression a tool name must match in full."""
    max_name: int = 1 << 16
    """The longest tool name (also bounded by ``name_pattern``)."""
    max_description: int | None = None
    """The longest tool description, in characters."""
    max_tools: int | None = None
    """The most tools in one request."""
    strict: StrictLimits | None = None
    """Limits of the strict schema mode."""

    def name_problem(self, name: str) -> str | None:
        """Why ``name`` is not a valid tool name here, or ``None`` if it is."""
        pattern = self.name_pattern
        if pattern is None or _name_ok(pattern, name):
            return None
        return f"the tool name {name!r} does not match {pattern}"


@functools.lru_cache(maxsize=65536)
def _name_ok(pattern: str, name: str) -> bool:
    return re.fullmatch(pattern, name) is not None


_OPENAI_NAME = r"[A-Za-z0-9_-]{1,64}"
#: OpenAI strict mode's size limits (Structured Outputs).
OPENAI_STRICT = StrictLimits(
    max_depth=10,
    max_properties=5000,
    max_enum_values=1000,
    max_enum_chars=15_000,
    large_enum=250,
    max_schema_chars=120_000,
)
_OPENAI = ProviderLimits(
    name_pattern=_OPENAI_NAME, max_name=64, max_description=1024, max_tools=128,
    strict=OPENAI_STRICT,
)  # fmt: skip

#: The limits of each provider of `forge.tools.formats.PROVIDERS` (sources in the module doc).
LIMITS: dict[str, ProviderLimits] = {
    "openai": _OPENAI,
    "openai-responses": _OPENAI,
    "anthropic": ProviderLimits(name_pattern=_OPENAI_NAME, max_name=64),
    "gemini": ProviderLimits(name_pattern=r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}", max_name=128),
    "bedrock": ProviderLimits(name_pattern=_OPENAI_NAME, max_name=64),
    "mistral": ProviderLimits(name_pattern=_OPENAI_NAME, max_name=64),
    "ollama": ProviderLimits(),
    "mcp": ProviderLimits(name_pattern=r"[A-Za-z0-9_.-]{1,128}", max_name=128),
    "langchain": ProviderLimits(),
}

#: Gemini's rule for parameter names in its OpenAPI-subset ``parameters``.
GEMINI_PARAMETER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")

_SENTENCE_END = re.compile(r"[.!?。](?=\s|$)|\n\s*\n")
_ELLIPSIS = " …"


def shorten(text: str, limit: int) -> tuple[str, str]:
    """Split ``text`` into what fits in ``limit`` characters and the rest.

    The cut falls after the last whole sentence that fits; failing that, at the
    last space (never inside a word), marked with an ellipsis. The kept part is
    stripped; joining it with the rest gives back every word of ``text``.

    >>> shorten("First one. Second one is longer.", 15)
    ('First one.', 'Second one is longer.')
    """
    if len(text) <= limit:
        return text, ""
    window = text[: limit + 1]
    ends = [m.end() for m in _SENTENCE_END.finditer(window) if m.end() <= limit]
    if ends and ends[-1] > limit // 4:
        cut = ends[-1]
        return text[:cut].rstrip(), text[cut:].strip()
    room = window[: limit - len(_ELLIPSIS) + 1]
    space = room.rfind(" ")
    cut = space if space > 0 else limit - len(_ELLIPSIS)
    return text[:cut].rstrip() + _ELLIPSIS, text[cut:].strip()
