"""A real agent that outlives its stdin: it serves ACP, then keeps running after end of input.

    lingering_agent.py PIDFIFO [--ignore-term]

It first writes its pid into the named pipe PIDFIFO (the test's event that it runs), then serves.
`--ignore-term` also ignores SIGTERM, so only SIGKILL stops it.
"""

import asyncio
import os
import signal
import sys

import acp_schema as acp
from acp_runtime import serve_agent


class Agent(acp.AgentHandler):
    async def initialize(self, params):
        return acp.InitializeResponse(
            protocol_version=1, agent_capabilities=acp.AgentCapabilities()
        )


async def main() -> None:
    if "--ignore-term" in sys.argv:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with open(sys.argv[1], "w") as fifo:
        fifo.write(f"{os.getpid()}\n")
    await serve_agent(Agent())
    while True:  # stdin EOF ignored
        await asyncio.sleep(3600)


if __name__ == "__main__":
    asyncio.run(main())
