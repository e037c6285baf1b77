"""What the send and serve paths work out once per method (the policy's send and serve steps) and
write without a coroutine of their own keeps every behaviour: the connection's state is read at
each message, a write that fails closes the connection, and `after_answer` reaches the request
from the tasks its handler starts (the context the handler runs in)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

import pytest

import acp_schema as acp
from acp_runtime import (
    AgentSideConnection,
    ConnectionClosedError,
    NotInitializedError,
    memory_pipe,
)

from .helpers import Agent, RawPeer, initialize_request, raw_agent, text_update


class _Breaking:
    """A writer that works until `broken`, then fails as a closed pipe does."""

    def __init__(self, writer: Any) -> None:
        self._writer = writer
        self.broken = False

    def write(self, data: bytes) -> None:
        if self.broken:
            raise BrokenPipeError(32, "Broken pipe")
        self._writer.write(data)

    async def drain(self) -> None:
        await self._writer.drain()

    def close(self) -> None:
        self._writer.close()


async def _agent_over(writer_of: Any, handler: Any = Agent) -> tuple[AgentSideConnection, RawPeer]:
    (agent_in, agent_out), (peer_in, peer_out) = memory_pipe()
    conn = AgentSideConnection(handler, agent_in, writer_of(agent_out))
    peer = RawPeer(peer_in, peer_out)
    answer = await peer.call(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    assert "result" in answer, answer
    return conn, peer


async def test_a_call_refused_before_initialize_goes_out_once_initialize_is_done() -> None:
    """The steps of a method are worked out at its first send: they hold no connection state."""
    conn, peer = await raw_agent()
    new = acp.NewSessionRequest(cwd="/w", mcp_servers=[])
    with pytest.raises(NotInitializedError):
        await conn.agent.session_new(new)
    initialize = asyncio.ensure_future(conn.agent.initialize(initialize_request()))
    request = await peer.recv()
    assert request["method"] == "initialize", request
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": 1}})
    await asyncio.wait_for(initialize, 5)
    call = asyncio.ensure_future(conn.agent.session_new(new))
    request = await peer.recv()
    assert request["method"] == "session/new", request
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"sessionId": "s1"}})
    assert (await asyncio.wait_for(call, 5)).session_id == "s1"
    await conn.close()


async def test_an_answer_that_cannot_be_written_closes_the_connection() -> None:
    breaking: list[_Breaking] = []

    def writer_of(writer: Any) -> _Breaking:
        breaking.append(_Breaking(writer))
        return breaking[0]

    conn, peer = await _agent_over(writer_of)
    breaking[0].broken = True
    new = {"cwd": "/w", "mcpServers": []}
    peer.send({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": new})
    await asyncio.wait_for(conn.wait_closed(), 5)
    with pytest.raises(ConnectionClosedError, match="writing failed"):
        await conn.client.session_update(text_update("s1", "late"))


async def test_a_notification_that_cannot_be_written_raises_and_closes_the_connection() -> None:
    breaking: list[_Breaking] = []

    def writer_of(writer: Any) -> _Breaking:
        breaking.append(_Breaking(writer))
        return breaking[0]

    conn, peer = await _agent_over(writer_of)
    await asyncio.sleep(0)  # a new loop turn: the next message is handed to the stream at once
    breaking[0].broken = True
    with pytest.raises(ConnectionClosedError, match="writing failed"):
        await conn.client.session_update(text_update("s1", "lost"))
    assert conn.closed
    with pytest.raises(ConnectionClosedError, match="writing failed"):
        await conn.client.session_update(text_update("s1", "later"))


async def test_after_answer_from_a_task_the_handler_started_runs_after_that_answer() -> None:
    order: list[str] = []

    class Later(Agent):
        async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
            async def work() -> None:
                order.append("work")

            async def child() -> None:  # its context is a copy of the handler's
                self.conn.after_answer(work)

            await asyncio.get_running_loop().create_task(child())
            order.append("returned")
            return acp.NewSessionResponse(session_id="s1")

    conn, peer = await _agent_over(lambda writer: writer, Later)
    answer = await peer.call(1, "session/new", {"cwd": "/w", "mcpServers": []})
    assert answer["result"] == {"sessionId": "s1"}, answer
    for _ in range(10):
        await asyncio.sleep(0)
    assert order == ["returned", "work"]
    await conn.close()


async def test_a_served_request_leaves_no_reference_cycle() -> None:
    """Its task, its `Serving` and the task's context are freed once it is answered, without the
    garbage collector (a cycle per request costs the collector's work on every round trip)."""
    tasks: list[weakref.ref[asyncio.Task[Any]]] = []

    class Watched(Agent):
        async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
            task = asyncio.current_task()
            assert task is not None
            tasks.append(weakref.ref(task))
            return acp.NewSessionResponse(session_id=f"s{len(tasks)}")

    conn, peer = await _agent_over(lambda writer: writer, Watched)
    gc.collect()
    gc.disable()
    try:
        for request_id in (1, 2):
            answer = await peer.call(request_id, "session/new", {"cwd": "/w", "mcpServers": []})
            assert answer["result"] == {"sessionId": f"s{request_id}"}, answer
        for _ in range(3):
            await asyncio.sleep(0)
        assert len(tasks) == 2 and [ref() for ref in tasks] == [None, None]
    finally:
        gc.enable()
    await conn.close()
