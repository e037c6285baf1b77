"""An ACP agent that echoes every text block of a prompt back to the client.

    python examples/echo_agent.py [--delay SECONDS] [--listen HOST:PORT]

Each text block of a prompt comes back as an agent message chunk, then the turn ends `end_turn`.
`--delay` waits before each chunk, which gives a client time to send session/cancel: the runtime
then cancels the running prompt and the turn ends `cancelled` (no code needed here).
`--listen` serves remote clients at http://HOST:PORT/acp instead of stdio (Streamable HTTP over
HTTP/1.1 or h2c, and WebSocket, on the one port; needs the `http` extra).
"""

from __future__ import annotations

import argparse
import asyncio
import uuid

import acp_schema as acp
from acp_runtime import AgentSideConnection, run_agent
from acp_runtime.helpers import AgentSession


class EchoAgent(acp.AgentHandler):
    def __init__(self, conn: AgentSideConnection, delay: float = 0.0) -> None:
        self.conn = conn
        self.delay = delay

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        return acp.InitializeResponse(
            protocol_version=1,  # the runtime negotiates the final value
            agent_capabilities=acp.AgentCapabilities(),
            agent_info=acp.Implementation(name="echo-agent", version="0.1.0"),
        )

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        return acp.NewSessionResponse(session_id=f"echo-{uuid.uuid4().hex[:12]}")

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        session = AgentSession(self.conn, params.session_id)
        for block in params.prompt:
            if isinstance(block, acp.TextContent):
                await asyncio.sleep(self.delay)
                await session.say(block.text)
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "echo agent").splitlines()[0])
    parser.add_argument(
        "--delay", type=float, default=0.0, help="seconds to wait before each chunk"
    )
    parser.add_argument(
        "--listen", metavar="HOST:PORT", help="serve at http://HOST:PORT/acp instead of stdio"
    )
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
