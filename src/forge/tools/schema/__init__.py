"""Python types and records to JSON Schema, and the validators that enforce it.

How a function, a pydantic model or a record becomes a parameters schema, a
validator and an ``invoke`` (`forge.tools.schema._sources`). Never imports `Tool`.
"""
