"""Peers for the v2 tests: one agent and one client for both versions, as routes."""

from __future__ import annotations

from typing import Any

import acp_schema as v1
import acp_schema_v2 as v2
from acp_runtime import AgentSideConnection, ClientSideConnection, memory_pipe
from acp_runtime.versions import AgentRoute, AgentVersions, ClientRoute, ClientVersions

from .helpers import RawPeer


class AgentV1(v1.AgentHandler):
    def __init__(self, conn: AgentSideConnection[v1.ClientProxy]) -> None:
        self.conn = conn

    async def initialize(self, params: v1.InitializeRequest) -> v1.InitializeResponse:
        return v1.InitializeResponse(
            protocol_version=1, agent_info=v1.Implementation(name="agent-v1", version="1.0")
        )

    async def session_new(self, params: v1.NewSessionRequest) -> v1.NewSessionResponse:
        return v1.NewSessionResponse(session_id="s1")


class AgentV2(v2.AgentHandler):
    def __init__(self, conn: AgentSideConnection[v2.ClientProxy], **initialize: Any) -> None:
        self.conn = conn
        self.initialize_fields = initialize

    async def initialize(self, params: v2.InitializeRequest) -> v2.InitializeResponse:
        return v2.InitializeResponse(
            protocol_version=2,
            info=v2.Implementation(name="agent-v2", version="2.0"),
            **self.initialize_fields,
        )

    async def session_new(self, params: v2.NewSessionRequest) -> v2.NewSessionResponse:
        return v2.NewSessionResponse(session_id="s1")

    async def ext_method(self, method: str, params: Any) -> Any:
        return {"pong": True}


def both_agents(v2_agent: Any = AgentV2) -> AgentVersions:
    return AgentVersions(AgentRoute(1, v1, AgentV1), AgentRoute(2, v2, v2_agent))


class ClientV2(v2.ClientHandler):
    def __init__(self) -> None:
        self.updates: list[v2.UpdateSessionNotification] = []

    async def session_update(self, params: v2.UpdateSessionNotification) -> None:
        self.updates.append(params)


def both_clients(v2_client: Any = None) -> ClientVersions:
    return ClientVersions(
        ClientRoute(1, v1, v1.ClientHandler()),
        ClientRoute(2, v2, v2_client if v2_client is not None else ClientV2()),
    )


V2_INITIALIZE = {"protocolVersion": 2, "info": {"name": "raw", "version": "1"}, "capabilities": {}}


def v2_initialize() -> v2.InitializeRequest:
    return v2.InitializeRequest(
        protocol_version=2, info=v2.Implementation(name="client-v2", version="2.0")
    )


async def connected(
    agent: Any = None, client: Any = None, **options: Any
) -> tuple[AgentSideConnection[Any], ClientSideConnection[Any]]:
    """An agent and a client connection over an in-memory pipe (nothing sent yet)."""
    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    agent_conn = AgentSideConnection(
        agent if agent is not None else both_agents(), agent_in, agent_out, **options
    )
    client_conn = ClientSideConnection(
        client if client is not None else both_clients(), client_in, client_out, **options
    )
    return agent_conn, client_conn


async def raw_v2_client(
    agent: Any = None, *, initialize: bool = True, **options: Any
) -> tuple[AgentSideConnection[Any], RawPeer]:
    """An agent connection serving both versions and a raw client peer, initialized in v2."""
    (agent_in, agent_out), (peer_in, peer_out) = memory_pipe()
    conn = AgentSideConnection(
        agent if agent is not None else both_agents(), agent_in, agent_out, **options
    )
    peer = RawPeer(peer_in, peer_out)
    if initialize:
        answer = await peer.call(0, "initialize", V2_INITIALIZE)
        assert answer["result"]["protocolVersion"] == 2, answer
    return conn, peer
