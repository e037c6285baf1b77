"""The session router folds a streamed update the way `SessionState.fold` does.

The router appends a message chunk to the last message itself when the session has no listener
and no waiting turn (the path of a streamed answer); these tests check that path against
`SessionState.fold` for chunks with and without message ids, of one role and of several.
"""

from __future__ import annotations

import json
from typing import Any

import acp_schema as acp
from acp_runtime import AgentSideConnection, ClientSideConnection, memory_pipe
from acp_runtime.session import Session

from .helpers import CWD, Agent, Client, initialize_request
from .test_session_fold import fold_all


def chunk(kind: str, text: str, message_id: str | None = None) -> dict[str, Any]:
    update: dict[str, Any] = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
    if message_id is not None:
        update["messageId"] = message_id
    return update


TURN = [
    chunk("user_message_chunk", "hi"),
    chunk("agent_message_chunk", "one "),
    chunk("agent_message_chunk", "two "),
    chunk("agent_message_chunk", "by id ", "m1"),  # an id: a message of its own
    chunk("agent_message_chunk", "three "),  # no id after an id'd message: a new message
    chunk("agent_message_chunk", "four"),
    chunk("agent_thought_chunk", "hmm"),  # another role: a new message
    chunk("agent_message_chunk", "again ", "m1"),  # back to m1 by its id
    chunk("agent_message_chunk", "five"),
]


class StreamingAgent(Agent):
    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        return acp.NewSessionResponse(session_id="s1")

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        for update in TURN:
            note = {"sessionId": params.session_id, "update": update}
            await self.conn.client.session_update(
                acp.decode(json.dumps(note).encode(), acp.SessionNotification)
            )
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


async def test_a_streamed_turn_is_folded_as_session_state_folds_it() -> None:
    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    AgentSideConnection(StreamingAgent, agent_in, agent_out)
    client = Client()
    conn = ClientSideConnection(client, client_in, client_out)
    await conn.agent.initialize(initialize_request())
    session = await Session.new(conn, CWD)
    await session.prompt("go")
    await session.prompt("go")  # a second turn folds on top of the first
    expected = fold_all(TURN + TURN)
    folded = [(m.role, m.message_id, m.text()) for m in session.state.messages]
    assert folded == [(m.role, m.message_id, m.text()) for m in expected.messages]
    assert [m.role for m in session.state.messages][:4] == ["user", "agent", "agent", "agent"]
    assert len(client.updates) == 2 * len(TURN)  # the handler still sees every update


async def test_a_session_set_up_after_updates_were_handled_folds_the_later_ones() -> None:
    """The engine keeps, per notification method, what runs before its handler: a `Session` set up
    once session/update notifications have already been handled (none folded) still folds every
    later one, the handler seeing them all."""

    class TwoSessions(StreamingAgent):
        made = 0

        async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
            TwoSessions.made += 1
            return acp.NewSessionResponse(session_id=f"s{TwoSessions.made}")

    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    AgentSideConnection(TwoSessions, agent_in, agent_out)
    client = Client()
    conn = ClientSideConnection(client, client_in, client_out)
    await conn.agent.initialize(initialize_request())
    new = await conn.agent.session_new(acp.NewSessionRequest(cwd=CWD, mcp_servers=[]))
    await conn.agent.session_prompt(
        acp.PromptRequest(session_id=new.session_id, prompt=[acp.TextContent(text="go")])
    )
    assert len(client.updates) == len(TURN)  # handled with no session to fold them
    session = await Session.new(conn, CWD)
    await session.prompt("go")
    expected = fold_all(TURN)
    folded = [(m.role, m.message_id, m.text()) for m in session.state.messages]
    assert folded == [(m.role, m.message_id, m.text()) for m in expected.messages]
    assert len(client.updates) == 2 * len(TURN)


def _note(session_id: str, update: dict[str, Any]) -> acp.SessionNotification:
    note = {"sessionId": session_id, "update": update}
    return acp.decode(json.dumps(note).encode(), acp.SessionNotification)


MIXED = [  # (session, update): two sessions interleaved, ids, roles, a message's end and restart
    ("s1", chunk("agent_message_chunk", "a1 ")),
    ("s1", chunk("agent_message_chunk", "a2 ")),  # continues the message
    ("s2", chunk("agent_message_chunk", "b1 ")),
    ("s1", chunk("agent_message_chunk", "a3 ")),
    ("s2", chunk("agent_message_chunk", "b2 ")),
    ("s1", chunk("agent_message_chunk", "by id ", "m1")),
    ("s1", chunk("agent_message_chunk", "a4 ")),  # after an id'd message: a message of its own
    ("s1", chunk("agent_message_chunk", "again ", "m1")),
    ("s9", chunk("agent_message_chunk", "nobody's ")),  # no such session: dropped
    ("s1", chunk("agent_thought_chunk", "hmm ")),
    ("s1", chunk("agent_thought_chunk", "more ")),
    ("s1", chunk("agent_message_chunk", "a5 ")),
    ("s1", chunk("agent_message_chunk", "a6 ")),
    ("s2", {"sessionUpdate": "plan", "entries": []}),
    ("s2", chunk("agent_message_chunk", "b3 ")),
    ("s2", chunk("user_message_chunk", "u1 ")),
    ("s2", chunk("agent_message_chunk", "b4 ")),
    ("s2", chunk("agent_message_chunk", "b5 ")),
]


async def test_the_router_folds_each_session_as_its_updates_fold_one_by_one() -> None:
    """`Router` against `SessionState.fold`: two sessions' updates interleaved (ids, roles, a
    message's end and restart, an unknown session), each session's state is its own updates folded
    one by one."""
    from acp_runtime.routing import Router

    _, conn = await _connected()
    s1, s2 = Session(conn, "s1"), Session(conn, "s2")
    router = Router(conn)
    router.sessions.update({"s1": s1, "s2": s2})
    for session_id, update in MIXED:
        handler = conn.on_session_update
        assert handler is not None
        handler(_note(session_id, update))
    for session in (s1, s2):
        expected = fold_all([u for sid, u in MIXED if sid == session.id])
        got = [(m.role, m.message_id, m.text()) for m in session.state.messages]
        assert got == [(m.role, m.message_id, m.text()) for m in expected.messages]
        assert session.state.plan == expected.plan


async def test_a_listener_sees_every_update_the_router_folds() -> None:
    """With a listener (`updates()`), each update the router folds is told to it as well."""
    from acp_runtime.routing import Router

    _, conn = await _connected()
    session = Session(conn, "s1")
    router = Router(conn)
    router.sessions["s1"] = session
    for update in TURN[:3]:
        router.route(_note("s1", update))
    updates = session.updates()
    for update in TURN[3:]:
        router.route(_note("s1", update))
    session.end_updates()
    assert len([u async for u in updates]) == len(TURN) - 3
    expected = fold_all(TURN)
    got = [(m.role, m.message_id, m.text()) for m in session.state.messages]
    assert got == [(m.role, m.message_id, m.text()) for m in expected.messages]


async def test_a_waiting_turn_numbers_every_update_the_router_folds() -> None:
    """While a v2 turn waits (`Session._waiting`) each update is numbered for the turn's end
    (`_watch`)."""
    from acp_runtime.routing import Router

    _, conn = await _connected()
    session = Session(conn, "s1")
    router = Router(conn)
    router.sessions["s1"] = session
    for update in TURN[:3]:
        router.route(_note("s1", update))
    session._waiting = 1
    for update in TURN[3:]:
        router.route(_note("s1", update))
    assert session._folded == len(TURN) - 3
    expected = fold_all(TURN)
    got = [(m.role, m.message_id, m.text()) for m in session.state.messages]
    assert got == [(m.role, m.message_id, m.text()) for m in expected.messages]


async def test_a_chained_hook_is_called_first_for_every_update() -> None:
    """A hook set before the router (`chained`) is called for every update."""
    from acp_runtime.routing import Router

    _, conn = await _connected()
    seen: list[Any] = []
    conn.on_session_update = seen.append
    session = Session(conn, "s1")
    router = Router(conn)
    router.sessions["s1"] = session
    for update in TURN:
        handler = conn.on_session_update
        assert handler is not None
        handler(_note("s1", update))
    assert len(seen) == len(TURN) and conn.on_session_update == router.route
    expected = fold_all(TURN)
    got = [(m.role, m.message_id, m.text()) for m in session.state.messages]
    assert got == [(m.role, m.message_id, m.text()) for m in expected.messages]


async def _connected() -> tuple[AgentSideConnection, ClientSideConnection[Any]]:
    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    agent = AgentSideConnection(StreamingAgent, agent_in, agent_out)
    conn = ClientSideConnection(Client(), client_in, client_out)
    await conn.agent.initialize(initialize_request())
    return agent, conn
