"""The interop scenario's agent (see scenario.md) on the official Python SDK 1.0.0rc3, which runs
in its own environment (.venv/acp-rc3, see rc3.py), never in the test process.

    rc3_agent.py [--versions 1|2|1,2] [--example] [--listen-fd FD]

`--versions` (default 1,2) serves those versions behind the SDK's protocol router
(`acp.experimental.AgentProtocolRouter`, which picks v1 or v2 from `initialize`). The v1 agent runs
the whole scenario; the v2 agent (its experimental `acp.experimental.v2`) runs the v2 turns: text
echoed, `permission`, `ext`, `wait` (until session/cancel), with `user_message` and `state_update`
running/idle around them as a v2 turn has; both serve `_interop/echo` and `_interop/hang`.
`--example` serves instead, with `acp.run_agent`, an agent written as the SDK's own
examples/echo_agent.py is (a subclass of `acp.Agent` that answers `initialize` with the version it
was asked for and defines no extension methods). `--listen-fd` serves Streamable HTTP and
WebSocket (the SDK's ASGI app under Hypercorn) on that listening socket and prints "ready".
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
from typing import Any

import acp
from acp.experimental import AgentProtocolRouter
from acp.experimental import v2 as acp2
from acp.schema import (
    AgentCapabilities,
    AgentMessageChunk,
    Implementation,
    PermissionOption,
    TextContentBlock,
    ToolCallUpdate,
)

INFO = Implementation(name="python-sdk-rc3-agent", version="1.0.0rc3")


def texts(prompt: list[Any]) -> list[str]:
    return [getattr(block, "text", f"[{block.type}]") for block in prompt]


class Extensions:
    """`_interop/echo` and `_interop/hang` (answered -32800 by the SDK once cancelled)."""

    async def ext_method(self, method: str, params: dict) -> dict:
        if method == "interop/echo":
            return {"echo": params}
        if method == "interop/hang":
            await asyncio.Event().wait()
        raise acp.RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict) -> None:
        return None


class ScenarioAgent(Extensions):
    def __init__(self) -> None:
        self.conn: Any = None
        self.waiting: dict[str, asyncio.Event] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def chunk(self, session_id: str, text: str) -> None:
        update = AgentMessageChunk(content=TextContentBlock(text=text))
        await self.conn.session_update(session_id=session_id, update=update)

    async def initialize(self, protocol_version: int, **kwargs: Any) -> acp.InitializeResponse:
        return acp.InitializeResponse(
            protocol_version=1, agent_capabilities=AgentCapabilities(), agent_info=INFO
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> acp.NewSessionResponse:
        return acp.NewSessionResponse(session_id="rc3-session")

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any):
        for text in texts(prompt):
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
                option = getattr(answer.outcome, "option_id", "cancelled")
                await self.chunk(session_id, f"outcome: {option}")
            elif text == "ext":
                answer = await self.conn.ext_method("interop/echo", {"n": 1})
                await self.chunk(session_id, f"ext: {answer['echo']['n']}")
            elif text == "auth":
                raise acp.RequestError(-32000, "Authentication required")
            elif text == "meta":
                # the SDK flattens _meta into keyword arguments
                await self.chunk(session_id, f"meta: {kwargs.get('trace')}")
                return acp.PromptResponse(stop_reason="end_turn", field_meta={"echo": kwargs})
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


class ScenarioAgentV2:
    """The v2 turns. A prompt is answered with the user message's id; the turn then runs on."""

    ids = itertools.count(1)

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.waiting: dict[str, asyncio.Event] = {}
        self.turns: set[asyncio.Task[None]] = set()

    async def initialize(self, protocol_version: int, info: Any, **kwargs: Any):
        return acp2.schema.InitializeResponse(
            protocol_version=2,
            info=acp2.schema.Implementation(name=INFO.name, version=INFO.version),
            capabilities=acp2.schema.AgentCapabilities(),
        )

    async def new_session(self, cwd: str, **kwargs: Any):
        return acp2.schema.NewSessionResponse(session_id="rc3-v2-session")

    async def update(self, session_id: str, update: dict[str, Any]) -> None:
        await self.conn.session_update(session_id=session_id, update=update)

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any):
        n = next(self.ids)
        user, agent = f"user-{n}", f"agent-{n}"
        content = [block.model_dump(mode="json", by_alias=True) for block in prompt]
        await self.update(
            session_id, {"sessionUpdate": "user_message", "messageId": user, "content": content}
        )
        turn = asyncio.ensure_future(self.turn(session_id, agent, texts(prompt)))
        self.turns.add(turn)
        turn.add_done_callback(self.turns.discard)
        return acp2.schema.PromptResponse(message_id=user)

    async def turn(self, session_id: str, message_id: str, prompt: list[str]) -> None:
        async def say(text: str) -> None:
            chunk = {"type": "text", "text": text}
            await self.update(
                session_id,
                {"sessionUpdate": "agent_message_chunk", "messageId": message_id, "content": chunk},
            )

        async def idle(stop_reason: str) -> None:
            await self.update(
                session_id,
                {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop_reason},
            )

        await self.update(session_id, {"sessionUpdate": "state_update", "state": "running"})
        for text in prompt:
            if text == "permission":
                answer = await self.conn.request_permission(
                    session_id=session_id,
                    title="Write /tmp/x",
                    options=[
                        acp2.schema.PermissionOption(
                            option_id="deny", name="Deny", kind="reject_once"
                        ),
                        acp2.schema.PermissionOption(
                            option_id="allow", name="Allow", kind="allow_once"
                        ),
                    ],
                )
                await say(f"outcome: {getattr(answer.outcome, 'option_id', 'cancelled')}")
            elif text == "ext":
                answer = await self.conn.send_extension_request("_interop/echo", {"n": 1})
                await say(f"ext: {answer['echo']['n']}")
            elif text == "wait":
                await say("waiting")
                event = self.waiting[session_id] = asyncio.Event()
                await event.wait()
                return await idle("cancelled")
            else:
                await say(text)
        await idle("end_turn")

    async def cancel_session(self, session_id: str, **kwargs: Any) -> None:
        if session_id in self.waiting:
            self.waiting.pop(session_id).set()

    async def handle_extension_request(self, method: str, params: Any) -> Any:
        if method == "_interop/echo":
            return {"echo": params}
        if method == "_interop/hang":
            await asyncio.Event().wait()
        raise acp.RequestError.method_not_found(method)


class ExampleStyleAgent(acp.Agent):
    """Written as the SDK's examples/echo_agent.py: echoes text, and answers initialize with the
    version it was asked for. It inherits `acp.Agent`'s bodiless protocol methods, so whatever it
    does not define (extension methods among them) is answered with result null."""

    conn: Any

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> acp.InitializeResponse:
        return acp.InitializeResponse(protocol_version=protocol_version, agent_info=INFO)

    async def new_session(self, cwd: str, **kwargs: Any) -> acp.NewSessionResponse:
        return acp.NewSessionResponse(session_id="rc3-example-session")

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any):
        for text in texts(prompt):
            update = AgentMessageChunk(content=TextContentBlock(text=text))
            await self.conn.session_update(session_id=session_id, update=update)
        return acp.PromptResponse(stop_reason="end_turn")


def router(versions: set[int]) -> AgentProtocolRouter:
    return AgentProtocolRouter(
        v1=(lambda conn: ScenarioAgent()) if 1 in versions else None,
        v2=ScenarioAgentV2 if 2 in versions else None,
    )


async def serve_remote(fd: int, app_of: Any) -> None:
    import socket

    from acp.http.asgi import create_asgi_app
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    config = Config()
    config.bind = [f"fd://{socket.socket(fileno=fd).detach()}"]
    config.errorlog = "-"
    config.loglevel = "WARNING"
    print("ready", flush=True)
    await serve(create_asgi_app(app_of), config)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--versions", default="1,2")
    parser.add_argument("--example", action="store_true")
    parser.add_argument("--listen-fd", type=int)
    args = parser.parse_args()
    versions = {int(v) for v in args.versions.split(",")}
    if args.listen_fd is not None:
        app_of: Any = (lambda conn: ExampleStyleAgent()) if args.example else router(versions)
        asyncio.run(serve_remote(args.listen_fd, app_of))
    elif args.example:
        asyncio.run(acp.run_agent(ExampleStyleAgent()))
    else:
        asyncio.run(router(versions).run())


if __name__ == "__main__":
    main()
