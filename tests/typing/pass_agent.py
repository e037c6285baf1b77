"""An agent on the default package, as a user writes it: type-checks clean, every type exact."""

from __future__ import annotations

import asyncio
from typing import Any, assert_type

import acp_schema as acp
from acp_runtime import AgentSideConnection, memory_pipe, run_agent, serve_agent
from acp_runtime.http import AcpApp, RemoteAgentConnection
from acp_runtime.http import run as run_remote


class Agent(acp.AgentHandler):
    def __init__(self, conn: AgentSideConnection) -> None:
        assert_type(conn, AgentSideConnection[acp.ClientProxy])
        self.client = conn.client
        assert_type(self.client, acp.ClientProxy)

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        request = acp.ReadTextFileRequest(session_id=params.session_id, path="/tmp/notes.txt")
        read = await self.client.fs_read_text_file(request)
        assert_type(read, acp.ReadTextFileResponse)
        assert_type(read.content, str)
        chunk = acp.SessionUpdateAgentMessageChunk(content=acp.TextContent(text=read.content))
        note = acp.SessionNotification(session_id=params.session_id, update=chunk)
        assert_type(await self.client.session_update(note), None)
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


def agent_factory(conn: AgentSideConnection[acp.ClientProxy]) -> Agent:
    return Agent(conn)


async def serve_in_memory() -> None:
    (reader, writer), _ = memory_pipe()
    by_class = AgentSideConnection(Agent, reader, writer)
    assert_type(by_class, AgentSideConnection[acp.ClientProxy])
    assert_type(by_class.client, acp.ClientProxy)
    by_function = AgentSideConnection(agent_factory, reader, writer, lenient=True)
    assert_type(by_function.client, acp.ClientProxy)
    by_instance = AgentSideConnection(acp.AgentHandler(), reader, writer, enforce_protocol=False)
    assert_type(by_instance.client, acp.ClientProxy)
    async with by_instance as conn:
        assert_type(conn, AgentSideConnection[acp.ClientProxy])
    await serve_agent(Agent, max_line_bytes=1 << 20)


def remote_factory(conn: RemoteAgentConnection[acp.ClientProxy]) -> Agent:
    assert_type(conn.principal, Any)
    assert_type(conn.client, acp.ClientProxy)
    return Agent(conn)


def remote() -> None:
    AcpApp(Agent, max_connections=8, idle_timeout=None, lenient=True)
    AcpApp(remote_factory, path="/agent/acp", first_message_timeout=5.0)
    AcpApp(lambda conn: Agent(conn), authenticate=lambda request: request.bearer_token)
    run_remote(Agent, "127.0.0.1:0", on_listening=print, max_message_bytes=1 << 20)


def main() -> None:
    run_agent(Agent)
    run_agent(agent_factory, protocol_versions=(1,))
    run_agent(lambda conn: Agent(conn))
    asyncio.run(serve_in_memory())
