"""One agent and one client serve v1 and v2: the version is chosen per connection in initialize."""

from __future__ import annotations

import asyncio
import json

import pytest

import acp_schema as v1
import acp_schema_v2 as v2
from acp_runtime import ProtocolVersionError, memory_pipe
from acp_runtime.versions import AgentRoute, AgentVersions, ClientRoute, ClientVersions

from .helpers import RawPeer
from .v2peers import (
    V2_INITIALIZE,
    AgentV2,
    both_agents,
    both_clients,
    connected,
    raw_v2_client,
    v2_initialize,
)


async def test_a_v2_client_gets_the_v2_package_handler_and_proxy() -> None:
    agent, client = await connected()
    answer = await client.agent.initialize(v2_initialize())
    assert isinstance(answer, v2.InitializeResponse) and answer.protocol_version == 2
    assert agent.protocol_version == client.protocol_version == 2
    assert agent.schema is v2 and client.schema is v2
    assert isinstance(agent.handler, AgentV2)
    assert isinstance(agent.client, v2.ClientProxy) and isinstance(client.agent, v2.AgentProxy)
    assert agent.client_info.name == "client-v2" and client.agent_info.name == "agent-v2"
    await client.close()


async def test_a_v1_client_of_the_same_agent_gets_the_v1_package() -> None:
    agent, client = await connected(client=ClientVersions(ClientRoute(1, v1, v1.ClientHandler())))
    answer = await client.agent.initialize(v1.InitializeRequest(protocol_version=1))
    assert isinstance(answer, v1.InitializeResponse) and answer.protocol_version == 1
    assert agent.schema is v1 and isinstance(agent.client, v1.ClientProxy)
    assert client.agent_info.name == "agent-v1"
    await client.close()


async def test_a_client_of_both_versions_falls_back_to_v1_with_a_v1_only_agent() -> None:
    agent, client = await connected(agent=AgentVersions(both_agents()[1]))
    answer = await client.agent.initialize(v2_initialize())
    assert isinstance(answer, v1.InitializeResponse)
    assert client.protocol_version == 1 and client.schema is v1
    assert isinstance(client.agent, v1.AgentProxy)
    await client.close()


async def test_a_v1_only_agent_without_routes_serves_a_client_of_both_versions() -> None:
    from .helpers import Agent

    agent, client = await connected(agent=Agent)
    await client.agent.initialize(v2_initialize())
    assert client.protocol_version == 1 and client.schema is v1
    await client.close()


async def test_a_v2_only_client_refuses_a_v1_answer() -> None:
    agent, client = await connected(
        agent=AgentVersions(both_agents()[1]),
        client=ClientVersions(both_clients()[2]),
    )
    with pytest.raises(ProtocolVersionError):
        await client.agent.initialize(v2_initialize())
    assert client.closed


async def test_an_agent_answers_a_newer_version_than_it_speaks_with_its_latest() -> None:
    conn, peer = await raw_v2_client(initialize=False)
    answer = await peer.call(0, "initialize", {**V2_INITIALIZE, "protocolVersion": 7})
    assert answer["result"]["protocolVersion"] == 2 and conn.schema is v2
    peer.close()


async def test_a_newer_client_in_v1_shape_is_answered_with_the_latest_version() -> None:
    # 65535 is no version the agent speaks: it cannot know that version's shape, so it reads the
    # params in a shape it knows that fits (here v1's), never refusing them for v2's `info`
    conn, peer = await raw_v2_client(initialize=False)
    answer = await peer.call(0, "initialize", {"protocolVersion": 65535, "clientCapabilities": {}})
    assert "error" not in answer, answer
    assert answer["result"]["protocolVersion"] == 2 and conn.schema is v2
    assert answer["result"]["info"]["name"] == "agent-v2"
    assert conn.protocol_version == 2 and conn.initialized
    answer = await peer.call(1, "session/new", {"cwd": "/w"})
    assert answer["result"]["sessionId"] == "s1"  # served as v2 from then on
    peer.close()


async def test_a_newer_client_in_no_known_shape_is_told_what_each_version_reads() -> None:
    # v1 forgives almost any initialize: a v2-only agent has one shape, which this does not fit
    conn, peer = await raw_v2_client(AgentVersions(both_agents()[2]), initialize=False)
    answer = await peer.call(0, "initialize", {"protocolVersion": 65535, "clientCapabilities": {}})
    assert answer["error"]["code"] == -32602, answer
    assert "no protocol version this agent speaks reads" in answer["error"]["message"]
    assert set(answer["error"]["data"]) == {"2"}
    assert "info" in answer["error"]["data"]["2"]["message"]
    answer = await peer.call(1, "initialize", {**V2_INITIALIZE, "protocolVersion": 65535})
    assert answer["result"]["protocolVersion"] == 2  # and a readable one is answered
    peer.close()


async def test_requests_before_initialize_are_refused_and_do_not_route() -> None:
    conn, peer = await raw_v2_client(initialize=False)
    answer = await peer.call(1, "session/new", {"cwd": "/w", "mcpServers": []})
    assert answer["error"]["code"] == -32600
    answer = await peer.call(0, "initialize", V2_INITIALIZE)
    assert answer["result"]["protocolVersion"] == 2
    peer.close()


async def test_a_bad_v2_initialize_is_answered_by_the_v2_package_and_may_be_retried() -> None:
    conn, peer = await raw_v2_client(initialize=False)
    answer = await peer.call(0, "initialize", {"protocolVersion": 2})  # no info: v2 requires it
    assert answer["error"]["code"] == -32602 and "info" in str(answer["error"]["data"])
    answer = await peer.call(1, "initialize", V2_INITIALIZE)
    assert answer["result"]["info"]["name"] == "agent-v2"
    peer.close()


def test_a_version_routed_twice_is_refused() -> None:
    route = AgentRoute(1, v1, v1.AgentHandler())
    with pytest.raises(ValueError, match="version 1 is routed twice"):
        AgentVersions(route, route)


async def test_routes_name_their_packages_so_schema_is_refused() -> None:
    with pytest.raises(TypeError, match="each Route names its package"):
        await connected(agent=both_agents(), client=both_clients(), schema=v1)


async def test_what_a_v1_agent_sends_right_after_its_answer_is_read_as_v1() -> None:
    class Recorder(v1.ClientHandler):
        def __init__(self) -> None:
            self.updates: list[v1.SessionNotification] = []

        async def session_update(self, params: v1.SessionNotification) -> None:
            self.updates.append(params)

    recorder = Recorder()
    (client_in, client_out), (peer_in, peer_out) = memory_pipe()
    routes = ClientVersions(ClientRoute(1, v1, recorder), both_clients()[2])
    conn = routes.connect(client_in, client_out)
    peer = RawPeer(peer_in, peer_out)
    call = asyncio.ensure_future(conn.agent.initialize(v2_initialize()))
    request = await peer.recv()
    assert request["params"]["protocolVersion"] == 2
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
    answer = {"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": 1}}
    note = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": chunk},
    }
    peer.send_bytes((json.dumps(answer) + "\n" + json.dumps(note) + "\n").encode())  # one read
    assert isinstance(await call, v1.InitializeResponse)
    # a barrier: an answer resolves its call once the notifications before it are handled
    new = asyncio.ensure_future(
        conn.agent.session_new(v1.NewSessionRequest(cwd="/w", mcp_servers=[]))
    )
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"sessionId": "s"}})
    await new
    assert [u.update.content.text for u in recorder.updates] == ["hi"]
    await conn.close()


async def test_an_initialize_nested_too_deep_is_answered_and_routes_nothing() -> None:
    conn, peer = await raw_v2_client(initialize=False)
    # deeper than msgspec decodes on any Python (3.13 decodes 5,000 levels)
    deep = b"[" * 100_000 + b"]" * 100_000
    peer.send_bytes(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":' + deep + b"}\n")
    answer = await peer.recv()
    assert answer["id"] == 0 and answer["error"]["code"] == -32600, answer
    answer = await peer.call(1, "initialize", V2_INITIALIZE)  # the connection lives on
    assert answer["result"]["protocolVersion"] == 2
    peer.close()
