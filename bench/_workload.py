"""Workloads shared by the benchmarks: generated typed tool functions and BFCL definitions.

The generated functions are deliberately ordinary: 2-5 parameters drawn from ``str``, ``int``,
``float``, ``bool``, ``list[str]`` and ``Optional[...]``, required parameters first, then
parameters with defaults, a Google-style docstring and a return annotation. Each call of
:func:`make_functions` executes the same compiled module again, so every call returns *fresh*
function objects (no cache keyed on function identity can carry over between repeats).
"""

from __future__ import annotations

import functools
import json
import random
import typing
from pathlib import Path
from typing import Any

from _harness import CORPORA

#: BFCL data committed with the repository (see ``corpora/bfcl/README.md`` for its provenance).
BFCL_MULTIPLE = CORPORA / "bfcl" / "BFCL_v4_multiple.json"

_PARAM_NAMES = (
    "query", "city", "count", "ratio", "enabled", "tags", "limit", "unit", "verbose", "names",
    "offset", "country", "threshold", "labels", "strict", "language",
)  # fmt: skip
# (annotation source, default literal source for an optional-with-default parameter)
_TYPES = (
    ("str", '"x"'),
    ("int", "10"),
    ("float", "0.5"),
    ("bool", "False"),
    ("list[str]", None),
)


def _parameter(rng: random.Random, name: str, position: int, n_required: int) -> tuple[str, str]:
    """Return (signature fragment, docstring line) for one generated parameter."""
    annotation, literal = rng.choice(_TYPES)
    if position < n_required:
        return f"{name}: {annotation}", f"        {name}: required {annotation} value."
    if literal is None or rng.random() < 0.5:
        return f"{name}: Optional[{annotation}] = None", f"        {name}: optional {annotation}."
    return f"{name}: {annotation} = {literal}", f"        {name}: {annotation} with a default."


def _function_source(rng: random.Random, name: str, index: int) -> str:
    """Source of one generated tool function."""
    n_params = rng.randint(2, 5)
    n_required = rng.randint(1, n_params)
    names = rng.sample(_PARAM_NAMES, n_params)
    params = [_parameter(rng, p, i, n_required) for i, p in enumerate(names)]
    signature = ", ".join(fragment for fragment, _ in params)
    doc_args = "\n".join(line for _, line in params)
    return (
        f"def {name}({signature}) -> str:\n"
        f'    """Generated tool number {index}.\n\n    Args:\n{doc_args}\n    """\n'
        f"    return {names[0]}.__class__.__name__\n"
    )


@functools.lru_cache(maxsize=8)
def _compiled_module(count: int, prefix: str, seed: int) -> tuple[Any, tuple[str, ...]]:
    """Compile (once) a module defining ``count`` distinct functions; return (code, names)."""
    rng = random.Random(seed)
    names = tuple(f"{prefix}{index:05d}" for index in range(count))
    source = "\n\n".join(_function_source(rng, name, i) for i, name in enumerate(names))
    return compile(source, f"<generated {prefix}*>", "exec", dont_inherit=True), names


def mcp_listing(functions: list[Any]) -> Any:
    """What the `mcp` SDK does from plain functions to its listing: ``MCPServer.add_tool``
    for each, then ``list_tools()`` (on a private event loop)."""
    import asyncio

    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench")
    for fn in functions:
        server.add_tool(fn)
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(server.list_tools())
    finally:
        loop.close()


def make_functions(count: int, prefix: str = "tool_", seed: int = 7) -> list[Any]:
    """Return ``count`` fresh, distinct, typed functions named ``{prefix}00000`` onwards."""
    code, names = _compiled_module(count, prefix, seed)
    namespace: dict[str, Any] = {"Optional": typing.Optional, "__name__": "generated_tools"}
    exec(code, namespace)
    return [namespace[name] for name in names]


# --------------------------------------------------------------------------- the `add` tool


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def aadd(a: int, b: int) -> int:
    """Add two integers (async)."""
    return a + b


ADD_ARGS: dict[str, Any] = {"a": 1, "b": 2}
ADD_ARGS_JSON = json.dumps(ADD_ARGS)
ADD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}


# --------------------------------------------------------------------------- BFCL definitions

# BFCL's own type vocabulary -> JSON Schema. "any" maps to None: the "type" key is dropped.
_BFCL_TYPES: dict[str, str | None] = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "any": None,
}


def normalise_bfcl_schema(node: Any) -> Any:
    """Return a JSON Schema copy of a BFCL parameter schema (types renamed, ``optional`` kept).

    BFCL's non-standard ``"optional": true`` is left in place: JSON Schema validators ignore
    unknown keywords, which is what a tolerant loader would do.
    """
    if isinstance(node, list):
        return [normalise_bfcl_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            mapped = _BFCL_TYPES.get(value, value)
            if mapped is not None:
                out[key] = mapped
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: normalise_bfcl_schema(sub) for name, sub in value.items()}
        elif key in {"items", "additionalProperties", "anyOf", "oneOf", "allOf"}:
            out[key] = normalise_bfcl_schema(value)
        else:
            out[key] = value
    return out


def load_bfcl_schemas(limit: int = 200, path: Path = BFCL_MULTIPLE) -> list[dict[str, Any]]:
    """Load up to ``limit`` distinct (by name) normalised parameter schemas from BFCL."""
    schemas: dict[str, dict[str, Any]] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            for definition in json.loads(line)["function"]:
                schemas.setdefault(
                    definition["name"], normalise_bfcl_schema(definition["parameters"])
                )
                if len(schemas) >= limit:
                    return list(schemas.values())
    return list(schemas.values())
