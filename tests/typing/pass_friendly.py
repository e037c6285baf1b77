"""The friendly layer (AgentSession, Session, connect_agent, decode) on the v1 and v2 packages, as a
user writes it: type-checks clean, every type exact."""

from __future__ import annotations

from typing import Any, Literal, Mapping, Sequence, assert_type

import acp_schema as acp
import acp_schema_v2 as acp2
from acp_runtime import AgentSideConnection, ClientSideConnection
from acp_runtime.helpers import AgentSession
from acp_runtime.http import connect_agent
from acp_runtime.session import Session, SessionState, TurnOutcome
from acp_runtime.versions import ClientRoute, ClientVersions


class Agent(acp.AgentHandler):
    def __init__(self, conn: AgentSideConnection) -> None:
        self.conn = conn

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        session = AgentSession(self.conn, params.session_id)
        await session.say("Looking at it")
        await session.say(acp.TextContent(text="a block"))
        await session.think("hmm")
        await session.plan([("Read the code", "in_progress"), ("Fix it", "pending", "high")])
        entry = acp.PlanEntry(
            content="x", priority=acp.PlanEntryPriority.LOW, status=acp.PlanEntryStatus.PENDING
        )
        await session.plan([entry, {"content": "y", "status": "pending", "priority": "low"}])
        await session.plan([("z", acp.PlanEntryStatus.PENDING, acp.PlanEntryPriority.HIGH)])
        assert_type(session.conn, AgentSideConnection[acp.ClientProxy])
        async with session.tool_call("Run tests", kind="execute") as call:
            option = await session.ask_permission(call)
            if option is not None:
                assert_type(option, acp.PermissionOption)
                assert_type(option.option_id, str)
        session.tool_call("Read", kind=acp.ToolKind.READ, locations=[{"path": "/a"}])
        async with session.terminal("pytest", ["-q"]) as term:
            assert_type(await term.output(), acp.TerminalOutputResponse)
            exit = await term.wait_for_exit()
            assert_type(exit, acp.WaitForTerminalExitResponse)
            await call.add_terminal(term.id)

        async def work() -> acp.StopReason:
            return acp.StopReason.END_TURN

        answer = await session.turn(params.prompt, work)
        assert_type(answer, acp.PromptResponse)

        async def wire_work() -> str:
            return "end_turn"

        async with session.tool_call("Edit", kind="edit") as edit:
            await edit.update(status="completed", title="Edited", kind=acp.ToolKind.EDIT)
            await edit.update(
                status=acp.ToolCallStatus.FAILED,
                content=[
                    acp.Content(content=acp.TextContent(text="x")),
                    {"type": "content", "content": {"type": "text", "text": "y"}},
                ],
                locations=[acp.ToolCallLocation(path="/a"), {"path": "/b"}],
                rawOutput={"any": "json"},
            )
            await edit.update(title=None)
            assert_type(
                edit.status,
                acp.ToolCallStatus
                | Literal["pending", "in_progress", "completed", "failed"]
                | None,
            )
            assert_type(edit.content, list[acp.ToolCallContent | Mapping[str, Any]])
        return answer


async def helper(session: AgentSession) -> None:
    """A bare annotation means the default package's session, and takes an inferred one."""
    await session.say("hi")


async def agent_v2(
    conn: AgentSideConnection[acp2.ClientProxy], default: AgentSideConnection
) -> None:
    await helper(AgentSession(default, "s"))
    session = AgentSession(conn, "s")
    await session.say(acp2.TextContent(text="hi"))
    session.tool_call("Read", kind="read")

    async def work() -> str:
        return "end_turn"

    answer = await session.turn([acp2.TextContent(text="hi")], work)
    assert_type(answer, acp2.PromptResponse)
    await session.state("running", background=[{"type": "terminal", "terminalId": "t"}])
    usage = acp2.Usage(total_tokens=3, input_tokens=1, output_tokens=2)
    await session.state("idle", "end_turn", usage=usage, _meta={"any": "json"})
    await session.state("idle", "error", error={"code": -32603, "message": "Internal error"})
    async with session.tool_call("Read") as call:
        await call.update(
            status="completed", content=[acp2.Content(content=acp2.TextContent(text="x"))]
        )


async def client(conn: ClientSideConnection, url: str, data: bytes) -> None:
    session = await Session.new(conn, "/tmp")
    outcome = await session.prompt("hello")
    reason: acp.StopReason | None = outcome.stop_reason
    assert_type(outcome.response, acp.PromptResponse)
    assert_type(outcome, TurnOutcome[acp.StopReason, acp.PromptResponse])
    await session.prompt([acp.TextContent(text="more")])
    await session.prompt("more", timeout=None)
    await session.prompt("more", timeout=5)
    for call in session.state.tool_calls.values():
        if isinstance(call, acp.ToolCall):
            assert_type(call.title, str)
    state: SessionState = session.state
    for entry in state.plan:
        assert_type(entry, acp.PlanEntry)
    for message in state.messages:
        for block in message.content:
            if isinstance(block, acp.TextContent):
                assert_type(block.text, str)
    async for update in session.updates():
        if isinstance(update, acp.SessionUpdateAgentMessageChunk):
            assert_type(update.content, acp.ContentBlock)
    loaded = await Session.load(conn, "s", "/tmp")
    assert_type(loaded.state.tool_calls, dict[str, acp.ToolCall | acp.SessionUpdateToolCallUpdate])
    typed: Session = loaded
    assert_type(typed, Session)
    if reason is not None:
        assert_type(reason, acp.StopReason)
    assert_type(session.id, str)
    assert_type(session.conn, ClientSideConnection[acp.AgentProxy])
    assert_type(outcome.usage, acp.Usage | None)
    assert_type(outcome.idle, acp.SessionUpdate | None)
    modes = session.modes
    if modes is not None:
        assert_type(modes.current_mode_id, str)
    assert_type(session.available_modes, list[acp.SessionMode])
    assert_type(session.config_options, list[acp.SessionConfigOption])
    assert_type(session.commands, list[acp.AvailableCommand])
    await session.set_config_option("model", "fast")
    await session.set_config_option("yolo", True)
    assert_type(state.usage, acp.UsageUpdate | None)
    assert_type(state.info, acp.SessionInfoUpdate | None)
    assert_type(state.notices, list[acp.Notice])
    assert_type(state.plans, dict[str, acp.PlanUpdateContent])
    assert_type(state.compactions, dict[str, acp.CompactionUpdate])
    assert_type(state.activity, acp.SessionUpdate | None)
    assert_type(state.config_options, list[acp.SessionConfigOption])
    assert_type(state.commands, list[acp.AvailableCommand])
    assert_type(state.status, str | None)
    assert_type(state.stop_reason, str | None)
    for message in state.messages:
        assert_type(message.meta, Any)  # a message's `_meta` is any JSON
    server = acp.McpServerStdio(name="x", command="/bin/x", args=[], env=[])
    await Session.new(conn, "/tmp", [server])
    await Session.new(conn, "/tmp", [{"name": "y", "command": "/bin/y", "args": [], "env": []}])
    await Session.load(conn, "s", "/tmp", [server], additionalDirectories=["/b"])
    update = acp.Decoder[acp.SessionUpdate](acp.SessionUpdate).decode(data)
    assert_type(update, acp.SessionUpdate)
    if isinstance(update, acp.SessionUpdateAgentMessageChunk):
        assert_type(update.content, acp.ContentBlock)
    anything = acp.decode(data, acp.SessionUpdate)
    if isinstance(anything, acp.ToolCall):
        assert_type(anything.title, str)
    assert_type(acp.decode(data, acp.PromptResponse), acp.PromptResponse)
    async with connect_agent(url, acp.ClientHandler()) as remote:
        assert_type(remote, ClientSideConnection[acp.AgentProxy])
    async with connect_agent(url, None) as bare:
        assert_type(bare, ClientSideConnection[acp.AgentProxy])
    versions = ClientVersions(ClientRoute(1, acp, acp.ClientHandler()))
    async with connect_agent(url, versions) as negotiated:  # its package: known at run time
        assert_type(negotiated, ClientSideConnection[Any])


class Client2(acp2.ClientHandler):
    pass


async def client_v2(url: str) -> None:
    async with connect_agent(url, Client2(), schema=acp2) as conn:
        assert_type(conn, ClientSideConnection[acp2.AgentProxy])
        session = await Session.new(conn, "/tmp")
        outcome = await session.prompt([acp2.TextContent(text="hi")])
        reason: str | None = outcome.stop_reason
        assert_type(outcome.response, acp2.PromptResponse)
        for call in session.state.tool_calls.values():
            assert_type(call, acp2.SessionUpdateToolCallUpdate)
        print(reason)
        state = session.state
        assert_type(outcome.idle, acp2.SessionUpdate | None)
        assert_type(outcome.usage, acp2.Usage | None)
        assert_type(state.terminals, dict[str, acp2.TerminalUpdate])
        assert_type(state.background, Sequence[acp2.BackgroundWork] | None)
        assert_type(state.usage, acp2.UsageUpdate | None)
        assert_type(state.plans, dict[str, acp2.PlanUpdateContent])
        assert_type(session.config_options, list[acp2.SessionConfigOption])
        await session.set_config_option("model", "fast")
        await Session.new(conn, "/tmp", [acp2.McpServerStdio(name="x", command="/bin/x", args=[])])
