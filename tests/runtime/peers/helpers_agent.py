"""An agent that uses every helper that needs no client capability: thought, plan, tool calls
(a diff, one failing), permission, message text. Used to check what the official SDK sees."""

import uuid

import acp_schema as acp
from acp_runtime import run_agent
from acp_runtime.helpers import AgentSession


class HelpersAgent(acp.AgentHandler):
    def __init__(self, conn):
        self.conn = conn

    async def initialize(self, params):
        info = acp.Implementation(name="helpers-agent", version="1.0")
        return acp.InitializeResponse(
            protocol_version=1, agent_capabilities=acp.AgentCapabilities(), agent_info=info
        )

    async def session_new(self, params):
        return acp.NewSessionResponse(session_id=uuid.uuid4().hex)

    async def session_prompt(self, params):
        s = AgentSession(self.conn, params.session_id)
        await s.think("Plan first.")
        await s.plan([("Edit /tmp/a.txt", "in_progress"), ("Compile", "pending")])
        async with s.tool_call("Edit /tmp/a.txt", kind="edit") as edit:
            await edit.add_diff("/tmp/a.txt", "new\n", "old\n")
            choice = await s.ask_permission(edit)
            await s.say(f"permission: {choice.option_id if choice else 'cancelled'}\n")
        try:
            async with s.tool_call("Compile", kind="execute", rawInput={"cmd": "cc"}):
                raise RuntimeError("no compiler")
        except RuntimeError:
            pass
        await s.plan([("Edit /tmp/a.txt", "completed"), ("Compile", "pending")])
        await s.say("done")
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


if __name__ == "__main__":
    run_agent(HelpersAgent)
