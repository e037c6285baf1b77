"""Agents for the end-to-end tests of examples/client.py, picked by the first argument:

- permission: asks permission (allow_once + reject_once) and echoes the outcome as a chunk
- reject-only: asks permission offering reject_once only
- auth: answers session/new with -32000 authentication required
- version2: speaks only protocol version 2
- broken: answers session/prompt with an error whose data says why
- refuse: ends the turn with stop reason `refusal`
- flood: sends 20000 lines of text
- cancelled: ends the turn with stop reason `cancelled` on its own
"""

import sys

import acp_schema as acp
from acp_runtime import run_agent

MODE = sys.argv[1]


class Scripted(acp.AgentHandler):
    def __init__(self, conn):
        self.client = conn.client

    async def initialize(self, params):
        return acp.InitializeResponse(
            protocol_version=params.protocol_version,
            agent_capabilities=acp.AgentCapabilities(),
            agent_info=acp.Implementation(name=f"scripted-{MODE}", version="9.9"),
        )

    async def session_new(self, params):
        if MODE == "auth":
            raise acp.AuthenticationRequiredError("Authentication required")
        return acp.NewSessionResponse(session_id="s1")

    async def session_prompt(self, params):
        if MODE == "broken":
            raise acp.error_for(
                -32603, "Internal error", {"message": "missing dependency: ripgrep"}
            )
        if MODE in ("refuse", "cancelled"):
            return acp.PromptResponse(
                stop_reason=acp.StopReason.REFUSAL if MODE == "refuse" else acp.StopReason.CANCELLED
            )
        if MODE == "flood":
            for n in range(20000):
                chunk = acp.SessionUpdateAgentMessageChunk(
                    content=acp.TextContent(text=f"line {n}\n")
                )
                await self.client.session_update(
                    acp.SessionNotification(session_id=params.session_id, update=chunk)
                )
            return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)
        options = [
            acp.PermissionOption(
                option_id="no", name="Reject", kind=acp.PermissionOptionKind.REJECT_ONCE
            )
        ]
        if MODE == "permission":
            options.insert(
                0,
                acp.PermissionOption(
                    option_id="yes", name="Allow", kind=acp.PermissionOptionKind.ALLOW_ONCE
                ),
            )
        tool_call = acp.ToolCallUpdate(tool_call_id="call-1", title="Write /tmp/x")
        answer = await self.client.session_request_permission(
            acp.RequestPermissionRequest(
                session_id=params.session_id, tool_call=tool_call, options=options
            )
        )
        outcome = answer.outcome
        text = (
            f"outcome: {outcome.option_id}"
            if isinstance(outcome, acp.SelectedPermissionOutcome)
            else "outcome: cancelled"
        )
        chunk = acp.SessionUpdateAgentMessageChunk(content=acp.TextContent(text=text))
        await self.client.session_update(
            acp.SessionNotification(session_id=params.session_id, update=chunk)
        )
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


if __name__ == "__main__":
    run_agent(Scripted, protocol_versions=(2,) if MODE == "version2" else (1,))
