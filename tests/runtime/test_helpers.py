"""Agent-side helpers (`acp_runtime.helpers`), over an in-memory pair with a client that keeps
files and terminals in memory; the client folds the session with `Session`."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

import pytest

import acp_schema as acp
from acp_runtime import AgentSideConnection, CapabilityError, ClientSideConnection, memory_pipe
from acp_runtime.helpers import AgentSession
from acp_runtime.session import Session

from .helpers import CWD, Agent, initialize_request

Script = Callable[[AgentSession], Awaitable[Any]]
ALL = {
    "fs": acp.FileSystemCapabilities(read_text_file=True, write_text_file=True),
    "terminal": True,
}


class ScriptedAgent(Agent):
    """Runs the test's script as its session/prompt; what the script returns is kept, and so is
    what it raised (`run` then checks it), pytest's own failures included, so that a failed
    `pytest.raises` inside a script reaches the test."""

    script: Script

    def __init__(self, conn: AgentSideConnection) -> None:
        super().__init__(conn)
        self.result: Any = None
        self.error: BaseException | None = None

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        try:
            self.result = await self.script(AgentSession(self.conn, params.session_id))
        except (Exception, pytest.fail.Exception) as exc:
            self.error = exc
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


class MemoryClient(acp.ClientHandler):
    """Files in a dict; terminals that 'run' at once with fixed output; a permission answer."""

    def __init__(self, permission: str | None = "allow") -> None:
        self.files = {"/work/project/a.txt": "alpha\n"}
        self.terminals: dict[str, str] = {}  # id -> "live" | "released"
        self.permission = permission
        self.asked: list[acp.RequestPermissionRequest] = []

    async def fs_read_text_file(self, params: acp.ReadTextFileRequest) -> acp.ReadTextFileResponse:
        return acp.ReadTextFileResponse(content=self.files[params.path])

    async def fs_write_text_file(
        self, params: acp.WriteTextFileRequest
    ) -> acp.WriteTextFileResponse:
        self.files[params.path] = params.content
        return acp.WriteTextFileResponse()

    async def session_request_permission(
        self, params: acp.RequestPermissionRequest
    ) -> acp.RequestPermissionResponse:
        self.asked.append(params)
        if self.permission is None:
            return acp.RequestPermissionResponse(outcome=acp.RequestPermissionOutcomeCancelled())
        return acp.RequestPermissionResponse(
            outcome=acp.SelectedPermissionOutcome(option_id=self.permission)
        )

    async def terminal_create(
        self, params: acp.CreateTerminalRequest
    ) -> acp.CreateTerminalResponse:
        terminal_id = f"t{len(self.terminals)}"
        self.terminals[terminal_id] = "live"
        return acp.CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(
        self, params: acp.TerminalOutputRequest
    ) -> acp.TerminalOutputResponse:
        return acp.TerminalOutputResponse(output="2 passed\n", truncated=False)

    async def terminal_wait_for_exit(
        self, params: acp.WaitForTerminalExitRequest
    ) -> acp.WaitForTerminalExitResponse:
        return acp.WaitForTerminalExitResponse(exit_code=0)

    async def terminal_release(
        self, params: acp.ReleaseTerminalRequest
    ) -> acp.ReleaseTerminalResponse:
        self.terminals[params.terminal_id] = "released"
        return acp.ReleaseTerminalResponse()


async def run(
    script: Script,
    client: Any = None,
    *,
    raises: type[BaseException] | None = None,
    **capabilities: Any,
) -> tuple[ScriptedAgent, Session, Any]:
    """Prompt once with `script` as the agent's turn; the agent handler, the folded session and
    the client handler. The script must raise nothing, or exactly `raises` when given: anything
    else fails the test, naming what the script raised."""
    client = client or MemoryClient()
    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    handlers: list[ScriptedAgent] = []

    def make(conn: AgentSideConnection) -> ScriptedAgent:
        handler = ScriptedAgent(conn)
        handler.script = script
        handlers.append(handler)
        return handler

    AgentSideConnection(make, agent_in, agent_out)
    conn = ClientSideConnection(client, client_in, client_out)
    await conn.agent.initialize(initialize_request(**capabilities))
    session = await Session.new(conn, CWD)
    await session.prompt("go")
    agent = handlers[0]
    check_raised(agent.error, raises)
    return agent, session, client


def check_raised(error: BaseException | None, expected: type[BaseException] | None) -> None:
    if expected is None:
        if error is not None:
            pytest.fail(f"the agent's script raised {type(error).__name__}: {error}")
    elif type(error) is not expected:
        raised = "nothing" if error is None else f"{type(error).__name__}: {error}"
        pytest.fail(f"the agent's script should raise {expected.__name__}, it raised {raised}")


async def test_say_think_and_plan_arrive_as_their_updates() -> None:
    async def script(s: AgentSession) -> None:
        await s.think("hmm")
        await s.say("hello ")
        await s.say(acp.TextContent(text="world"))
        await s.plan([("read", "completed"), ("fix", "in_progress", "high")])

    _, session, _ = await run(script)
    assert session.state.text() == "hello world" and session.state.text("thought") == "hmm"
    assert [(e.content, e.status.value, e.priority.value) for e in session.state.plan] == [
        ("read", "completed", "medium"),
        ("fix", "in_progress", "high"),
    ]


async def test_a_tool_call_block_reports_in_progress_then_completed() -> None:
    async def script(s: AgentSession) -> None:
        async with s.tool_call("Edit a.txt", kind="edit") as call:
            await call.add_diff("/work/project/a.txt", "beta\n", "alpha\n")

    _, session, _ = await run(script)
    (call,) = session.state.tool_calls.values()
    assert call.title == "Edit a.txt" and call.kind == acp.ToolKind.EDIT
    assert call.status == acp.ToolCallStatus.COMPLETED
    assert isinstance(call.content[0], acp.Diff) and call.content[0].old_text == "alpha\n"
    assert call.locations[0].path == "/work/project/a.txt"


async def test_a_tool_call_block_that_raises_is_reported_failed_and_the_error_goes_on() -> None:
    async def script(s: AgentSession) -> None:
        async with s.tool_call("Compile"):
            raise RuntimeError("compiler missing")

    agent, session, _ = await run(script, raises=RuntimeError)
    (call,) = session.state.tool_calls.values()
    assert call.status == acp.ToolCallStatus.FAILED and call.raw_output == {
        "error": "compiler missing"
    }
    assert str(agent.error) == "compiler missing"


async def test_ask_permission_returns_the_chosen_option() -> None:
    async def script(s: AgentSession) -> Any:
        async with s.tool_call("Write b.txt", kind="edit") as call:
            return await s.ask_permission(call)

    agent, _, client = await run(script)
    assert (
        agent.result.option_id == "allow"
        and agent.result.kind == acp.PermissionOptionKind.ALLOW_ONCE
    )
    assert client.asked[0].tool_call.title == "Write b.txt"


async def test_ask_permission_returns_none_when_cancelled() -> None:
    async def script(s: AgentSession) -> Any:
        return await s.ask_permission({"toolCallId": "c1", "title": "Delete everything"})

    agent, _, _ = await run(script, MemoryClient(permission=None))
    assert agent.result is None and agent.error is None


async def test_files_are_read_and_written_through_the_client() -> None:
    async def script(s: AgentSession) -> Any:
        before = await s.read_file("/work/project/a.txt")
        await s.write_file("/work/project/a.txt", before.upper())
        return before

    agent, _, client = await run(script, **ALL)
    assert agent.result == "alpha\n" and client.files["/work/project/a.txt"] == "ALPHA\n"


async def test_files_and_terminals_the_client_did_not_offer_are_refused_before_sending() -> None:
    async def script(s: AgentSession) -> Any:
        offers = [
            s.client_offers(m)
            for m in ("fs/read_text_file", "fs/write_text_file", "terminal/create")
        ]
        with pytest.raises(CapabilityError):
            await s.read_file("/work/project/a.txt")
        with pytest.raises(CapabilityError):
            async with s.terminal("ls"):
                pass
        return offers

    agent, _, _ = await run(script)
    assert agent.result == [False, False, False] and agent.error is None


async def test_client_offers_says_yes_for_what_the_client_advertised() -> None:
    async def script(s: AgentSession) -> Any:
        return [
            s.client_offers(m)
            for m in ("fs/read_text_file", "fs/write_text_file", "terminal/create")
        ]

    agent, _, _ = await run(script, **ALL)
    assert agent.result == [True, True, True]


async def test_a_terminal_runs_and_is_released() -> None:
    async def script(s: AgentSession) -> Any:
        async with s.terminal("pytest", ["-q"], cwd=CWD, env={"CI": "1"}) as term:
            return term.id, (await term.wait_for_exit()).exit_code, (await term.output()).output

    agent, _, client = await run(script, **ALL)
    assert agent.result == ("t0", 0, "2 passed\n") and client.terminals == {"t0": "released"}


async def test_a_terminal_is_released_when_the_block_raises() -> None:
    async def script(s: AgentSession) -> None:
        async with s.terminal("pytest"):
            raise asyncio.TimeoutError

    agent, _, client = await run(script, raises=asyncio.TimeoutError, **ALL)
    assert client.terminals == {"t0": "released"}


async def test_tool_call_paths_must_be_absolute() -> None:
    async def script(s: AgentSession) -> None:
        async with s.tool_call("Edit", locations=[{"path": "relative.txt"}]):
            pass

    agent, session, _ = await run(script, raises=CapabilityError)
    assert "must be an absolute path, got 'relative.txt'" in str(agent.error)
    assert not session.state.tool_calls


async def test_run_fails_the_test_naming_what_the_script_raised() -> None:
    async def script(s: AgentSession) -> None:
        raise LookupError("planted")

    with pytest.raises(pytest.fail.Exception, match="script raised LookupError: planted"):
        await run(script)
    with pytest.raises(pytest.fail.Exception, match="should raise KeyError, it raised LookupError"):
        await run(script, raises=KeyError)

    async def quiet(s: AgentSession) -> None:
        await s.say("fine")

    with pytest.raises(pytest.fail.Exception, match="should raise KeyError, it raised nothing"):
        await run(quiet, raises=KeyError)
