"""Misuse on the client side: each marked line is reported by both checkers, with that error."""

from __future__ import annotations

import acp_schema as acp
from acp_runtime import AgentSideConnection, spawn_agent


class Client(acp.ClientHandler):
    async def session_update(self, params: acp.SessionNotification) -> acp.PromptResponse:  # error: mypy[override] pyright[reportIncompatibleMethodOverride]
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


def agent_shaped_factory(conn: AgentSideConnection) -> Client:
    return Client()


async def talk() -> None:
    async with spawn_agent(Client(), "agent") as conn:
        await conn.agent.session_prompt(acp.NewSessionRequest(cwd="/", mcp_servers=[]))  # error: mypy[arg-type] pyright[reportArgumentType]
        await conn.agent.session_promt(acp.PromptRequest(session_id="s", prompt=[]))  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
        session = await conn.agent.session_new(acp.NewSessionRequest(cwd="/", mcp_servers=[]))
        number: int = session.session_id  # error: mypy[assignment] pyright[reportAssignmentType]
        session.sessionId  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
        acp.NewSessionRequest(cwd="/", mcp_servers=[], model="x")  # error: mypy[call-arg] pyright[reportCallIssue]
        conn.client  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
    async with spawn_agent(agent_shaped_factory, "agent"):  # error: mypy[arg-type] pyright[reportArgumentType]
        pass
    async with spawn_agent(acp.AgentHandler(), "agent"):  # error: mypy[call-overload] pyright[reportArgumentType]
        pass
    async with spawn_agent(Client(), "agent", shutdown_timeout="2s"):  # error: mypy[call-overload] pyright[reportArgumentType]
        pass
