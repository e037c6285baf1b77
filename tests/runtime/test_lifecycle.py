"""Initialization, version negotiation, closing."""

from __future__ import annotations

import asyncio

import pytest

import acp_schema as acp
from acp_runtime import (
    AgentSideConnection,
    ClientSideConnection,
    ConnectionClosedError,
    NotInitializedError,
    ProtocolVersionError,
    memory_pipe,
)
from tests.conformance.refusal import refused

from .helpers import Agent, Client, initialize_request, pair, raw_agent, raw_client


async def test_agent_refuses_requests_before_initialize() -> None:
    conn, peer = await raw_client(initialize=False)
    answer = await peer.call(1, "session/new", {"cwd": "/w", "mcpServers": []})
    assert answer["error"]["code"] == -32600 and "initialize" in answer["error"]["message"]
    answer = await peer.call(2, "initialize", {"protocolVersion": 1})
    assert answer["result"]["protocolVersion"] == 1
    answer = await peer.call(3, "session/new", {"cwd": "/w", "mcpServers": []})
    assert answer["result"] == {"sessionId": "s1"}


async def test_client_refuses_calls_before_initialize_and_sends_nothing() -> None:
    conn, peer = await raw_agent()
    await refused(
        peer,
        conn.agent.session_new(acp.NewSessionRequest(cwd="/w", mcp_servers=[])),
        NotInitializedError,
    )  # and the first message from the client is the answer to the probe refused() sends


async def test_agent_answers_the_requested_version_when_it_supports_it() -> None:
    conn, peer = await raw_client(initialize=False, protocol_versions=(1, 2, 3))
    answer = await peer.call(0, "initialize", {"protocolVersion": 2})
    assert answer["result"]["protocolVersion"] == 2 and conn.protocol_version == 2


async def test_agent_answers_its_latest_version_otherwise() -> None:
    conn, peer = await raw_client(initialize=False, protocol_versions=(1, 2))
    answer = await peer.call(0, "initialize", {"protocolVersion": 7})
    assert answer["result"]["protocolVersion"] == 2


async def test_the_runtime_overrides_a_wrong_version_from_the_handler() -> None:
    class Confused(Agent):
        async def initialize(self, params):
            return acp.InitializeResponse(
                protocol_version=99, agent_capabilities=acp.AgentCapabilities()
            )

    conn, peer = await raw_client(Confused, initialize=False)
    answer = await peer.call(0, "initialize", {"protocolVersion": 1})
    assert answer["result"]["protocolVersion"] == 1


async def test_client_sends_its_latest_version() -> None:
    conn, peer = await raw_agent(protocol_versions=(1, 3, 2))
    call = asyncio.ensure_future(
        conn.agent.initialize(
            acp.InitializeRequest(protocol_version=1, client_capabilities=acp.ClientCapabilities())
        )
    )
    request = await peer.recv()
    assert request["method"] == "initialize" and request["params"]["protocolVersion"] == 3
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": 2}})
    await call
    assert conn.protocol_version == 2 and conn.initialized


async def test_client_raises_and_closes_when_the_agent_chose_a_version_it_cannot_speak() -> None:
    conn, peer = await raw_agent()
    call = asyncio.ensure_future(conn.agent.initialize(initialize_request()))
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": 2}})
    with pytest.raises(ProtocolVersionError) as info:
        await call
    assert "version 2" in str(info.value) and "supports only 1" in str(info.value)
    assert conn.closed
    with pytest.raises(ConnectionClosedError):
        await conn.request("_ping", {})


async def test_initialize_records_both_sides_capabilities_and_info() -> None:
    caps = acp.AgentCapabilities(load_session=True)
    agent, client = await pair(lambda conn: Agent(conn, caps))
    assert client.agent_info.name == "test-agent" and client.peer_capabilities.load_session is True
    assert agent.client_info.name == "test-client"
    assert agent.peer_capabilities == acp.ClientCapabilities()
    assert agent.initialized and client.initialized


async def test_handler_without_initialize_gets_a_minimal_answer() -> None:
    class Minimal:
        pass

    conn, peer = await raw_client(Minimal(), initialize=False)
    answer = await peer.call(0, "initialize", {"protocolVersion": 1})
    assert answer["result"]["protocolVersion"] == 1, answer


async def test_pending_calls_fail_at_once_when_the_peer_goes_away() -> None:
    conn, peer = await raw_agent(enforce_protocol=False)
    calls = [asyncio.ensure_future(conn.request("_slow", {"n": n})) for n in range(3)]
    for _ in calls:
        await peer.recv()
    peer.close()
    for call in calls:
        with pytest.raises(ConnectionClosedError, match="end of input"):
            await call
    await conn.wait_closed()


async def test_requests_already_received_are_still_answered_after_end_of_input() -> None:
    end_of_input = asyncio.Event()

    class Slow(Agent):
        async def ext_method(self, method, params):
            await end_of_input.wait()  # it answers only after the connection has read the end
            return {"late": True}

    async def reached_end_of_input() -> str:
        end_of_input.set()
        return "the peer closed the connection (end of input)"

    conn, peer = await raw_client(Slow)
    conn.describe_eof = reached_end_of_input
    peer.send({"jsonrpc": "2.0", "id": 1, "method": "_slow", "params": {}})
    peer.close()
    assert await peer.recv() == {"jsonrpc": "2.0", "id": 1, "result": {"late": True}}
    await conn.wait_closed()


async def test_close_fails_pending_calls_and_cancels_running_handlers() -> None:
    started = asyncio.Event()
    cancelled = asyncio.Event()

    class Hanging(Agent):
        async def ext_method(self, method, params):
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise

    agent, client = await pair(Hanging)
    call = asyncio.ensure_future(client.request("_hang", {}))
    await started.wait()
    await agent.close()
    assert cancelled.is_set()
    with pytest.raises(ConnectionClosedError):
        await call
    await client.wait_closed()
    with pytest.raises(ConnectionClosedError):
        await agent.client.session_update(
            acp.SessionNotification(
                session_id="s",
                update=acp.SessionUpdateAgentMessageChunk(content=acp.TextContent(text="x")),
            )
        )


async def test_connection_works_as_an_async_context_manager() -> None:
    (a_in, a_out), (c_in, c_out) = memory_pipe()
    async with AgentSideConnection(Agent, a_in, a_out) as agent:
        async with ClientSideConnection(Client(), c_in, c_out) as client:
            await client.agent.initialize(initialize_request())
    assert agent.closed and client.closed


async def test_writing_to_a_closed_stream_closes_the_connection() -> None:
    (a_in, a_out), (c_in, c_out) = memory_pipe()
    agent = AgentSideConnection(Agent, a_in, a_out, enforce_protocol=False)
    a_out.close()  # the agent's output is gone, its input is still open
    with pytest.raises(ConnectionClosedError):
        await agent.request("_x", {})
    assert agent.closed
