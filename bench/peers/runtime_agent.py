"""The benchmark agent on acp_runtime. Prompt text `stream N`: N agent_message_chunk updates, then
end_turn; `big N`: one chunk of N characters; anything else (`ping`): end_turn at once."""

from __future__ import annotations

from common import big_text, pin

import acp_schema as acp
from acp_runtime import run_agent


class BenchAgent(acp.AgentHandler):
    def __init__(self, conn) -> None:
        self.client = conn.client

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        return acp.InitializeResponse(
            protocol_version=params.protocol_version, agent_capabilities=acp.AgentCapabilities()
        )

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        return acp.NewSessionResponse(session_id="bench-session")

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        command = params.prompt[0].text
        session_id, notify = params.session_id, self.client.session_update
        if command.startswith("stream "):
            for i in range(int(command[7:])):
                chunk = acp.SessionUpdateAgentMessageChunk(
                    content=acp.TextContent(text=f"token {i} of the answer, ")
                )
                await notify(acp.SessionNotification(session_id=session_id, update=chunk))
        elif command.startswith("big "):
            chunk = acp.SessionUpdateAgentMessageChunk(
                content=acp.TextContent(text=big_text(int(command[4:])))
            )
            await notify(acp.SessionNotification(session_id=session_id, update=chunk))
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


if __name__ == "__main__":
    pin("agent")
    run_agent(BenchAgent)
