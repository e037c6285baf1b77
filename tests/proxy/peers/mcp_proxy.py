"""A proxy that provides a `notes` MCP server (over ACP) to the agent behind it, written with the
official `mcp` SDK's `Server`: `note` answers "noted: TEXT" (after a progress notification when
the call asks for progress), `echo` answers TEXT; another tool is an inner MCP error.
Each session/new it forwards gets the server's `acp` entry; `mcp/message` for another server
goes on toward the client.

python mcp_proxy.py
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp.types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

import acp_schema as acp
from acp_runtime.mcp import McpProvider, McpRegistration
from acp_runtime.mcp.sdk import serve_mcp_server
from acp_runtime.proxy import Proxy, run_proxy
from acp_runtime.proxy.mcp import ProxyMcpConnection

TOOLS = [
    types.Tool(name=name, input_schema={"type": "object", "properties": {"text": {}}})
    for name in ("echo", "note")
]


async def list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(
    ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    text = str((params.arguments or {}).get("text", ""))
    if params.name == "echo":
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    if params.name == "note":
        meta = ctx.meta or {}  # the SDK's request meta, keyed by its field names
        token = meta.get("progress_token", meta.get("progressToken"))
        if token is not None:  # scoped to this request: it rides that request's answer stream
            await ctx.session.send_progress_notification(
                token, 1, 1, "kept", related_request_id=str(ctx.request_id)
            )
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"noted: {text}")])
    raise MCPError(-32602, f"Unknown tool: {params.name}")


class NotesProxy(Proxy[acp.AgentProxy, acp.ClientProxy]):
    def __init__(self) -> None:
        self.mcp = McpProvider(ProxyMcpConnection(self, acp))
        self.server: Server[Any] = Server(
            "notes", version="1", on_list_tools=list_tools, on_call_tool=call_tool
        )
        self.serving: asyncio.Task[None] | None = None
        self.ready: asyncio.Future[McpRegistration] | None = None

    async def _serve(self, ready: asyncio.Future[McpRegistration]) -> None:
        async with serve_mcp_server(self.mcp, "notes", self.server) as registration:
            ready.set_result(registration)
            await asyncio.Event().wait()  # until the process ends

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        if self.ready is None:
            self.ready = asyncio.get_running_loop().create_future()
            self.serving = asyncio.ensure_future(self._serve(self.ready))
        await self.ready
        params.mcp_servers = [*params.mcp_servers, *self.mcp.declarations]
        return await self.successor.session_new(params)

    async def mcp_message(self, params: acp.MessageMcpRequest) -> acp.MessageMcpResponse:
        if params.server_id in self.mcp.servers:
            answer: acp.MessageMcpResponse = await self.mcp.mcp_message(params)
            return answer
        return await self.predecessor.mcp_message(params)


if __name__ == "__main__":
    run_proxy(NotesProxy, acp)
