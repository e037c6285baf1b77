"""The peers of bench/mcp_call.py: one MCP tool ("note", written with the official `mcp` SDK's
low-level `Server`), called N times one after another, two ways.

    python mcp_peer.py carrier N    an ACP client providing the tool over `mcp/message` to the
                                    agent it spawns (`mcp_peer.py agent`, stdio), which calls it
                                    with acp_runtime's McpCaller and with a real mcp.Client over
                                    the carrier (acp_runtime.mcp.sdk)
    python mcp_peer.py stdio N      an mcp.Client calling the same tool on the SDK's own stdio
                                    transport (`mcp_peer.py server`, a child process)

Each prints one JSON line: microseconds per call (after a warm-up), per way.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

import mcp.types as types
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server import Server
from mcp.server.stdio import stdio_server

WARM_UP = 50


def note_server() -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        schema = {"type": "object", "properties": {"text": {"type": "string"}}}
        return types.ListToolsResult(tools=[types.Tool(name="note", input_schema=schema)])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = str((params.arguments or {}).get("text", ""))
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"noted: {text}")])

    return Server("notes", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


async def timed(n: int, call: Any) -> float:
    for _ in range(WARM_UP):
        await call()
    started = time.perf_counter()
    for _ in range(n):
        await call()
    return (time.perf_counter() - started) / n * 1e6


async def stdio(n: int) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=[__file__, "server"])
    async with Client(params, mode="2026-07-28") as client:
        us = await timed(n, lambda: client.call_tool("note", {"text": "x"}))
    return {"stdio_us": us}


async def serve_stdio() -> None:
    server = note_server()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


async def carrier(n: int) -> dict[str, Any]:
    import acp_schema as acp
    from acp_runtime import spawn_agent
    from acp_runtime.mcp import McpProvider
    from acp_runtime.mcp.sdk import serve_mcp_server

    class Editor(acp.ClientHandler):
        def __init__(self, conn: Any) -> None:
            self.provider = McpProvider(conn)
            self.report: dict[str, Any] = {}

        async def mcp_message(self, params: acp.MessageMcpRequest) -> acp.MessageMcpResponse:
            return await self.provider.mcp_message(params)

        async def session_update(self, params: acp.SessionNotification) -> None:
            content = getattr(params.update, "content", None)
            if isinstance(content, acp.TextContent):
                self.report = json.loads(content.text)

    async with spawn_agent(Editor, sys.executable, __file__, "agent", str(n)) as conn:
        await conn.agent.initialize(acp.InitializeRequest(protocol_version=1))
        async with serve_mcp_server(conn.handler.provider, "notes", note_server()) as notes:
            new = acp.NewSessionRequest(cwd="/", mcp_servers=[notes.declaration])
            session = await conn.agent.session_new(new)
            await conn.agent.session_prompt(
                acp.PromptRequest(session_id=session.session_id, prompt=[])
            )
        return conn.handler.report


def agent(n: int) -> None:
    import acp_schema as acp
    from acp_runtime import run_agent
    from acp_runtime.mcp import McpCaller
    from acp_runtime.mcp.sdk import mcp_client_session

    class Caller(acp.AgentHandler):
        def __init__(self, conn: Any) -> None:
            self.conn = conn
            self.caller = McpCaller(conn, client_info={"name": "bench", "version": "1"})
            self.servers: list[Any] = []

        async def mcp_message_notification(self, params: acp.MessageMcpNotification) -> None:
            await self.caller.mcp_message_notification(params)

        async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
            caps = acp.AgentCapabilities(mcp_capabilities=acp.McpCapabilities(acp=True))
            return acp.InitializeResponse(protocol_version=1, agent_capabilities=caps)

        async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
            self.servers = self.caller.servers(params)
            return acp.NewSessionResponse(session_id="bench")

        async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
            session = self.caller.session(self.servers[0])
            report = {"caller_us": await timed(n, lambda: session.call_tool("note", {"text": "x"}))}
            async with mcp_client_session(self.caller, self.servers[0]) as client:
                report["client_us"] = await timed(
                    n, lambda: client.call_tool("note", {"text": "x"})
                )
            chunk = acp.SessionUpdateAgentMessageChunk(
                content=acp.TextContent(text=json.dumps(report))
            )
            await self.conn.client.session_update(
                acp.SessionNotification(session_id="bench", update=chunk)
            )
            return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)

    run_agent(Caller)


def main() -> None:
    role = sys.argv[1]
    if role == "server":
        asyncio.run(serve_stdio())
    elif role == "agent":
        agent(int(sys.argv[2]))
    else:
        n = int(sys.argv[2])
        run = carrier if role == "carrier" else stdio
        print(json.dumps(asyncio.run(run(n))), flush=True)


if __name__ == "__main__":
    main()
