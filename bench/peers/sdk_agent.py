"""The benchmark agent on the official Python SDK: same behaviour as runtime_agent.py."""

from __future__ import annotations

import asyncio
from typing import Any

import acp
from acp.schema import AgentCapabilities
from common import big_text, pin


class BenchAgent:
    def __init__(self) -> None:
        self.conn: Any = None

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(
        self, protocol_version: int, client_capabilities=None, client_info=None, **kwargs: Any
    ):
        return acp.InitializeResponse(
            protocol_version=protocol_version, agent_capabilities=AgentCapabilities()
        )

    async def new_session(self, cwd: str, mcp_servers=None, **kwargs: Any):
        return acp.NewSessionResponse(session_id="bench-session")

    async def prompt(self, prompt, session_id: str, **kwargs: Any):
        command = prompt[0].text
        notify = self.conn.session_update
        if command.startswith("stream "):
            for i in range(int(command[7:])):
                await notify(
                    session_id=session_id,
                    update=acp.update_agent_message_text(f"token {i} of the answer, "),
                )
        elif command.startswith("big "):
            await notify(
                session_id=session_id,
                update=acp.update_agent_message_text(big_text(int(command[4:]))),
            )
        return acp.PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    pin("agent")
    asyncio.run(acp.run_agent(BenchAgent()))  # type: ignore[arg-type]  # duck-typed, as the SDK allows
