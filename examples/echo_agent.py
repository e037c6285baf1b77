"""An ACP agent that echoes every text block of a prompt back to the client.

    python examples/echo_agent.py [--delay SECONDS] [--listen HOST:PORT]

It answers initialize, session/new and session/prompt: each text block of the prompt comes back as
an `agent_message_chunk` session update, then the turn ends with stop reason `end_turn`.
`--delay` waits that long before each chunk, which gives a client time to send session/cancel:
the runtime then cancels the running prompt and the turn ends with stop reason `cancelled`.
`--listen` serves remote clients at http://HOST:PORT/acp instead of stdio (Streamable HTTP over
HTTP/1.1 or h2c, and WebSocket, on the one port; needs the `http` extra).
"""

from __future__ import annotations

import argparse
import asyncio
import uuid

import acp_schema as acp
from acp_runtime import AgentSideConnection, run_agent


class EchoAgent(acp.AgentHandler):
    def __init__(self, conn: AgentSideConnection, delay: float = 0.0) -> None:
        self.client: acp.ClientProxy = conn.client
        self.delay = delay

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        return acp.InitializeResponse(
            protocol_version=params.protocol_version,  # the runtime negotiates the final value
            agent_capabilities=acp.AgentCapabilities(),
            agent_info=acp.Implementation(name="echo-agent", version="0.1.0"),
        )

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        return acp.NewSessionResponse(session_id=f"echo-{uuid.uuid4().hex[:12]}")

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        for block in params.prompt:
            if isinstance(block, acp.TextContent):
                if self.delay:
                    await asyncio.sleep(self.delay)
                chunk = acp.SessionUpdateAgentMessageChunk(content=acp.TextContent(text=block.text))
                await self.client.session_update(acp.SessionNotification(session_id=params.session_id, update=chunk))
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)

    # session/cancel needs no code here: the runtime cancels the running session_prompt and
    # answers it with stop reason `cancelled`.


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "echo agent").splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait before each chunk")
    parser.add_argument("--listen", metavar="HOST:PORT", help="serve at http://HOST:PORT/acp instead of stdio")
    args = parser.parse_args()
    if args.listen:
        from acp_runtime.http import run

        def listening(url: str) -> None:
            print(f"serving {url}", flush=True)

        run(lambda conn: EchoAgent(conn, args.delay), args.listen, on_listening=listening)
        return
    run_agent(lambda conn: EchoAgent(conn, args.delay))


if __name__ == "__main__":
    main()
