"""An agent that writes to stdout in every way it can; none of it may reach the protocol stream."""

import logging
import os
import subprocess
import sys

import acp_schema as acp
from acp_runtime import run_agent

print("noise: print at import")  # before the runtime takes over stdout


class Noisy(acp.AgentHandler):
    def __init__(self, conn):
        self.client = conn.client

    async def initialize(self, params):
        print("noise: print in a handler")
        logging.basicConfig(stream=sys.stdout, level=logging.INFO, force=True)
        logging.info("noise: logging to sys.stdout")
        os.write(1, b"noise: os.write to fd 1\n")
        subprocess.run(["echo", "noise: a child process writing to its stdout"], check=True)
        sys.stdout.write("noise: sys.stdout.write without newline")
        return acp.InitializeResponse(
            protocol_version=1, agent_capabilities=acp.AgentCapabilities()
        )

    async def session_new(self, params):
        print("noise: session/new")
        return acp.NewSessionResponse(session_id="noisy")


if __name__ == "__main__":
    run_agent(Noisy)
    print("noise: print after the agent stopped")
