"""Misuse on the agent side: each marked line is reported by both checkers, with that error."""

from __future__ import annotations

import acp_schema as acp
from acp_runtime import AgentSideConnection, ClientSideConnection, memory_pipe, run_agent
from acp_runtime.http import AcpApp
from acp_runtime.http import run as run_remote


class Agent(acp.AgentHandler):
    def __init__(self, conn: AgentSideConnection) -> None:
        self.client = conn.client
        self.agent = conn.agent  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]

    async def session_new(self, params: acp.NewSessionRequest) -> acp.PromptResponse:  # error: mypy[override] pyright[reportIncompatibleMethodOverride]
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        await self.client.fs_read_text_file(params)  # error: mypy[arg-type] pyright[reportArgumentType]
        await self.client.fs_read_txt_file(params)  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
        read = await self.client.fs_read_text_file(acp.ReadTextFileRequest(session_id="s", path="/a"))
        lines: int = read.content  # error: mypy[assignment] pyright[reportAssignmentType]
        read.contents  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
        acp.ReadTextFileRequest(session_id="s", path="/a", limits=3)  # error: mypy[call-arg] pyright[reportCallIssue]
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


class ClientShapedAgent(acp.AgentHandler):
    def __init__(self, conn: ClientSideConnection) -> None:
        self.conn = conn


class NotAHandler:
    pass


run_agent(ClientShapedAgent)  # error: mypy[arg-type] pyright[reportArgumentType]
run_agent(NotAHandler())  # error: mypy[call-overload] pyright[reportArgumentType]
run_agent(Agent, max_line_bytes="1 MiB")  # error: mypy[call-overload] pyright[reportArgumentType]
run_agent(Agent, lenience=True)  # error: mypy[call-overload] pyright[reportCallIssue]
AcpApp(ClientShapedAgent)  # error: mypy[arg-type] pyright[reportArgumentType]
AcpApp(Agent, max_connections="many")  # error: mypy[call-overload] pyright[reportArgumentType]
run_remote(ClientShapedAgent, "127.0.0.1:0")  # error: mypy[arg-type] pyright[reportArgumentType]
run_remote(Agent, "127.0.0.1:0", on_listening=3)  # error: mypy[call-overload] pyright[reportArgumentType]


async def direct() -> None:
    (reader, writer), _ = memory_pipe()
    AgentSideConnection(acp.ClientHandler(), reader, writer)  # error: mypy[call-overload] pyright[reportArgumentType]
