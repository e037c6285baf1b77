"""An agent whose MCP client takes only URLs: it advertises `mcpCapabilities.http` (not `acp`) and,
on a prompt, opens each `http` server of its session with the official `mcp` client (Streamable
HTTP, the headers it was given), lists its tools and calls `note` (asking for progress), each
reported as
agent_message_chunk text; the first chunk names the transports of the servers it was given.

python http_mcp_agent.py
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

import acp_schema as acp
from acp_runtime import AgentSideConnection, run_agent


class HttpMcpAgent(acp.AgentHandler):
    def __init__(self, conn: AgentSideConnection) -> None:
        self.conn = conn
        self.servers: list[acp.McpServer] = []

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        caps = acp.AgentCapabilities(mcp_capabilities=acp.McpCapabilities(http=True))
        return acp.InitializeResponse(protocol_version=1, agent_capabilities=caps)

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        self.servers = list(params.mcp_servers)
        return acp.NewSessionResponse(session_id="http-session")

    async def say(self, text: str) -> None:
        chunk = acp.SessionUpdateAgentMessageChunk(content=acp.TextContent(text=text))
        await self.conn.client.session_update(
            acp.SessionNotification(session_id="http-session", update=chunk)
        )

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        await self.say("servers: " + ",".join(type(s).__name__ for s in self.servers))
        for server in self.servers:
            if not isinstance(server, acp.McpServerHttp):
                continue
            headers = {h.name: h.value for h in server.headers or []}
            async with httpx2.AsyncClient(headers=headers) as http:
                transport = streamable_http_client(server.url, http_client=http)
                async with Client(transport, mode="2026-07-28") as mcp:
                    listed = await mcp.list_tools()
                    await self.say(f"{server.name} tools: {','.join(t.name for t in listed.tools)}")
                    progress: list[str] = []
                    args = {"text": "over the bridge"}
                    result = await mcp.call_tool("note", args, progress_callback=_into(progress))
                    await self.say(f"progress: {','.join(progress)}")
                    await self.say(",".join(getattr(c, "text", "") for c in result.content))
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


def _into(progress: list[str]) -> Callable[[float, float | None, str | None], Awaitable[None]]:
    async def on_progress(done: float, total: float | None, text: str | None) -> None:
        progress.append(f"{done}/{total} {text}")

    return on_progress


if __name__ == "__main__":
    run_agent(HttpMcpAgent)
