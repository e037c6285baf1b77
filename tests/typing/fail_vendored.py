"""Misuse with a vendored package (`my_acp`): its types and `acp_schema`'s do not mix."""

from __future__ import annotations

import acp_schema
import my_acp
from acp_runtime import AgentSideConnection, run_agent, spawn_agent


class Agent(my_acp.AgentHandler):
    def __init__(self, conn: AgentSideConnection[my_acp.ClientProxy]) -> None:
        self.client = conn.client


class Client(my_acp.ClientHandler):
    pass


async def talk() -> None:
    async with spawn_agent(Client(), "agent", schema=my_acp) as conn:
        await conn.agent.session_new(acp_schema.NewSessionRequest(cwd="/", mcp_servers=[]))  # error: mypy[arg-type] pyright[reportArgumentType]
        conn.client  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
    async with spawn_agent(Client(), "agent"):  # error: mypy[call-overload] pyright[reportArgumentType]
        pass
    async with spawn_agent(acp_schema.ClientHandler(), "agent", schema=my_acp):  # error: mypy[arg-type] pyright[reportCallIssue,reportArgumentType]
        pass


run_agent(Agent)  # error: mypy[arg-type] pyright[reportArgumentType]
run_agent(Agent, schema=acp_schema)  # error: mypy[arg-type] pyright[reportCallIssue,reportArgumentType]
run_agent(my_acp.ClientHandler(), schema=my_acp)  # error: mypy[arg-type] pyright[reportCallIssue,reportArgumentType]


async def friendly(conn: AgentSideConnection[my_acp.ClientProxy]) -> None:
    from acp_runtime.helpers import AgentSession

    session = AgentSession(conn, "s")
    await session.say(acp_schema.TextContent(text="hi"))  # error: mypy[arg-type] pyright[reportArgumentType]
