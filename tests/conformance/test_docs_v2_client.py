"""docs/protocol/v2: the client's side of the prompt lifecycle, cancellation, session lists, plans
and terminals, and implementation info, on a v2 connection (the committed `acp_schema_v2`)."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import msgspec
import pytest

import acp_schema_v2 as acp2
from acp_runtime import ClientSideConnection, NotInitializedError, ProtocolError, memory_pipe, wire
from acp_runtime.session import Session, SessionState

from ..runtime.helpers import CWD, RawPeer
from ..runtime.helpers_v2 import Client, v2_session
from .refusal import refused

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement


def fold(*updates: dict[str, Any]) -> SessionState:
    state = SessionState()
    for update in updates:
        state.fold(acp2.decode(json.dumps(update).encode(), acp2.SessionUpdate))
    return state


@requirement("ACP-V2-PROMPT-CLIENT-SETUP-FIRST")
async def test_client_prompts_no_session_before_initialize_and_session_setup() -> None:
    session, agent, conn = await v2_session()
    await refused(
        agent.peer,
        Session(conn, "never-set-up").prompt("hello"),
        ProtocolError,
        "not set up on this connection",
    )
    (reader, writer), (peer_in, peer_out) = memory_pipe()
    fresh = ClientSideConnection(Client(), reader, writer, schema=acp2, protocol_versions=(2,))
    await refused(
        RawPeer(peer_in, peer_out), Session(fresh, "s1").prompt("hello"), NotInitializedError
    )


@requirement("ACP-V2-PROMPT-MESSAGE-ID")
def test_a_message_chunk_or_message_update_cannot_be_built_without_a_message_id() -> None:
    text = {"type": "text", "text": "hi"}
    for update in (
        {"sessionUpdate": "agent_message_chunk", "content": text},
        {"sessionUpdate": "user_message_chunk", "content": text},
        {"sessionUpdate": "agent_thought_chunk", "content": text},
        {"sessionUpdate": "agent_message", "content": [text]},
        {"sessionUpdate": "user_message", "content": [text]},
    ):
        with pytest.raises(msgspec.ValidationError, match="messageId"):
            wire.build(acp2, update, acp2.SessionUpdate)
    with pytest.raises(TypeError, match="message_id"):
        acp2.SessionUpdateAgentMessageChunk(content=acp2.TextContent(text="hi"))  # type: ignore[call-arg]


@requirement("ACP-V2-CANCEL-CLIENT-PERMISSIONS-CANCELLED")
async def test_cancel_answers_the_sessions_pending_permission_requests_cancelled() -> None:
    client = Client()
    session, agent, _ = await v2_session(client=client)
    ask = {
        "sessionId": "s1",
        "title": "Run rm -rf build/",
        "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"}],
    }
    agent.peer.send(
        {"jsonrpc": "2.0", "id": 7, "method": "session/request_permission", "params": ask}
    )
    await agent.barrier()
    assert len(client.asked) == 1
    await session.cancel()
    answers = [await agent.peer.recv(), await agent.peer.recv()]
    answer = next(a for a in answers if a.get("id") == 7)
    assert answer["result"] == {"outcome": {"outcome": "cancelled"}}
    assert any(a.get("method") == "session/cancel" for a in answers)


async def list_pages(pages: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """Walk `session/list` against an agent answering `pages` in turn: (cursors sent, pages)."""
    session, agent, conn = await v2_session()
    sent: list[Any] = []

    async def serve() -> None:
        for page in pages:
            request = await agent.recv("session/list")
            sent.append(request["params"].get("cursor"))
            agent.answer(request, page)

    serving = asyncio.ensure_future(serve())
    got = [page async for page in conn.pages("session/list")]
    await serving
    return sent, got


def listed(session_id: str) -> dict[str, Any]:
    return {"sessionId": session_id, "cwd": CWD}


@requirement("ACP-V2-LIST-MISSING-CURSOR-END")
async def test_a_page_without_next_cursor_is_the_last() -> None:
    pages = [{"sessions": [listed("a")], "nextCursor": "c1"}, {"sessions": [listed("b")]}]
    sent, got = await list_pages(pages)
    assert len(got) == 2 and sent == [None, "c1"]


@requirement("ACP-V2-LIST-OPAQUE-CURSOR")
async def test_cursors_go_back_exactly_as_the_agent_gave_them() -> None:
    odd = "  eyJwYWdlIjoyfQ==/../?&  "
    sent, _ = await list_pages([{"sessions": [], "nextCursor": odd}, {"sessions": []}])
    assert sent == [None, odd]


@requirement("ACP-V2-INIT-INFO")
def test_neither_side_can_initialize_without_its_implementation_info() -> None:
    with pytest.raises(msgspec.ValidationError, match="info"):
        wire.build(acp2, {"protocolVersion": 2, "capabilities": {}}, acp2.InitializeRequest)
    with pytest.raises(msgspec.ValidationError, match="info"):
        wire.build(acp2, {"protocolVersion": 2, "capabilities": {}}, acp2.InitializeResponse)


@requirement("ACP-V2-PLAN-CLIENT-REPLACE")
def test_each_plan_update_replaces_that_plan_completely_and_leaves_the_others() -> None:
    def plan(plan_id: str, *entries: str) -> dict[str, Any]:
        items = [{"content": e, "priority": "high", "status": "pending"} for e in entries]
        return {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": plan_id, "entries": items},
        }

    state = fold(plan("p1", "a", "b", "c"), plan("p2", "x"), plan("p1", "d"))
    assert [e.content for e in state.plans["p1"].entries] == ["d"]
    assert [e.content for e in state.plans["p2"].entries] == ["x"]


@requirement("ACP-V2-TERMINAL-SNAPSHOT-REPLACES")
def test_a_terminal_output_snapshot_replaces_the_bytes_kept_before() -> None:
    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode()

    state = fold(
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": b64(b"old\n")},
        {"sessionUpdate": "terminal_update", "terminalId": "t", "output": {"data": b64(b"new")}},
    )
    assert state.terminal_output["t"] == b"new"


@requirement("ACP-V2-TERMINAL-CHUNKS-DECODED-APART")
def test_terminal_output_chunks_are_decoded_one_by_one_then_appended() -> None:
    chunks = ["aGk=", "IQ=="]  # "hi" and "!": padded, so the joined text would not decode to both
    state = fold(
        *({"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": d} for d in chunks)
    )
    assert state.terminal_output["t"] == b"hi!"


@requirement("ACP-V2-EXT-NO-ROOT-CUSTOM-FIELDS")
async def test_custom_root_fields_are_refused_before_sending_on_a_v2_connection() -> None:
    session, agent, conn = await v2_session()
    with pytest.raises(TypeError, match="custom"):
        acp2.NewSessionRequest(cwd="/w", custom=1)  # type: ignore[call-arg]
    await refused(
        agent.peer,
        conn.request("session/new", {"cwd": "/w", "custom": 1}),
        ProtocolError,
        "not declared",
    )
    await refused(
        agent.peer,
        conn.notify("session/cancel", {"sessionId": "s1", "reason": "user"}),
        ProtocolError,
        "not declared",
    )
    await conn.notify("session/cancel", {"sessionId": "s1", "_meta": {"reason": "user"}})
    # where it belongs, and the first thing the agent receives after session/new
    assert (await agent.recv("session/cancel"))["params"] == {
        "sessionId": "s1",
        "_meta": {"reason": "user"},
    }
