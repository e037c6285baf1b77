"""A package vendored under another name (`my_acp`, a copy of `acp_schema`), passed as `schema=`:
the connection's proxy and handler types are inferred from the module, with no annotation."""

from __future__ import annotations

from typing import assert_type

import my_acp

from acp_runtime import (
    AgentSideConnection,
    ClientSideConnection,
    memory_pipe,
    run_agent,
    spawn_agent,
)
from acp_runtime.helpers import AgentSession
from acp_runtime.session import Session


class Agent(my_acp.AgentHandler):
    def __init__(self, conn: AgentSideConnection[my_acp.ClientProxy]) -> None:
        self.client = conn.client
        assert_type(self.client, my_acp.ClientProxy)

    async def session_prompt(self, params: my_acp.PromptRequest) -> my_acp.PromptResponse:
        read = await self.client.fs_read_text_file(
            my_acp.ReadTextFileRequest(session_id=params.session_id, path="/tmp/notes.txt")
        )
        assert_type(read, my_acp.ReadTextFileResponse)
        return my_acp.PromptResponse(stop_reason=my_acp.StopReason.END_TURN)


class Client(my_acp.ClientHandler):
    async def session_update(self, params: my_acp.SessionNotification) -> None:
        assert_type(params.session_id, str)


async def talk() -> None:
    async with spawn_agent(Client(), "agent", schema=my_acp) as conn:
        assert_type(conn, ClientSideConnection[my_acp.AgentProxy])
        session = await conn.agent.session_new(my_acp.NewSessionRequest(cwd="/", mcp_servers=[]))
        assert_type(session, my_acp.NewSessionResponse)
    (reader, writer), _ = memory_pipe()
    agent_side = AgentSideConnection(Agent, reader, writer, schema=my_acp)
    assert_type(agent_side, AgentSideConnection[my_acp.ClientProxy])
    client_side = ClientSideConnection(Client(), reader, writer, schema=my_acp, lenient=True)
    assert_type(client_side.agent, my_acp.AgentProxy)


def main() -> None:
    run_agent(Agent, schema=my_acp)


async def friendly(
    agent_side: AgentSideConnection[my_acp.ClientProxy],
    client_side: ClientSideConnection[my_acp.AgentProxy],
) -> None:
    """The friendly layer reads the vendored package's types off the connection's proxy."""
    session = AgentSession(agent_side, "s")
    await session.say(my_acp.TextContent(text="hi"))
    option = await session.ask_permission({"toolCallId": "c", "title": "Read"})
    assert_type(option, my_acp.PermissionOption | None)
    client_session = await Session.new(client_side, "/tmp")
    outcome = await client_session.prompt([my_acp.TextContent(text="hi")])
    assert_type(outcome.stop_reason, my_acp.StopReason | None)
    assert_type(outcome.response, my_acp.PromptResponse)
