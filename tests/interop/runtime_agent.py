"""The interop scenario's agent (see scenario.md), on acp_runtime."""

from __future__ import annotations

import asyncio

import acp_schema as acp
from acp_runtime import run_agent


class ScenarioAgent(acp.AgentHandler):
    def __init__(self, conn):
        self.conn = conn
        self.client = conn.client

    async def chunk(self, session_id: str, text: str) -> None:
        update = acp.SessionUpdateAgentMessageChunk(content=acp.TextContent(text=text))
        await self.client.session_update(
            acp.SessionNotification(session_id=session_id, update=update)
        )

    async def initialize(self, params):
        return acp.InitializeResponse(
            protocol_version=1,
            agent_capabilities=acp.AgentCapabilities(),
            agent_info=acp.Implementation(name="acp-runtime-interop-agent", version="0.1.0"),
        )

    async def session_new(self, params):
        return acp.NewSessionResponse(session_id="runtime-session")

    async def session_prompt(self, params):
        sid = params.session_id
        for block in params.prompt:
            text = block.text if isinstance(block, acp.TextContent) else f"[{type(block).__name__}]"
            if text.startswith("read:"):
                file = await self.client.fs_read_text_file(
                    acp.ReadTextFileRequest(session_id=sid, path=text[5:])
                )
                await self.chunk(sid, file.content)
            elif text == "permission":
                options = [
                    acp.PermissionOption(
                        option_id="deny", name="Deny", kind=acp.PermissionOptionKind.REJECT_ONCE
                    ),
                    acp.PermissionOption(
                        option_id="allow", name="Allow", kind=acp.PermissionOptionKind.ALLOW_ONCE
                    ),
                ]
                tool_call = acp.ToolCallUpdate(tool_call_id="call-1", title="Write /tmp/x")
                answer = await self.client.session_request_permission(
                    acp.RequestPermissionRequest(
                        session_id=sid, tool_call=tool_call, options=options
                    )
                )
                outcome = answer.outcome
                await self.chunk(sid, f"outcome: {getattr(outcome, 'option_id', 'cancelled')}")
            elif text == "ext":
                answer = await self.conn.request("_interop/echo", {"n": 1})
                await self.chunk(sid, f"ext: {answer['echo']['n']}")
            elif text == "auth":
                raise acp.AuthenticationRequiredError("Authentication required")
            elif text == "meta":
                await self.chunk(sid, f"meta: {(params.meta or {}).get('trace')}")
                return acp.PromptResponse(
                    stop_reason=acp.StopReason.END_TURN, meta={"echo": params.meta}
                )
            elif text == "wait":
                await self.chunk(sid, "waiting")
                await asyncio.Event().wait()  # the runtime cancels this on session/cancel
            else:
                await self.chunk(sid, text)
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)

    async def ext_method(self, method, params):
        if method == "_interop/echo":
            return {"echo": params}
        if method == "_interop/hang":
            await asyncio.Event().wait()  # the runtime cancels this on $/cancel_request
        raise acp.MethodNotFoundError(f"Method not found: {method}")


if __name__ == "__main__":
    run_agent(ScenarioAgent)
