"""Timeouts: per connection and per call; on expiry `$/cancel_request` goes out and the call raises
`RequestTimeoutError`."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from acp_runtime import AgentSideConnection, ClientSideConnection, RequestTimeoutError, memory_pipe

from .bounded import within
from .helpers import Agent, Client, RawPeer, initialize_request


class SlowAgent(Agent):
    """`_slow` never answers by itself; `cancelled` is set when the runtime cancels it."""

    def __init__(self, conn: AgentSideConnection) -> None:
        super().__init__(conn)
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def ext_method(self, method: str, params: Any) -> Any:
        if method != "_slow":
            return await super().ext_method(method, params)
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


async def connect(**client_options: Any) -> tuple[SlowAgent, ClientSideConnection]:
    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    agents: list[SlowAgent] = []
    AgentSideConnection(
        lambda conn: agents.append(SlowAgent(conn)) or agents[-1], agent_in, agent_out
    )
    conn = ClientSideConnection(Client(), client_in, client_out, **client_options)
    await conn.agent.initialize(initialize_request())
    return agents[0], conn


async def test_a_call_timeout_cancels_the_request_on_the_wire_and_raises_a_clear_error() -> None:
    agent, conn = await connect()
    with pytest.raises(RequestTimeoutError) as raised:
        await within(conn.request("_slow", {}, timeout=0.05), "the 0.05 s timeout never fired")
    assert (
        str(raised.value)
        == "_slow: no answer within 0.05 s; the request was cancelled ($/cancel_request)"
    )
    assert isinstance(raised.value, TimeoutError)
    await within(
        agent.cancelled.wait(), "the timed-out request was not cancelled at the agent"
    )  # the agent got $/cancel_request and cancelled its handler
    assert await conn.request("_ping", {}) == {"pong": True}  # the connection lives on


async def test_the_connection_default_applies_to_every_call() -> None:
    agent, conn = await connect(timeout=0.05)
    with pytest.raises(RequestTimeoutError):
        await within(conn.request("_slow", {}), "the connection's 0.05 s timeout never fired")
    await within(agent.cancelled.wait(), "the timed-out request was not cancelled at the agent")


async def test_a_call_may_set_its_own_timeout_or_none_over_the_connection_default() -> None:
    agent, conn = await connect(timeout=0.05)
    assert (await conn.send_request("_ping", {})).timeout == 0.05
    assert (await conn.send_request("_ping", {}, timeout=7)).timeout == 7
    assert (await conn.send_request("_ping", {}, timeout=None)).timeout is None


async def test_without_a_timeout_the_call_waits_for_the_answer() -> None:
    (client_in, client_out), (peer_in, peer_out) = memory_pipe()
    conn = ClientSideConnection(Client(), client_in, client_out, enforce_protocol=False)
    peer = RawPeer(peer_in, peer_out)
    call = asyncio.ensure_future(conn.request("_x", {}))
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"late": True}})
    assert await call == {"late": True}
