"""A client offers `acp` MCP servers only to an agent that advertises them: the schema's "Only
available when the Agent capabilities indicate `mcp_capabilities.acp` is `true`" (v1) and "include
`session.mcp.acp`" (v2). Anything else raises `CapabilityError` and sends nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import acp_schema as acp
import acp_schema_v2 as acp2
from acp_runtime import (
    AgentSideConnection,
    CapabilityError,
    ClientSideConnection,
    memory_pipe,
    wire,
)
from tests.mcp.peers import CWD, McpAgent, McpClient
from tests.runtime.helpers import RawPeer

pytest_plugins = ["tests.runtime.aio"]
requirement = pytest.mark.requirement


class PlainAgent(McpAgent):
    """An agent that advertises no `acp` MCP servers."""

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        return acp.InitializeResponse(protocol_version=1)


async def _v1_client(agent_type: type) -> tuple[AgentSideConnection, ClientSideConnection]:
    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    agent = AgentSideConnection(agent_type, agent_in, agent_out)
    client = ClientSideConnection(McpClient, client_in, client_out)
    await client.agent.initialize(acp.InitializeRequest(protocol_version=1))
    return agent, client


@requirement("ACP-V1-SCHEMA-ACP-MCP-SERVERS-ADVERTISED")
async def test_v1_acp_servers_go_to_an_agent_advertising_them_and_never_to_one_that_does_not():
    agent, client = await _v1_client(PlainAgent)
    server = client.handler.provider.register("tools", _backend)
    with pytest.raises(CapabilityError, match=r"'acp' needs .*mcpCapabilities\.acp"):
        await client.agent.session_new(
            acp.NewSessionRequest(cwd=CWD, mcp_servers=[server.declaration])
        )
    assert agent.handler.servers == []  # nothing was sent
    # other transports still go (stdio needs no capability), and so does the same server to an
    # agent that advertises it
    await client.agent.session_new(acp.NewSessionRequest(cwd=CWD, mcp_servers=[]))
    agent, client = await _v1_client(McpAgent)
    server = client.handler.provider.register("tools", _backend)
    await client.agent.session_new(acp.NewSessionRequest(cwd=CWD, mcp_servers=[server.declaration]))
    assert [s.server_id for s in agent.handler.servers] == [server.server_id]


@requirement("ACP-V2-SCHEMA-ACP-MCP-SERVERS-ADVERTISED")
@pytest.mark.parametrize("acp_capability", [None, {}])
async def test_v2_acp_servers_need_session_mcp_acp(acp_capability: Any) -> None:
    (client_in, client_out), (peer_in, peer_out) = memory_pipe()
    conn = ClientSideConnection(
        _NoHandler(), client_in, client_out, schema=acp2, protocol_versions=(2,)
    )
    peer = RawPeer(peer_in, peer_out)
    mcp: dict[str, Any] = {} if acp_capability is None else {"acp": acp_capability}
    capabilities = {"session": {"mcp": mcp}}
    info = {"name": "raw-v2-agent", "version": "2.0"}

    async def agent() -> None:
        init = await peer.recv()
        result = {"protocolVersion": 2, "info": info, "capabilities": capabilities}
        peer.send({"jsonrpc": "2.0", "id": init["id"], "result": result})
        if acp_capability is not None:
            new = await peer.recv()
            assert new["params"]["mcpServers"] == [
                {"type": "acp", "name": "tools", "serverId": "tools-1"}
            ]
            peer.send({"jsonrpc": "2.0", "id": new["id"], "result": {"sessionId": "s1"}})

    serving = asyncio.ensure_future(agent())
    init = {"protocolVersion": 2, "info": {"name": "c", "version": "1"}, "capabilities": {}}
    await conn.request("initialize", wire.build(acp2, init, acp2.InitializeRequest))
    request = acp2.NewSessionRequest(
        cwd=CWD, mcp_servers=[acp2.McpServerAcp(name="tools", server_id="tools-1")]
    )
    if acp_capability is None:
        with pytest.raises(CapabilityError, match=r"session\.mcp\.acp"):
            await conn.agent.session_new(request)
    else:
        assert (await conn.agent.session_new(request)).session_id == "s1"
    await serving


class _NoHandler(acp2.ClientHandler):
    pass


async def _backend(op: Any) -> Any:
    return {"tools": []}
