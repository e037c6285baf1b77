"""Misuse of the friendly layer (AgentSession, Session, connect_agent, decode), v1 and v2: each
marked line is reported by both checkers, with that error."""

from __future__ import annotations

import acp_schema as acp
import acp_schema_v2 as acp2
from acp_runtime import AgentSideConnection, ClientSideConnection
from acp_runtime.helpers import AgentSession
from acp_runtime.http import connect_agent
from acp_runtime.session import Session


async def agent_side(conn: AgentSideConnection, conn2: AgentSideConnection[acp2.ClientProxy]) -> None:
    session = AgentSession(conn, "s")
    await session.say(42)  # error: mypy[arg-type] pyright[reportArgumentType]
    await session.think(acp.PlanEntry(content="x", priority=acp.PlanEntryPriority.LOW, status=acp.PlanEntryStatus.PENDING))  # error: mypy[arg-type] pyright[reportArgumentType]
    await session.plan([acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)])  # error: mypy[list-item] pyright[reportArgumentType]
    session.tool_call("Read", kind="raed")  # error: mypy[arg-type] pyright[reportArgumentType]
    async with session.tool_call("Read", kind="read") as call:
        (await session.ask_permission(call)).optoin_id  # error: mypy[union-attr] pyright[reportAttributeAccessIssue,reportOptionalMemberAccess]
    await session.send(acp.PromptResponse(stop_reason=acp.StopReason.END_TURN))  # error: mypy[arg-type] pyright[reportArgumentType]
    async with session.terminal("pytest") as term:
        output: bytes = (await term.output()).output  # error: mypy[assignment] pyright[reportAssignmentType]
        (await term.wait_for_exit()).exit_status  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]

    async def work() -> int:
        return 0

    await session.turn([acp.TextContent(text="hi")], work)  # error: mypy[arg-type] pyright[reportArgumentType]

    async def done() -> str:
        return "end_turn"

    await session.turn([acp.TextContent(text="hi")], done)  # error: mypy[arg-type] pyright[reportArgumentType]

    async def ended() -> acp.StopReason:
        return acp.StopReason.END_TURN

    answer: int = await session.turn([acp.TextContent(text="hi")], ended)  # error: mypy[assignment] pyright[reportAssignmentType]
    session2 = AgentSession(conn2, "s")
    session2.tool_call("Read", kind="raed")  # error: mypy[arg-type] pyright[reportArgumentType]
    await session2.say(acp.TextContent(text="a v1 block"))  # error: mypy[arg-type] pyright[reportArgumentType]
    async with session.tool_call("Edit") as edit:
        await edit.update(status="complted")  # error: mypy[arg-type] pyright[reportArgumentType]
        await edit.update(kind="raed")  # error: mypy[arg-type] pyright[reportArgumentType]
        await edit.update(title=42)  # error: mypy[arg-type] pyright[reportArgumentType]
        await edit.update(content=[acp.TextContent(text="a block, not tool call content")])  # error: mypy[list-item] pyright[reportArgumentType]
        await edit.update(locations=["/a"])  # error: mypy[list-item] pyright[reportArgumentType]
        edit.content[0].path  # error: mypy[union-attr] pyright[reportAttributeAccessIssue]
    async with session2.tool_call("Edit") as edit2:
        await edit2.update(content=[acp.Content(content=acp.TextContent(text="v1"))])  # error: mypy[list-item] pyright[reportArgumentType]
    await session.state("idle", "end_turn")  # error: mypy[misc] pyright[reportAttributeAccessIssue]
    await session2.state("idle", "end_turn", usage=42)  # error: mypy[arg-type] pyright[reportArgumentType]
    await session2.state("running", background=[42])  # error: mypy[list-item] pyright[reportArgumentType]
    await session.plan([("Read the code", "in_progres")])  # error: mypy[list-item] pyright[reportArgumentType]
    await session.plan([("Fix it", "pending", "hgh")])  # error: mypy[list-item] pyright[reportArgumentType]
    session.conn.client.fs_read_txt_file  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]


async def client_side(conn: ClientSideConnection, conn2: ClientSideConnection[acp2.AgentProxy], url: str, data: bytes) -> None:
    session = await Session.new(conn, "/tmp")
    await session.prompt(42)  # error: mypy[arg-type] pyright[reportArgumentType]
    outcome = await session.prompt([acp.PlanEntry(content="x", priority=acp.PlanEntryPriority.LOW, status=acp.PlanEntryStatus.PENDING)])  # error: mypy[list-item] pyright[reportArgumentType]
    for call in session.state.tool_calls.values():
        title: int = call.title  # error: mypy[assignment] pyright[reportAssignmentType]
    reason: int = outcome.stop_reason  # error: mypy[assignment] pyright[reportAssignmentType]
    session.state.plan[0].title  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
    outcome.response.message_id  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
    session.state.messages[0].content[0].text  # error: mypy[union-attr] pyright[reportAttributeAccessIssue]
    async for update in session.updates():
        update.content  # error: mypy[union-attr] pyright[reportAttributeAccessIssue]
    session2 = await Session.new(conn2, "/tmp")
    outcome2 = await session2.prompt("hi")
    reason2: acp.StopReason | None = outcome2.stop_reason  # error: mypy[assignment] pyright[reportAssignmentType]
    async with connect_agent(url, 42):  # error: mypy[call-overload] pyright[reportArgumentType,reportCallIssue]
        pass
    async with connect_agent(url, acp.ClientHandler(), schema=acp2):  # error: mypy[arg-type] pyright[reportArgumentType,reportCallIssue]
        pass
    acp.decode(data, acp.SessionUpdate).content  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
    acp.Decoder[acp.SessionUpdate](acp.SessionUpdate).decode(data).content  # error: mypy[union-attr] pyright[reportAttributeAccessIssue]
    AgentSession(conn, "s")  # error: mypy[call-overload] pyright[reportCallIssue,reportArgumentType]
    session.modes.current_mode_id  # error: mypy[union-attr] pyright[reportOptionalMemberAccess]
    session2.modes  # error: mypy[misc] pyright[reportAttributeAccessIssue]
    session.available_modes[0].title  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
    session.config_options[0].config_id  # error: mypy[union-attr] pyright[reportAttributeAccessIssue]
    session.commands[0].title  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
    await session.set_config_option("model", 42)  # error: mypy[arg-type] pyright[reportArgumentType]
    await Session.new(conn, "/tmp", [42])  # error: mypy[misc] pyright[reportCallIssue,reportArgumentType]
    session.state.usage.used  # error: mypy[union-attr] pyright[reportOptionalMemberAccess]
    session.state.terminals  # error: mypy[misc] pyright[reportAttributeAccessIssue]
    session.state.background  # error: mypy[misc] pyright[reportAttributeAccessIssue]
    session2.state.plans["p"].entries  # error: mypy[union-attr] pyright[reportAttributeAccessIssue]
    session.state.notices[0].mesage  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
    info: int = session.state.info  # error: mypy[assignment] pyright[reportAssignmentType]
    session2.state.terminals["t"].output.data  # error: mypy[union-attr] pyright[reportOptionalMemberAccess,reportAttributeAccessIssue]
    for work in session2.state.background or ():
        work.command  # error: mypy[union-attr] pyright[reportAttributeAccessIssue]
    session2.state.compactions["c"].summery  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
    outcome.usage.total_tokens  # error: mypy[union-attr] pyright[reportOptionalMemberAccess]
    outcome2.idle.stop_reason  # error: mypy[union-attr] pyright[reportAttributeAccessIssue,reportOptionalMemberAccess]
    session2.state.activity.stop_reason  # error: mypy[union-attr] pyright[reportAttributeAccessIssue,reportOptionalMemberAccess]
    count: int = session.id  # error: mypy[assignment] pyright[reportAssignmentType]
    await session.prompt("hi", timeout="5")  # error: mypy[arg-type] pyright[reportArgumentType]
    session.conn.agent.session_nwe  # error: mypy[attr-defined] pyright[reportAttributeAccessIssue]
