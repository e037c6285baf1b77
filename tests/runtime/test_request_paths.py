"""The three ways a call is made behave alike: `request` without a time limit, `await
send_request(...)` without a limit, and `request` with a limit."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

import pytest

import acp_schema as acp
from acp_runtime import ClientSideConnection, ConnectionClosedError

from .helpers import Client, initialize_request, raw_agent, raw_client

Call = Callable[[Any, str, Any], Awaitable[Any]]


async def _request(conn: Any, method: str, params: Any) -> Any:
    return await conn.request(method, params)


async def _pending(conn: Any, method: str, params: Any) -> Any:
    return await (await conn.send_request(method, params))


async def _limited(conn: Any, method: str, params: Any) -> Any:
    return await conn.request(method, params, timeout=30)


WAYS = pytest.mark.parametrize("call", [_request, _pending, _limited], ids=lambda f: f.__name__)


@WAYS
async def test_an_answer_and_an_error_answer_end_the_call_alike(call: Call) -> None:
    conn, peer = await raw_agent(enforce_protocol=False)
    task = asyncio.ensure_future(call(conn, "_echo", {"a": 1}))
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"b": 2}})
    assert await task == {"b": 2}
    task = asyncio.ensure_future(call(conn, "_fail", {}))
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32000, "message": "no"}})
    with pytest.raises(Exception) as failed:
        await task
    assert getattr(failed.value, "code", None) == -32000
    assert not conn.pending and not conn.pending.types
    await conn.close()


@WAYS
async def test_cancelling_the_caller_asks_the_peer_to_drop_the_call(call: Call) -> None:
    conn, peer = await raw_agent(enforce_protocol=False)
    task = asyncio.ensure_future(call(conn, "_slow", {}))
    request = await peer.recv()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    note = await peer.recv()
    assert note["method"] == "$/cancel_request" and note["params"] == {"requestId": request["id"]}
    assert not conn.pending and request["id"] in conn.pending.abandoned
    await conn.close()


@WAYS
async def test_a_write_that_fails_closes_the_connection_and_leaves_nothing_pending(
    call: Call,
) -> None:
    class Broken:
        def write(self, data: bytes) -> None:
            raise ConnectionResetError("gone")

        async def drain(self) -> None:
            return None

    conn = ClientSideConnection(Client(), asyncio.StreamReader(), Broken(), enforce_protocol=False)
    with pytest.raises(ConnectionClosedError, match="writing failed"):
        await call(conn, "_x", {})
    assert not conn.pending and conn.closed
    with pytest.raises(ConnectionClosedError, match="writing failed"):  # and the next call too
        await call(conn, "_x", {})


@WAYS
async def test_a_call_on_a_closed_connection_raises_the_close(call: Call) -> None:
    conn, _ = await raw_agent(enforce_protocol=False)
    await conn.close()
    with pytest.raises(ConnectionClosedError):
        await call(conn, "_x", {})
    assert not conn.pending


@WAYS
async def test_a_call_is_pending_with_its_result_type(call: Call) -> None:
    """A call waiting for its answer is pending with its result type (which the decoder reads)."""
    conn, peer = await raw_agent()
    task = asyncio.ensure_future(call(conn, "initialize", initialize_request()))
    request = await peer.recv()
    assert list(conn.pending) == [request["id"]]
    assert conn.pending.types == {request["id"]: acp.InitializeResponse}
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": 1}})
    assert isinstance(await task, acp.InitializeResponse)
    assert not conn.pending and not conn.pending.types
    await conn.close()


class _Asking(Client):
    async def session_request_permission(self, params: Any) -> Any:
        await asyncio.Event().wait()  # answered only when the turn is cancelled


@WAYS
async def test_a_call_that_ends_a_turn_cancels_the_requests_served_for_it(call: Call) -> None:
    """`policy.sent` runs for the calls the policy watches (`sends_watched`): session/close, sent,
    cancels the permission request the client serves for that session, as session/cancel does."""
    conn, peer = await raw_agent(_Asking(), enforce_protocol=False)
    options = [{"optionId": "ok", "name": "OK", "kind": "allow_once"}]
    tool_call = {"toolCallId": "t1"}
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": 100,
            "method": "session/request_permission",
            "params": {"sessionId": "s1", "toolCall": tool_call, "options": options},
        }
    )
    await asyncio.sleep(0.01)
    task = asyncio.ensure_future(call(conn, "session/close", {"sessionId": "s1"}))
    close = await peer.recv()
    assert close["method"] == "session/close"
    answer = await asyncio.wait_for(peer.recv(), 5)
    assert answer == {"jsonrpc": "2.0", "id": 100, "result": {"outcome": {"outcome": "cancelled"}}}
    peer.send({"jsonrpc": "2.0", "id": close["id"], "result": {}})
    await task
    await conn.close()


@WAYS
async def test_a_result_the_policy_checks_is_checked_whichever_way_it_was_asked(call: Call) -> None:
    """`policy.on_result` runs for the results the policy reads (`results_read`): form content
    that breaks the requested schema fails the agent's elicitation/create call."""
    conn, peer = await raw_client(initialize=False)
    capabilities = {"elicitation": {"form": {}}}
    answer = await peer.call(
        0, "initialize", {"protocolVersion": 1, "clientCapabilities": capabilities}
    )
    assert "result" in answer, answer
    form = {
        "sessionId": "s1",
        "mode": "form",
        "message": "How many?",
        "requestedSchema": {
            "type": "object",
            "properties": {"count": {"type": "integer", "maximum": 5}},
        },
    }
    task = asyncio.ensure_future(call(conn, "elicitation/create", form))
    request = await peer.recv()
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {"action": "accept", "content": {"count": 9}},
        }
    )
    with pytest.raises(acp.RpcError, match="Invalid result"):
        await task
    await conn.close()
