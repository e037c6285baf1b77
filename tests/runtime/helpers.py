"""Peers for the runtime tests: connections over in-memory pipes, and a raw peer speaking bytes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import acp_schema as acp
from acp_runtime import AgentSideConnection, ClientSideConnection, memory_pipe
from acp_runtime.jsonrpc.framing import LineReader

CWD = "/work/project"


class RawPeer:
    """The far end of a connection, written and read as raw lines."""

    def __init__(self, reader: Any, writer: Any) -> None:
        self.lines = LineReader(reader, 1 << 31)
        self.writer = writer

    def send_bytes(self, data: bytes) -> None:
        self.writer.write(data)

    def send(self, message: Any) -> None:
        self.writer.write(json.dumps(message).encode() + b"\n")

    async def recv(self, timeout: float = 5.0) -> Any:
        line = await asyncio.wait_for(self.lines.readline(), timeout)
        assert line is not None, "connection closed"
        return json.loads(line)

    async def call(self, request_id: Any, method: str, params: Any = None) -> Any:
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return await self.recv()

    async def barrier(self, request_id: Any = "barrier") -> None:
        """Proves nothing else was answered: the next message must be the answer to `_ping`."""
        answer = await self.call(request_id, "_ping", {})
        assert answer == {"jsonrpc": "2.0", "id": request_id, "result": {"pong": True}}, answer

    def close(self) -> None:
        self.writer.close()


class Agent(acp.AgentHandler):
    """A small agent: configurable capabilities, one session, and a `_ping` extension."""

    def __init__(
        self, conn: AgentSideConnection, capabilities: Any = None, **initialize: Any
    ) -> None:
        self.conn = conn
        self.capabilities = capabilities if capabilities is not None else acp.AgentCapabilities()
        self.initialize_fields = initialize
        self.seen: list[Any] = []

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        return acp.InitializeResponse(
            protocol_version=params.protocol_version,
            agent_capabilities=self.capabilities,
            agent_info=acp.Implementation(name="test-agent", version="1.0"),
            **self.initialize_fields,
        )

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        self.seen.append(params)
        return acp.NewSessionResponse(session_id="s1")

    async def ext_method(self, method: str, params: Any) -> Any:
        if method == "_ping":
            return {"pong": True}
        raise acp.error_for(-32601, f"Method not found: {method}")


class Client(acp.ClientHandler):
    def __init__(self) -> None:
        self.updates: list[Any] = []

    async def session_update(self, params: acp.SessionNotification) -> None:
        self.updates.append(params)

    async def ext_method(self, method: str, params: Any) -> Any:
        if method == "_ping":
            return {"pong": True}
        raise acp.error_for(-32601, f"Method not found: {method}")


def initialize_request(**capabilities: Any) -> acp.InitializeRequest:
    return acp.InitializeRequest(
        protocol_version=1,
        client_capabilities=acp.ClientCapabilities(**capabilities),
        client_info=acp.Implementation(name="test-client", version="1.0"),
    )


INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}


async def raw_client(
    handler: Any = Agent, *, initialize: bool = True, **options: Any
) -> tuple[AgentSideConnection, RawPeer]:
    """An agent connection, and a raw client peer (already initialized unless told not to)."""
    (agent_in, agent_out), (peer_in, peer_out) = memory_pipe()
    conn = AgentSideConnection(handler, agent_in, agent_out, **options)
    peer = RawPeer(peer_in, peer_out)
    if initialize:
        answer = await peer.call(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        assert "result" in answer, answer
    return conn, peer


async def raw_agent(handler: Any = None, **options: Any) -> tuple[ClientSideConnection, RawPeer]:
    """A client connection, and a raw agent peer (nothing sent yet)."""
    (client_in, client_out), (peer_in, peer_out) = memory_pipe()
    conn = ClientSideConnection(
        handler if handler is not None else Client(), client_in, client_out, **options
    )
    return conn, RawPeer(peer_in, peer_out)


async def pair(
    agent: Any = Agent,
    client: Any = None,
    *,
    initialize: acp.InitializeRequest | None = None,
    agent_options: dict[str, Any] | None = None,
    client_options: dict[str, Any] | None = None,
    session: bool = True,
) -> tuple[AgentSideConnection, ClientSideConnection]:
    """Two connected, initialized connections over an in-memory pipe, with session "s1" set up."""
    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    agent_conn = AgentSideConnection(agent, agent_in, agent_out, **(agent_options or {}))
    client_conn = ClientSideConnection(
        client if client is not None else Client(), client_in, client_out, **(client_options or {})
    )
    await client_conn.agent.initialize(initialize or initialize_request())
    if session:
        await client_conn.agent.session_new(acp.NewSessionRequest(cwd=CWD, mcp_servers=[]))  # "s1"
    return agent_conn, client_conn


def text_update(session_id: str, text: str) -> acp.SessionNotification:
    chunk = acp.SessionUpdateAgentMessageChunk(content=acp.TextContent(text=text))
    return acp.SessionNotification(session_id=session_id, update=chunk)
