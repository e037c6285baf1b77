"""An agent that outlives its stdin and ignores SIGTERM: only SIGKILL stops it."""

import asyncio
import signal

import acp_schema as acp
from acp_runtime import serve_agent


class Stubborn(acp.AgentHandler):
    async def initialize(self, params):
        return acp.InitializeResponse(
            protocol_version=1, agent_capabilities=acp.AgentCapabilities()
        )


async def main():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    await serve_agent(Stubborn())
    await asyncio.sleep(3600)


if __name__ == "__main__":
    asyncio.run(main())
