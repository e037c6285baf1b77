"""An agent that answers initialize, then dies (exit code 3) in the middle of session/new."""

import os

import acp_schema as acp
from acp_runtime import run_agent


class Dying(acp.AgentHandler):
    async def initialize(self, params):
        return acp.InitializeResponse(
            protocol_version=1, agent_capabilities=acp.AgentCapabilities()
        )

    async def session_new(self, params):
        os._exit(3)


if __name__ == "__main__":
    run_agent(Dying())
