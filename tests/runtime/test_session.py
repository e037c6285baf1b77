"""`Session`: set up, prompt, fold and iterate a session over a real connection pair."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import acp_schema as acp
from acp_runtime import AgentSideConnection, ClientSideConnection, memory_pipe
from acp_runtime.session import Session

from .helpers import CWD, Agent, Client, initialize_request
from .test_session_fold import RECORDED


class ReplayingAgent(Agent):
    """Answers each prompt by sending the recorded turn's updates, with modes and a config option
    offered at session/new."""

    def __init__(self, conn: AgentSideConnection, capabilities: Any = None) -> None:
        super().__init__(conn, capabilities)
        self.count = 0
        self.cancelled = asyncio.Event()
        self.release = asyncio.Event()

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        self.count += 1
        modes = acp.SessionModeState(
            current_mode_id="ask",
            available_modes=[
                acp.SessionMode(id="ask", name="Ask"),
                acp.SessionMode(id="code", name="Code"),
            ],
        )
        return acp.NewSessionResponse(session_id=f"s{self.count}", modes=modes)

    async def session_load(self, params: acp.LoadSessionRequest) -> acp.LoadSessionResponse:
        for update in RECORDED[:3]:  # the history, replayed before the answer (rows 28, 29)
            note = {"sessionId": params.session_id, "update": update}
            await self.conn.client.session_update(
                acp.decode(json.dumps(note).encode(), acp.SessionNotification)
            )
        return acp.LoadSessionResponse()

    async def session_set_config_option(self, params: Any) -> acp.SetSessionConfigOptionResponse:
        option = acp.SessionConfigOptionBoolean(
            id="brave", name="Brave", current_value=params.value
        )
        return acp.SetSessionConfigOptionResponse(config_options=[option])

    async def session_set_mode(
        self, params: acp.SetSessionModeRequest
    ) -> acp.SetSessionModeResponse:
        return acp.SetSessionModeResponse()

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        text = params.prompt[0].text
        if text == "wait":
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        for update in RECORDED:
            note = {"sessionId": params.session_id, "update": update}
            await self.conn.client.session_update(
                acp.decode(json.dumps(note).encode(), acp.SessionNotification)
            )
        usage = acp.Usage(total_tokens=30, input_tokens=20, output_tokens=10)
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN, usage=usage)


async def connect(
    client: Any = None, initialize: Any = None
) -> tuple[AgentSideConnection, ClientSideConnection]:
    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    caps = acp.AgentCapabilities(load_session=True)
    agent = AgentSideConnection(lambda conn: ReplayingAgent(conn, caps), agent_in, agent_out)
    conn = ClientSideConnection(client or Client(), client_in, client_out)
    await conn.agent.initialize(initialize or initialize_request())
    return agent, conn


async def test_a_new_session_knows_its_id_and_the_modes_the_agent_offers() -> None:
    _, conn = await connect()
    session = await Session.new(conn, CWD)
    assert session.id == "s1"
    assert [m.id for m in session.available_modes] == ["ask", "code"]
    assert session.state.current_mode_id == "ask"


async def test_prompt_returns_the_stop_reason_and_usage_with_every_update_folded() -> None:
    _, conn = await connect()
    session = await Session.new(conn, CWD)
    outcome = await session.prompt("go")
    assert outcome.stop_reason == "end_turn" and not outcome.cancelled
    # typed as the package's StopReason, and so it is: a member, not its bare wire string
    assert outcome.stop_reason is acp.StopReason.END_TURN
    assert outcome.usage.total_tokens == 30
    assert session.state.text() == "Let me look at the test. Fixed: f() returns 2."
    assert set(session.state.tool_calls) == {"call_1", "call_2"}


async def test_prompt_takes_content_blocks_too() -> None:
    _, conn = await connect()
    session = await Session.new(conn, CWD)
    outcome = await session.prompt([acp.TextContent(text="go")])
    assert outcome.stop_reason == "end_turn"


async def test_updates_yields_each_update_of_the_turn_in_order_then_ends() -> None:
    _, conn = await connect()
    session = await Session.new(conn, CWD)
    turn = asyncio.ensure_future(session.prompt("go"))
    kinds = [json.loads(acp.encode(update))["sessionUpdate"] async for update in session.updates()]
    assert kinds == [u["sessionUpdate"] for u in RECORDED]
    assert (await turn).stop_reason == "end_turn"


async def test_the_state_read_while_iterating_already_holds_the_update_yielded() -> None:
    _, conn = await connect()
    session = await Session.new(conn, CWD)
    turn = asyncio.ensure_future(session.prompt("go"))
    async for update in session.updates():
        if isinstance(update, acp.ToolCall):
            assert session.state.tool_calls[update.tool_call_id].title == update.title
    await turn


async def test_the_client_handler_still_sees_every_update() -> None:
    client = Client()
    _, conn = await connect(client)
    session = await Session.new(conn, CWD)
    await session.prompt("go")
    assert len(client.updates) == len(RECORDED)


async def test_two_sessions_on_one_connection_fold_apart() -> None:
    _, conn = await connect()
    first, second = await Session.new(conn, CWD), await Session.new(conn, CWD)
    await first.prompt("go")
    assert first.state.tool_calls and not second.state.tool_calls


async def test_cancel_ends_the_turn_cancelled() -> None:
    agent, conn = await connect()
    session = await Session.new(conn, CWD)
    turn = asyncio.ensure_future(session.prompt("wait"))
    await asyncio.sleep(0)  # let the prompt go out
    while not agent.serving:
        await asyncio.sleep(0)
    await session.cancel()
    outcome = await turn
    assert outcome.cancelled and outcome.stop_reason == "cancelled"


async def test_set_mode_keeps_the_current_mode() -> None:
    _, conn = await connect()
    session = await Session.new(conn, CWD)
    await session.set_mode("code")
    assert session.state.current_mode_id == "code"


async def test_updates_end_when_the_connection_closes() -> None:
    _, conn = await connect()
    session = await Session.new(conn, CWD)
    updates = session.updates()
    await conn.close()
    assert [u async for u in updates] == []


async def test_a_loaded_session_holds_the_history_the_agent_replayed() -> None:
    _, conn = await connect()
    session = await Session.load(conn, "old-1", CWD)
    assert session.id == "old-1" and [c.name for c in session.commands] == ["web"]
    assert session.state.text("user") == "Fix the failing test"
    assert (await session.prompt("go")).stop_reason == "end_turn"  # set up on this connection


async def test_set_config_option_keeps_the_agents_answer() -> None:
    boolean_options = acp.ClientSessionCapabilities(
        config_options=acp.SessionConfigOptionsCapabilities(
            boolean=acp.BooleanConfigOptionCapabilities()
        )
    )
    _, conn = await connect(
        initialize=initialize_request(session=boolean_options)
    )  # boolean options offered
    session = await Session.new(conn, CWD)
    await session.set_config_option("brave", False)  # first offered by this answer
    await session.set_config_option("brave", True)  # now known to be a boolean option
    assert [(o.id, o.current_value) for o in session.config_options] == [("brave", True)]
