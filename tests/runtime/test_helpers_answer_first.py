"""Answer first, then stream: `conn.after_answer(work)` starts work once the answer is written."""

from __future__ import annotations

import pytest

import acp_schema as acp
from acp_runtime import AgentSideConnection, ClientSideConnection, ProtocolError, memory_pipe
from acp_runtime.helpers import AgentSession
from acp_runtime.session import Session

from .helpers import CWD, Agent, Client, initialize_request, raw_client


class CommandsAfterNew(Agent):
    """Answers session/new, then (only then) sends the session's commands."""

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        session = AgentSession(self.conn, "s1")
        commands = [{"name": "web", "description": "Search the web"}]
        self.conn.after_answer(
            lambda: session.send(
                {"sessionUpdate": "available_commands_update", "availableCommands": commands}
            )
        )
        return acp.NewSessionResponse(session_id="s1")


async def test_work_scheduled_in_a_handler_starts_after_its_answer_is_written() -> None:
    conn, peer = await raw_client(CommandsAfterNew)
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "session/new",
            "params": {"cwd": CWD, "mcpServers": []},
        }
    )
    answer, update = await peer.recv(), await peer.recv()
    assert answer["id"] == 1 and answer["result"] == {"sessionId": "s1"}
    assert (
        update["method"] == "session/update"
        and update["params"]["update"]["sessionUpdate"] == "available_commands_update"
    )


async def test_a_session_folds_what_the_agent_sends_right_after_answering_session_new() -> None:
    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    AgentSideConnection(CommandsAfterNew, agent_in, agent_out)
    conn = ClientSideConnection(Client(), client_in, client_out)
    await conn.agent.initialize(initialize_request())
    session = await Session.new(conn, CWD)
    await conn.request("_ping", {})  # the update went out before this answer
    assert [c.name for c in session.commands] == ["web"]


async def test_work_is_dropped_when_the_answer_is_an_error() -> None:
    ran: list[str] = []

    class Failing(Agent):
        async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
            async def work() -> None:
                ran.append("work")

            self.conn.after_answer(work)
            raise acp.AuthenticationRequiredError()

    conn, peer = await raw_client(Failing)
    answer = await peer.call(1, "session/new", {"cwd": CWD, "mcpServers": []})
    assert answer["error"]["code"] == -32000
    await peer.barrier()
    assert ran == []


async def test_after_answer_outside_a_handler_is_refused() -> None:
    conn, _ = await raw_client()
    with pytest.raises(ProtocolError):
        conn.after_answer(lambda: None)  # type: ignore[arg-type, return-value]
