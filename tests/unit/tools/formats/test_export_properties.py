"""Any schema the registry accepts exports to every provider or fails with the documented error.

For a generated JSON-Schema-like object schema: `from_record` accepts it or raises
`ToolDefinitionError`; an accepted one, exported to every provider, plain and strict,
either passes that provider's official SDK type or raises `SchemaConversionError`
(``errors="raise"``), and with the default ``errors="report"`` never raises.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings

from tests.fuzz.strategies import parameter_schemas
from tests.fuzz.targets import check_export


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parameter_schemas())
def test_every_export_of_an_accepted_schema_passes_the_sdk_or_raises_the_conversion_error(
    schema: dict[str, Any],
) -> None:
    check_export(schema)
