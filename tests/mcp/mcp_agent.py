"""An agent on acp_runtime whose `McpCaller` calls the `acp` MCP servers its client declares: on a
prompt, tools/list and tools/call "echo" on each, reported as agent_message_chunk text (the peer
of tests/mcp/test_interop_ts.py's TypeScript client)."""

from __future__ import annotations

from typing import Any, Callable

import acp_schema as acp
from acp_runtime import AgentSideConnection, run_agent
from acp_runtime.mcp import McpCaller, McpNotification, McpProtocolError


class McpCallingAgent(acp.AgentHandler):
    def __init__(self, conn: AgentSideConnection) -> None:
        self.conn = conn
        self.caller = McpCaller(conn, client_info={"name": "acp-runtime-agent", "version": "1"})
        self.servers: list[Any] = []

    async def mcp_message_notification(self, params: acp.MessageMcpNotification) -> None:
        await self.caller.mcp_message_notification(params)

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        caps = acp.AgentCapabilities(mcp_capabilities=acp.McpCapabilities(acp=True))
        return acp.InitializeResponse(protocol_version=1, agent_capabilities=caps)

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        self.servers = self.caller.servers(params)
        return acp.NewSessionResponse(session_id="py-session")

    async def say(self, text: str) -> None:
        chunk = acp.SessionUpdateAgentMessageChunk(content=acp.TextContent(text=text))
        await self.conn.client.session_update(
            acp.SessionNotification(session_id="py-session", update=chunk)
        )

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        for server in self.servers:
            session = self.caller.session(server)
            names = [tool["name"] for tool in await session.list_tools()]
            await self.say(f"tools: {','.join(names)}")
            notes: list[str] = []
            result = await session.call_tool("echo", {"text": "hi"}, on_notification=_into(notes))
            await self.say(f"notes: {','.join(notes)}")
            await self.say(result["content"][0]["text"])
            try:
                await session.call_tool("nope")
            except McpProtocolError as exc:
                await self.say(f"inner error: {exc.code} {exc.message}")
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


def _into(notes: list[str]) -> Callable[[McpNotification], None]:
    return lambda note: notes.append(note.method)


if __name__ == "__main__":
    run_agent(McpCallingAgent)
