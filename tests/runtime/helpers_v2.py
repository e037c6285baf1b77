"""A raw ACP v2 agent for client-side tests: a client connection on a v2 package (by default the
committed `acp_schema_v2`) and the far end, written as v2 JSON so each test sets the exact order of
answers and updates."""

from __future__ import annotations

import asyncio
from typing import Any

import acp_schema_v2 as acp2
from acp_runtime import ClientSideConnection, memory_pipe, wire
from acp_runtime.session import Session

from .helpers import CWD, RawPeer

INFO = {"name": "raw-v2-agent", "version": "2.0"}


class V2Agent:
    """A raw v2 agent: answers initialize and session/new, then lets the test play the turn."""

    def __init__(self, peer: RawPeer) -> None:
        self.peer = peer

    def update(self, update: dict[str, Any]) -> None:
        params = {"sessionId": "s1", "update": update}
        self.peer.send({"jsonrpc": "2.0", "method": "session/update", "params": params})

    def answer(self, request: dict[str, Any], result: dict[str, Any]) -> None:
        self.peer.send({"jsonrpc": "2.0", "id": request["id"], "result": result})

    def state(self, state: str, **fields: Any) -> None:
        self.update({"sessionUpdate": "state_update", "state": state, **fields})

    def user_message(self, message_id: str, text: str = "hello") -> None:
        content = [{"type": "text", "text": text}]
        self.update({"sessionUpdate": "user_message", "messageId": message_id, "content": content})

    def chunk(self, text: str, message_id: str = "a1") -> None:
        content = {"type": "text", "text": text}
        self.update(
            {"sessionUpdate": "agent_message_chunk", "messageId": message_id, "content": content}
        )

    async def barrier(self) -> None:
        """Returns once the client has handled everything sent before: it answered a `_ping`."""
        self.peer.send({"jsonrpc": "2.0", "id": "barrier", "method": "_ping", "params": {}})
        assert await self.peer.recv() == {
            "jsonrpc": "2.0",
            "id": "barrier",
            "result": {"pong": True},
        }

    async def recv(self, method: str) -> dict[str, Any]:
        message: dict[str, Any] = await self.peer.recv()
        assert message.get("method") == method, message
        return message


class Client(acp2.ClientHandler):
    """Answers `_ping` (the barrier) and records the permission requests it is asked, leaving them
    unanswered until `answer` is set."""

    def __init__(self) -> None:
        self.asked: list[Any] = []
        self.answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    async def session_request_permission(self, params: Any) -> Any:
        self.asked.append(params)
        return await self.answer

    async def ext_method(self, method: str, params: Any) -> Any:
        return {"pong": True}


async def v2_session(
    package: Any = acp2,
    client: Any = None,
    new_session: dict[str, Any] | None = None,
    capabilities: dict[str, Any] | None = None,
) -> tuple[Session, V2Agent, ClientSideConnection]:
    """A client connection on a v2 package, initialized, with session "s1" set up; the agent
    advertises `capabilities` (default: the baseline sessions, `{"session": {}}`)."""
    (client_in, client_out), (peer_in, peer_out) = memory_pipe()
    handler = client if client is not None else Client()
    conn = ClientSideConnection(
        handler, client_in, client_out, schema=package, protocol_versions=(2,)
    )
    agent = V2Agent(RawPeer(peer_in, peer_out))

    async def setup() -> None:
        init = await agent.recv("initialize")
        advertised = capabilities if capabilities is not None else {"session": {}}
        agent.answer(init, {"protocolVersion": 2, "info": INFO, "capabilities": advertised})
        agent.answer(await agent.recv("session/new"), new_session or {"sessionId": "s1"})

    serving = asyncio.ensure_future(setup())
    init = {"protocolVersion": 2, "info": {"name": "c", "version": "1"}, "capabilities": {}}
    await conn.request("initialize", wire.build(package, init, package.InitializeRequest))
    session = await Session.new(conn, CWD)
    await serving
    return session, agent, conn
