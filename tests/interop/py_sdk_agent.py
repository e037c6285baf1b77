"""The interop scenario's agent (see scenario.md), on the official Python SDK."""

from __future__ import annotations

import asyncio
from typing import Any

import acp
from acp.schema import AgentCapabilities, Implementation, PermissionOption, ToolCallUpdate


class ScenarioAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.waiting: dict[str, asyncio.Event] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def chunk(self, session_id: str, text: str) -> None:
        await self.conn.session_update(
            session_id=session_id, update=acp.update_agent_message_text(text)
        )

    async def initialize(
        self, protocol_version: int, client_capabilities=None, client_info=None, **kwargs: Any
    ):
        return acp.InitializeResponse(
            protocol_version=1,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="python-sdk-interop-agent", version="0.12.1"),
        )

    async def new_session(self, cwd: str, mcp_servers=None, **kwargs: Any):
        return acp.NewSessionResponse(session_id="py-sdk-session")

    async def prompt(self, prompt, session_id: str, **kwargs: Any):
        for block in prompt:
            text = getattr(block, "text", f"[{block.type}]")
            if text.startswith("read:"):
                file = await self.conn.read_text_file(session_id=session_id, path=text[5:])
                await self.chunk(session_id, file.content)
            elif text == "permission":
                answer = await self.conn.request_permission(
                    session_id=session_id,
                    tool_call=ToolCallUpdate(tool_call_id="call-1", title="Write /tmp/x"),
                    options=[
                        PermissionOption(option_id="deny", name="Deny", kind="reject_once"),
                        PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
                    ],
                )
                outcome = answer.outcome
                await self.chunk(
                    session_id, f"outcome: {getattr(outcome, 'option_id', 'cancelled')}"
                )
            elif text == "ext":
                answer = await self.conn.ext_method("interop/echo", {"n": 1})
                await self.chunk(session_id, f"ext: {answer['echo']['n']}")
            elif text == "auth":
                raise acp.RequestError(-32000, "Authentication required")
            elif text == "meta":
                # the SDK flattens _meta into keyword arguments
                await self.chunk(session_id, f"meta: {kwargs.get('trace')}")
                return acp.PromptResponse(stop_reason="end_turn", field_meta={"echo": dict(kwargs)})
            elif text == "wait":
                await self.chunk(session_id, "waiting")
                event = self.waiting[session_id] = asyncio.Event()
                await event.wait()
                return acp.PromptResponse(stop_reason="cancelled")
            else:
                await self.chunk(session_id, text)
        return acp.PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        if session_id in self.waiting:
            self.waiting.pop(session_id).set()

    async def ext_method(self, method: str, params: dict) -> dict:
        if method == "interop/echo":
            return {"echo": params}
        raise acp.RequestError(-32601, f"Method not found: _{method}")

    async def ext_notification(self, method: str, params: dict) -> None:
        return None


async def serve_remote(fd: int) -> None:
    """Serve over Streamable HTTP and WebSocket (the SDK's ASGI app, under Hypercorn) on the
    listening socket `fd`; prints "ready" first."""
    import socket

    from acp.http.asgi import create_asgi_app
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    config = Config()
    config.bind = [f"fd://{socket.socket(fileno=fd).detach()}"]
    config.errorlog = "-"
    config.loglevel = "WARNING"
    print("ready", flush=True)
    await serve(create_asgi_app(lambda conn: ScenarioAgent()), config)


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--listen-fd"]:  # remote: python py_sdk_agent.py --listen-fd FD
        asyncio.run(serve_remote(int(sys.argv[2])))
    else:
        asyncio.run(acp.run_agent(ScenarioAgent()))
