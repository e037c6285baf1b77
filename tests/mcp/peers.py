"""A client providing MCP servers and an agent calling them, over an in-memory pipe."""

from __future__ import annotations

import asyncio
from typing import Any

import acp_schema as acp
from acp_runtime import AgentSideConnection, ClientSideConnection, memory_pipe
from acp_runtime.mcp import McpCaller, McpOperation, McpProtocolError, McpProvider

CWD = "/work/project"


class McpClient(acp.ClientHandler):
    """A client whose `mcp/message` requests its provider serves."""

    def __init__(self, conn: ClientSideConnection, **provider: Any) -> None:
        self.provider = McpProvider(conn, **provider)

    async def mcp_message(self, params: acp.MessageMcpRequest) -> acp.MessageMcpResponse:
        return await self.provider.mcp_message(params)

    async def session_update(self, params: acp.SessionNotification) -> None:
        pass


class McpAgent(acp.AgentHandler):
    """An agent advertising `mcpCapabilities.acp`, keeping each session's acp servers."""

    def __init__(self, conn: AgentSideConnection) -> None:
        self.conn = conn
        self.caller = McpCaller(conn, client_info={"name": "test-agent", "version": "1"})
        self.servers: list[Any] = []

    async def mcp_message_notification(self, params: acp.MessageMcpNotification) -> None:
        await self.caller.mcp_message_notification(params)

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        caps = acp.AgentCapabilities(mcp_capabilities=acp.McpCapabilities(acp=True))
        return acp.InitializeResponse(protocol_version=1, agent_capabilities=caps)

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        self.servers = self.caller.servers(params)
        return acp.NewSessionResponse(session_id="s1")


class Tools:
    """A small MCP server backend: `echo`, `slow` (waits until released), `boom` (fails)."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = 0
        self.cancelled = 0
        self.seen: list[McpOperation] = []

    async def __call__(self, op: McpOperation) -> Any:
        self.seen.append(op)
        params = op.params or {}
        if op.method == "tools/list":
            return {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
        if op.method != "tools/call":
            raise McpProtocolError(-32601, f"Method not found: {op.method}")
        name = params.get("name")
        args = params.get("arguments") or {}
        if name == "echo":
            await op.notify("notifications/progress", {"progress": 1, "progressToken": "t"})
            return {"content": [{"type": "text", "text": str(args.get("text", ""))}]}
        if name == "slow":
            self.started += 1
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
            return {"content": []}
        if name == "boom":
            raise RuntimeError("the tool broke")
        raise McpProtocolError(-32602, f"Unknown tool: {name}")


async def mcp_pair(
    *, provider: dict[str, Any] | None = None, client_options: dict[str, Any] | None = None
) -> tuple[AgentSideConnection, ClientSideConnection]:
    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    agent = AgentSideConnection(McpAgent, agent_in, agent_out)
    client = ClientSideConnection(
        lambda conn: McpClient(conn, **(provider or {})),
        client_in,
        client_out,
        **(client_options or {}),
    )
    await client.agent.initialize(acp.InitializeRequest(protocol_version=1))
    return agent, client
