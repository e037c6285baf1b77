"""The interop scenario's agent (see scenario.md) on acp_runtime, serving v1 and v2: the version
the client's `initialize` asks for (`AgentVersions`). v1 is runtime_agent.py's agent; the v2 one
runs the v2 turns (text echoed, `permission`, `ext`, `wait`) as `AgentSession.turn` runs a v2 turn.

    python runtime_agent_v2.py       serves stdio; imported, `agent()` is the `AgentVersions`
                                     (tests/remote serves it with `AcpApp`)
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parents[2]))

import acp_schema as acp
import acp_schema_v2 as acp2
from acp_runtime import AgentSideConnection, run_agent
from acp_runtime.helpers import AgentSession
from acp_runtime.versions import AgentRoute, AgentVersions
from tests.interop.runtime_agent import ScenarioAgent

INFO = acp2.Implementation(name="acp-runtime-interop-agent", version="0.1.0")


class ScenarioAgentV2(acp2.AgentHandler):
    def __init__(self, conn: AgentSideConnection[Any]) -> None:
        self.conn = conn

    async def initialize(self, params: acp2.InitializeRequest) -> acp2.InitializeResponse:
        return acp2.InitializeResponse(protocol_version=2, info=INFO)

    async def session_new(self, params: acp2.NewSessionRequest) -> acp2.NewSessionResponse:
        return acp2.NewSessionResponse(session_id="runtime-v2-session")

    async def session_prompt(self, params: acp2.PromptRequest) -> Any:
        session = AgentSession(self.conn, params.session_id)

        async def work() -> str:
            for block in params.prompt:
                text = block.text if isinstance(block, acp2.TextContent) else "?"
                if text == "permission":
                    kinds = acp2.PermissionOptionKind
                    options = [
                        acp2.PermissionOption(
                            option_id="deny", name="Deny", kind=kinds.REJECT_ONCE
                        ),
                        acp2.PermissionOption(
                            option_id="allow", name="Allow", kind=kinds.ALLOW_ONCE
                        ),
                    ]
                    answer = await self.conn.client.session_request_permission(
                        acp2.RequestPermissionRequest(
                            session_id=params.session_id, title="Write /tmp/x", options=options
                        )
                    )
                    outcome = answer.outcome
                    await session.say(f"outcome: {getattr(outcome, 'option_id', 'cancelled')}")
                elif text == "ext":
                    answer = await self.conn.request("_interop/echo", {"n": 1})
                    await session.say(f"ext: {answer['echo']['n']}")
                elif text == "wait":
                    await session.say("waiting")
                    await asyncio.Event().wait()  # the runtime cancels the turn on session/cancel
                else:
                    await session.say(text)
            return "end_turn"

        return await session.turn(params.prompt, work)

    async def ext_method(self, method: str, params: Any) -> Any:
        if method == "_interop/echo":
            return {"echo": params}
        if method == "_interop/hang":
            await asyncio.Event().wait()  # the runtime cancels this on $/cancel_request
        raise acp2.MethodNotFoundError(f"Method not found: {method}")


def agent() -> AgentVersions:
    return AgentVersions(AgentRoute(1, acp, ScenarioAgent), AgentRoute(2, acp2, ScenarioAgentV2))


if __name__ == "__main__":
    run_agent(agent())
