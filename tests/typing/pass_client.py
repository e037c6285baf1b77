"""A client on the default package, as a user writes it: type-checks clean, every type exact."""

from __future__ import annotations

import sys
from typing import assert_type

import acp_schema as acp
from acp_runtime import ClientSideConnection, Connection, PendingCall, memory_pipe, spawn_agent


class Client(acp.ClientHandler):
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def session_update(self, params: acp.SessionNotification) -> None:
        update = params.update
        if isinstance(update, acp.SessionUpdateAgentMessageChunk):
            if isinstance(update.content, acp.TextContent):
                self.seen.append(update.content.text)

    async def session_request_permission(
        self, params: acp.RequestPermissionRequest
    ) -> acp.RequestPermissionResponse:
        return acp.RequestPermissionResponse(outcome=acp.RequestPermissionOutcomeCancelled())


async def talk() -> None:
    async with spawn_agent(Client(), sys.executable, "agent.py", cwd="/tmp") as conn:
        assert_type(conn, ClientSideConnection[acp.AgentProxy])
        assert_type(conn.agent, acp.AgentProxy)
        assert_type(conn.stderr_tail, bytes)
        init = await conn.agent.initialize(
            acp.InitializeRequest(protocol_version=1, client_capabilities=acp.ClientCapabilities())
        )
        assert_type(init, acp.InitializeResponse)
        session = await conn.agent.session_new(acp.NewSessionRequest(cwd="/tmp", mcp_servers=[]))
        assert_type(session.session_id, str)
        prompt: list[acp.ContentBlock] = [acp.TextContent(text="hello")]
        request = acp.PromptRequest(session_id=session.session_id, prompt=prompt)
        answer = await conn.agent.session_prompt(request)
        assert_type(answer, acp.PromptResponse)
        assert_type(answer.stop_reason, acp.StopReason)
        cancel = acp.CancelNotification(session_id=session.session_id)
        assert_type(await conn.agent.session_cancel(cancel), None)
        call = await conn.send_request("_my/extension", {"any": ["json"]})
        assert_type(call, PendingCall)
        await call.cancel()


def client_factory(conn: ClientSideConnection) -> Client:
    assert_type(conn.agent, acp.AgentProxy)
    return Client()


async def in_memory() -> None:
    _, (reader, writer) = memory_pipe()
    conn = ClientSideConnection(client_factory, reader, writer)
    assert_type(conn, ClientSideConnection[acp.AgentProxy])
    async with spawn_agent(client_factory, "agent", stderr=-1, shutdown_timeout=1.0) as spawned:
        assert_type(spawned.agent, acp.AgentProxy)


def any_connection(conn: Connection) -> None:
    assert_type(conn.closed, bool)


def a_list_of_one_variant_is_a_prompt() -> acp.PromptRequest:
    prompt = [acp.TextContent(text="hello")]
    return acp.PromptRequest(session_id="s", prompt=prompt)
