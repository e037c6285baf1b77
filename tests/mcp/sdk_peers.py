"""A small server written with the official `mcp` SDK (PyPI `mcp`, its low-level `Server`): one
tool, `note`, that keeps what it is given and reports progress while it works; `wait` blocks
until released (or cancelled); `fail` raises."""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

NOTE_TOOL = types.Tool(
    name="note",
    description="Keep a note",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
)


class Notes:
    def __init__(self) -> None:
        self.notes: list[str] = []
        self.release = anyio.Event()
        self.waiting = 0
        self.cancelled = 0
        self.server: Server[Any] = Server(
            "notes", version="1", on_list_tools=self.list_tools, on_call_tool=self.call_tool
        )

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[NOTE_TOOL])

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name == "note":
            meta = ctx.meta or {}  # the SDK's request meta, keyed by its field names
            token = meta.get("progress_token", meta.get("progressToken"))
            if token is not None:
                # scoped to this request: on MCP 2026-07-28 an unscoped one has no stream to ride
                await ctx.session.send_progress_notification(
                    token, 1, 1, "kept", related_request_id=str(ctx.request_id)
                )
            self.notes.append(str(arguments.get("text", "")))
            text = f"noted: {arguments.get('text', '')}"
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
        if params.name == "wait":
            self.waiting += 1
            try:
                await self.release.wait()
            except anyio.get_cancelled_exc_class():
                self.cancelled += 1
                raise
            return types.CallToolResult(content=[])
        if params.name == "fail":
            raise RuntimeError("the notes are on fire")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"no tool {params.name}")], is_error=True
        )
