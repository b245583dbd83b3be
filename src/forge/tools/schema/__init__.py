"""Python types and records to JSON Schema, and the validators that enforce it.

How a function, a pydantic model or a record becomes a parameters schema, a
validator and an ``invoke`` (`Compiled`, from a `SchemaSource`). Never imports `Tool`.
Every name is imported when first read, so the face costs nothing at import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge.core.lazy import lazy_face

if TYPE_CHECKING:
    from forge.tools.schema._drafts import upgrade_schema
    from forge.tools.schema._name_rules import (
        MAX_NAME_LENGTH,
        NAME_PATTERN,
        check_name,
        is_valid_name,
    )
    from forge.tools.schema._output import ReturnSchema, return_schema
    from forge.tools.schema._param_table import (
        ARRAY,
        LEAF,
        OPTIONAL,
        PRIMITIVES,
        Row,
        Table,
        analyse,
        dump_default,
    )
    from forge.tools.schema._python import (
        CompiledSchema,
        check_signature,
        context_parameters,
        describe_function,
        function_schema,
        model_schema,
        type_hints,
    )
    from forge.tools.schema._sources import (
        Compiled,
        FunctionSource,
        ModelSource,
        SchemaSource,
        Source,
        call_style,
        default_context,
    )
    from forge.tools.schema._validation import (
        TOO_DEEP,
        SchemaValidator,
        arguments_validator,
        check_json_schema,
        describe_value,
        no_remote_refs,
    )
    from forge.tools.schema._wrapped import (
        RESULT_KEY,
        WRAPPED_META,
        needs_wrapping,
        unwrap_output,
        wrap_output,
    )

__all__ = [
    "ARRAY",
    "Compiled",
    "CompiledSchema",
    "FunctionSource",
    "LEAF",
    "MAX_NAME_LENGTH",
    "ModelSource",
    "NAME_PATTERN",
    "OPTIONAL",
    "PRIMITIVES",
    "RESULT_KEY",
    "ReturnSchema",
    "Row",
    "SchemaSource",
    "SchemaValidator",
    "Source",
    "TOO_DEEP",
    "Table",
    "WRAPPED_META",
    "analyse",
    "arguments_validator",
    "call_style",
    "check_json_schema",
    "check_name",
    "check_signature",
    "context_parameters",
    "default_context",
    "describe_function",
    "describe_value",
    "dump_default",
    "function_schema",
    "is_valid_name",
    "model_schema",
    "needs_wrapping",
    "no_remote_refs",
    "return_schema",
    "type_hints",
    "unwrap_output",
    "upgrade_schema",
    "wrap_output",
]

__getattr__, __dir__ = lazy_face(
    __name__,
    {
        "ARRAY": "forge.tools.schema._param_table",
        "Compiled": "forge.tools.schema._sources",
        "CompiledSchema": "forge.tools.schema._python",
        "FunctionSource": "forge.tools.schema._sources",
        "LEAF": "forge.tools.schema._param_table",
        "MAX_NAME_LENGTH": "forge.tools.schema._name_rules",
        "ModelSource": "forge.tools.schema._sources",
        "NAME_PATTERN": "forge.tools.schema._name_rules",
        "OPTIONAL": "forge.tools.schema._param_table",
        "PRIMITIVES": "forge.tools.schema._param_table",
        "RESULT_KEY": "forge.tools.schema._wrapped",
        "ReturnSchema": "forge.tools.schema._output",
        "Row": "forge.tools.schema._param_table",
        "SchemaSource": "forge.tools.schema._sources",
        "SchemaValidator": "forge.tools.schema._validation",
        "Source": "forge.tools.schema._sources",
        "TOO_DEEP": "forge.tools.schema._validation",
        "Table": "forge.tools.schema._param_table",
        "WRAPPED_META": "forge.tools.schema._wrapped",
        "analyse": "forge.tools.schema._param_table",
        "arguments_validator": "forge.tools.schema._validation",
        "call_style": "forge.tools.schema._sources",
        "check_json_schema": "forge.tools.schema._validation",
        "check_name": "forge.tools.schema._name_rules",
        "check_signature": "forge.tools.schema._python",
        "context_parameters": "forge.tools.schema._python",
        "default_context": "forge.tools.schema._sources",
        "describe_function": "forge.tools.schema._python",
        "describe_value": "forge.tools.schema._validation",
        "dump_default": "forge.tools.schema._param_table",
        "function_schema": "forge.tools.schema._python",
        "is_valid_name": "forge.tools.schema._name_rules",
        "model_schema": "forge.tools.schema._python",
        "needs_wrapping": "forge.tools.schema._wrapped",
        "no_remote_refs": "forge.tools.schema._validation",
        "return_schema": "forge.tools.schema._output",
        "type_hints": "forge.tools.schema._python",
        "unwrap_output": "forge.tools.schema._wrapped",
        "upgrade_schema": "forge.tools.schema._drafts",
        "wrap_output": "forge.tools.schema._wrapped",
    },
)
