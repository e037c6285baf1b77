"""What a program sends goes out as written, or is refused with a clear error (issue 28), through
real connections: the helpers, wire JSON and generated objects given to `request` / `notify`, and
a handler's answers. The schema's leniency marks forgive a receiver, never a sender: each value
below breaks the schema inside a marked member or list, where a receiver would drop it quietly.
(The property over every method of both packages: tests/runtime/test_send_strict.py.)"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

import acp_schema as acp
from acp_runtime import SchemaMismatchError
from acp_runtime.helpers import AgentSession

from .helpers import Agent, initialize_request, raw_agent, raw_client
from .test_helpers import run


async def test_a_plan_entry_with_a_status_the_schema_does_not_list_raises_naming_the_path() -> None:
    async def script(s: AgentSession) -> None:
        await s.plan([("step one", "done")])

    agent, session, _ = await run(script, raises=SchemaMismatchError)
    err = agent.error
    assert isinstance(err, SchemaMismatchError), err
    assert err.method == "session/update"
    assert err.path == "$.params.update.entries[0].status" and err.value == "done"
    assert "$.params.update.entries[0].status" in str(err) and '"done"' in str(err)
    assert session.state.plan == []  # nothing was sent: no (emptied) plan reached the client


async def test_a_tool_call_with_a_kind_the_schema_does_not_list_raises() -> None:
    entered = False

    async def script(s: AgentSession) -> None:
        nonlocal entered
        async with s.tool_call("Edit", kind="editing"):
            entered = True

    agent, session, _ = await run(script, raises=SchemaMismatchError)
    err = agent.error
    assert isinstance(err, SchemaMismatchError), err
    assert err.path == "$.params.update.kind" and err.value == "editing"
    assert not entered and session.state.tool_calls == {}  # no tool call without its kind


async def test_a_tool_call_field_the_schema_does_not_declare_raises() -> None:
    async def script(s: AgentSession) -> None:
        async with s.tool_call("Edit", kidn="edit"):
            pass

    agent, session, _ = await run(script, raises=SchemaMismatchError)
    err = agent.error
    assert isinstance(err, SchemaMismatchError), err
    assert err.path == "$.params.update.kidn" and "not declared" in err.reason
    assert session.state.tool_calls == {}


async def test_what_the_helpers_send_right_arrives_whole() -> None:
    async def script(s: AgentSession) -> None:
        await s.plan([("step one", "completed")])
        async with s.tool_call("Edit", kind="edit", locations=[{"path": "/w/a.txt", "line": 3}]):
            pass

    agent, session, _ = await run(script)
    assert agent.error is None
    assert [(e.content, e.status.value) for e in session.state.plan] == [("step one", "completed")]
    (call,) = session.state.tool_calls.values()
    assert call.kind == acp.ToolKind.EDIT and call.locations[0].line == 3


async def _nothing_arrives(peer: Any) -> None:
    with pytest.raises(asyncio.TimeoutError):
        await peer.recv(timeout=0.2)


async def test_wire_json_params_of_a_request_are_checked_before_sending() -> None:
    conn, peer = await raw_agent()
    initialized = asyncio.create_task(conn.agent.initialize(initialize_request()))
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": 1}})
    await initialized
    prompt = [{"type": "text", "text": "hi", "annotations": {"priority": "high"}}]
    with pytest.raises(SchemaMismatchError) as refused:
        await conn.request("session/prompt", {"sessionId": "s1", "prompt": prompt})
    assert refused.value.method == "session/prompt"
    assert refused.value.path == "$.params.prompt[0].annotations.priority"
    assert refused.value.value == "high"
    await _nothing_arrives(peer)


async def test_a_generated_object_given_to_notify_is_checked_before_sending() -> None:
    conn, peer = await raw_client()
    entry = acp.PlanEntry(content="step one", status="done", priority="medium")  # type: ignore
    note = acp.SessionNotification(session_id="s1", update=acp.Plan(entries=[entry]))
    with pytest.raises(SchemaMismatchError) as refused:
        await conn.notify("session/update", note)
    assert refused.value.path == "$.params.update.entries[0].status"
    await _nothing_arrives(peer)


class BadModes(Agent):
    """Answers session/new with a mode list whose second item breaks the schema (the list is
    marked skip-invalid-items: a receiver would drop the item)."""

    answer: Any = None

    async def session_new(self, params: acp.NewSessionRequest) -> Any:
        return self.answer


@pytest.mark.parametrize("given", ["dict", "struct"])
async def test_a_handler_answer_that_breaks_the_schema_is_answered_32603_naming_the_field(
    given: str, caplog: pytest.LogCaptureFixture
) -> None:
    modes: Any
    if given == "dict":
        modes = {"currentModeId": "a", "availableModes": [{"id": "a", "name": "A"}, {"id": 5}]}
        BadModes.answer = {"sessionId": "s1", "modes": modes}
    else:
        modes = acp.SessionModeState(
            current_mode_id="a",
            available_modes=[acp.SessionMode(id="a", name="A"), acp.SessionMode(id=5, name="B")],  # type: ignore[arg-type]
        )
        BadModes.answer = acp.NewSessionResponse(session_id="s1", modes=modes)
    conn, peer = await raw_client(BadModes)
    with caplog.at_level(logging.ERROR, logger="acp_runtime"):
        answer = await peer.call(1, "session/new", {"cwd": "/work/project", "mcpServers": []})
    field = "$.result.modes.availableModes[1]"
    assert answer["error"]["code"] == -32603, answer
    assert field in answer["error"]["data"]["message"]
    assert field in caplog.text and "session/new" in caplog.text
    await peer.barrier()  # the connection lives on
