"""An agent for the remote tests whose sessions outlive connections (one store per process), so a
client can take a session up again on a new connection with session/load or session/resume."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any

import acp_schema as acp


@dataclass
class Store:
    """Sessions of one server process: id -> the texts of its turns (user, agent, user, ...)."""

    name: str = "history-agent"
    sessions: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


class HistoryAgent(acp.AgentHandler):
    """Echoes prompts; `permission` asks for permission; `wait` waits for session/cancel.
    `agent_info.name` is the store's name, so a test sees which process answered."""

    def __init__(self, conn: Any, store: Store, resume: bool = False) -> None:
        self.client = conn.client
        self.store = store
        self.resume = resume

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        capabilities = acp.AgentCapabilities(load_session=True)
        if self.resume:
            capabilities.session_capabilities = acp.SessionCapabilities(
                resume=acp.SessionResumeCapabilities()
            )
        return acp.InitializeResponse(
            protocol_version=1,
            agent_capabilities=capabilities,
            agent_info=acp.Implementation(name=self.store.name, version="1"),
        )

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        session_id = f"s-{uuid.uuid4().hex[:12]}"
        self.store.sessions[session_id] = []
        return acp.NewSessionResponse(session_id=session_id)

    def _known(self, session_id: str) -> list[tuple[str, str]]:
        if session_id not in self.store.sessions:
            raise acp.ResourceNotFoundError("Resource not found", {"uri": session_id})
        return self.store.sessions[session_id]

    async def session_load(self, params: acp.LoadSessionRequest) -> acp.LoadSessionResponse:
        for role, text in self._known(params.session_id):
            content = acp.TextContent(text=text)
            update: Any = (
                acp.SessionUpdateUserMessageChunk(content=content)
                if role == "user"
                else acp.SessionUpdateAgentMessageChunk(content=content)
            )
            await self.client.session_update(
                acp.SessionNotification(session_id=params.session_id, update=update)
            )
        return acp.LoadSessionResponse()

    async def session_resume(self, params: acp.ResumeSessionRequest) -> acp.ResumeSessionResponse:
        self._known(params.session_id)
        return acp.ResumeSessionResponse()

    async def say(self, session_id: str, text: str) -> None:
        chunk = acp.SessionUpdateAgentMessageChunk(content=acp.TextContent(text=text))
        await self.client.session_update(
            acp.SessionNotification(session_id=session_id, update=chunk)
        )

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        history = self._known(params.session_id)
        for block in params.prompt:
            text = block.text if isinstance(block, acp.TextContent) else "?"
            history.append(("user", text))
            if text == "permission":
                options = [
                    acp.PermissionOption(
                        option_id="yes", name="Yes", kind=acp.PermissionOptionKind.ALLOW_ONCE
                    )
                ]
                answer = await self.client.session_request_permission(
                    acp.RequestPermissionRequest(
                        session_id=params.session_id,
                        tool_call=acp.ToolCallUpdate(tool_call_id="t1", title="touch /tmp/x"),
                        options=options,
                    )
                )
                text = f"outcome: {getattr(answer.outcome, 'option_id', 'cancelled')}"
            elif text == "wait":
                await self.say(params.session_id, "waiting")
                await asyncio.Event().wait()  # until session/cancel
            history.append(("agent", text))
            await self.say(params.session_id, text)
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)
