"""Our provider against the official TypeScript SDK 2.4.0's caller (`McpOverAcpCaller`, in
tests/interop/ts_mcp_caller_agent.mjs, pinned in tests/interop/package.json)."""

from __future__ import annotations

import acp_schema as acp
from acp_runtime import spawn_agent
from acp_runtime.mcp import MAX_MESSAGE_BYTES, agent_accepts_acp_servers
from tests.interop.scenario import node_peer

from .peers import CWD, McpClient, Tools


class Recording(McpClient):
    def __init__(self, conn, **provider):
        super().__init__(conn, **provider)
        self.texts: list[str] = []

    async def session_update(self, params: acp.SessionNotification) -> None:
        self.texts.append(params.update.content.text)


async def test_our_provider_serves_the_typescript_sdk_caller():
    command = node_peer("ts_mcp_caller_agent.mjs")
    async with spawn_agent(Recording, *command, max_line_bytes=MAX_MESSAGE_BYTES) as conn:
        await conn.agent.initialize(acp.InitializeRequest(protocol_version=1))
        assert agent_accepts_acp_servers(conn.peer_capabilities)
        tools = Tools()
        registration = conn.handler.provider.register("tools", tools)
        session = await conn.agent.session_new(
            acp.NewSessionRequest(cwd=CWD, mcp_servers=[registration.declaration])
        )
        await conn.agent.session_prompt(acp.PromptRequest(session_id=session.session_id, prompt=[]))
        assert conn.handler.texts == [
            "tools: echo",
            "note: notifications/progress",  # our notification reached the TS request's listener
            "echo: from ts",
            "unknown: -33001",
        ]
        # the TS caller's own per-request metadata, as the provider checked it
        assert tools.seen[0].protocol_version == "2026-07-28"
        assert tools.seen[0].client_info == {"name": "ts-mcp-agent", "version": "2.4.0"}
        assert conn.handler.provider.in_flight == 0
