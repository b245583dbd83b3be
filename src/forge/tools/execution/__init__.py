"""Running tool calls: the one engine, its drivers and what plugs into it.

`executor.ToolExecutor` is the public entry point; the registry's run methods and
`BaseTool.execute` drive the same engine (`_pipeline`). Hooks, permissions and
metrics plug into it; `failures` writes every message a model sees. Execution
reads tools from a `forge.tools.model.source.ToolSource` (a store or a view), never from
the registry above it.

Importing this package loads nothing: asyncio and friends come with its modules.
"""
