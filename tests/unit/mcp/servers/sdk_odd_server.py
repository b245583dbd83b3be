"""A low-level `mcp` SDK server with tools that real servers ship and our client must survive.

* ``long_job`` requires task-augmented execution (``execution.taskSupport: "required"``).
* ``liar`` declares an object output schema and answers with structured content that breaks it.
* ``contact`` declares a draft-07 output schema with ``"format": "email"`` and answers with
  an address that is none: the `mcp` client's check (Python ``jsonschema``) takes formats
  as annotations, forge-tools' server (``jsonschema_rs``) asserts them in drafts 4 to 7.
* ``echo`` is an ordinary tool.
"""

from __future__ import annotations

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TEXT_INPUT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
COUNT_OUTPUT = {
    "type": "object",
    "properties": {"count": {"type": "integer"}},
    "required": ["count"],
}
CONTACT_OUTPUT = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"email": {"type": "string", "format": "email"}},
    "required": ["email"],
}


async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="long_job",
                description="A job that only runs as a task.",
                input_schema={"type": "object", "properties": {}},
                execution=types.ToolExecution(task_support="required"),
            ),
            types.Tool(
                name="liar",
                description="Says it returns a count, returns a string.",
                input_schema={"type": "object", "properties": {}},
                output_schema=COUNT_OUTPUT,
            ),
            types.Tool(
                name="contact",
                description="Says it returns an email address, returns something else.",
                input_schema={"type": "object", "properties": {}},
                output_schema=CONTACT_OUTPUT,
            ),
            types.Tool(name="echo", description="Echo the text.", input_schema=TEXT_INPUT),
        ]
    )


async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name == "liar":
        return types.CallToolResult(
            content=[types.TextContent(text='{"count": "many"}')],
            structured_content={"count": "many"},
        )
    if params.name == "contact":
        return types.CallToolResult(
            content=[types.TextContent(text='{"email": "nope"}')],
            structured_content={"email": "nope"},
        )
    text = str((params.arguments or {}).get("text", ""))
    return types.CallToolResult(content=[types.TextContent(text=text)])


server: Server[object] = Server("odd", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
