"""Interop both ways with the official TypeScript SDK 2.4.0 (pinned in tests/interop/package.json):
our provider against its caller (`McpOverAcpCaller`, tests/interop/ts_mcp_caller_agent.mjs), our
caller against its provider (`McpOverAcpProvider`, tests/interop/ts_mcp_provider_client.mjs).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import acp_schema as acp
from acp_runtime import spawn_agent
from acp_runtime.mcp import MAX_MESSAGE_BYTES, agent_accepts_acp_servers
from tests.interop.scenario import node_peer

from .peers import CWD, McpClient, Tools

HERE = Path(__file__).parent


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
        texts = conn.handler.texts
        notes = [t for t in texts if t.startswith("note: ")]
        assert [t for t in texts if t not in notes] == [
            "tools: echo",
            "echo: from ts",
            "unknown: -33001",
        ]
        # the TS caller hands a request-scoped notification to its listener, which reports it with
        # a session/update it does not await: seen at most once, and never another method
        assert notes in ([], ["note: notifications/progress"])
        assert tools.seen[1].method == "tools/call"
        # the TS caller's own per-request metadata, as the provider checked it
        assert tools.seen[0].protocol_version == "2026-07-28"
        assert tools.seen[0].client_info == {"name": "ts-mcp-agent", "version": "2.4.0"}
        assert conn.handler.provider.in_flight == 0


def test_our_caller_calls_the_typescript_sdk_provider():
    command = [*node_peer("ts_mcp_provider_client.mjs"), sys.executable, str(HERE / "mcp_agent.py")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["acp"] is True and report["stopReason"] == "end_turn"
    assert report["chunks"] == [
        "tools: echo",
        "notes: notifications/progress",  # the TS provider's notification, matched to our request
        "ts echo: hi",
        "inner error: -32602 Unknown tool: nope",
    ]
    # the TS provider read our per-request MCP 2026-07-28 metadata
    assert report["seen"][0] == {
        "method": "tools/list",
        "protocolVersion": "2026-07-28",
        "clientInfo": {"name": "acp-runtime-agent", "version": "1"},
    }
