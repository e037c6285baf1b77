"""An ACP client that shows a session's folded state as the turn runs.

    python examples/watch_client.py [--yes] --prompt TEXT -- AGENT_CMD [ARGS...]

It offers the agent this machine's files and terminals (local processes) and asks on stdin before
allowing a tool call (`--yes` allows them all). To an agent that advertises `mcpCapabilities.acp`
it also offers an MCP server of its own over the ACP connection (MCP over ACP, with the `mcp`
extra): "notes", one tool `note` (written with the official `mcp` SDK) that prints what it is
given as `   note: TEXT`. After each update it prints the part of the
session's state that changed: the plan, a tool call (its status, diffs and terminals), the mode;
the agent's text streams as it comes. Exit status as examples/client.py: 0, 3 when the turn ended
cancelled or refused, 1 on errors.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from pathlib import Path
from typing import Any, AsyncIterator

import acp_schema as acp
from acp_runtime import spawn_agent
from acp_runtime.mcp import McpProvider, agent_accepts_acp_servers
from acp_runtime.session import Session, SessionState

MARKS = {"pending": " ", "in_progress": ">", "completed": "x", "failed": "!"}
Running = tuple[asyncio.subprocess.Process, bytearray, "asyncio.Task[None]"]  # a terminal


class LocalClient(acp.ClientHandler):
    """Files and processes of this machine, for the agent."""

    def __init__(self, conn: Any, yes: bool) -> None:
        self.yes = yes
        self.terminals: dict[str, Running] = {}
        self.mcp = McpProvider(conn)  # the MCP servers offered over ACP (`notes`)

    async def mcp_message(self, params: acp.MessageMcpRequest) -> acp.MessageMcpResponse:
        answer: acp.MessageMcpResponse = await self.mcp.mcp_message(params)
        return answer

    async def fs_read_text_file(self, params: acp.ReadTextFileRequest) -> acp.ReadTextFileResponse:
        lines = Path(params.path).read_text().splitlines(keepends=True)[(params.line or 1) - 1 :]
        return acp.ReadTextFileResponse(
            content="".join(lines[: params.limit] if params.limit else lines)
        )

    async def fs_write_text_file(
        self, params: acp.WriteTextFileRequest
    ) -> acp.WriteTextFileResponse:
        Path(params.path).write_text(params.content)
        return acp.WriteTextFileResponse()

    async def session_request_permission(
        self, params: acp.RequestPermissionRequest
    ) -> acp.RequestPermissionResponse:
        allow = next(
            (o for o in params.options if o.kind == acp.PermissionOptionKind.ALLOW_ONCE), None
        )
        question = f"allow {params.tool_call.title}? [y/N] "
        if allow and (
            self.yes or (await asyncio.to_thread(input, question)).strip().lower() == "y"
        ):
            print(f"   allowed: {params.tool_call.title}")
            return acp.RequestPermissionResponse(
                outcome=acp.SelectedPermissionOutcome(option_id=allow.option_id)
            )
        return acp.RequestPermissionResponse(outcome=acp.RequestPermissionOutcomeCancelled())

    async def terminal_create(
        self, params: acp.CreateTerminalRequest
    ) -> acp.CreateTerminalResponse:
        env = {**os.environ, **{v.name: v.value for v in params.env or []}}
        pipe, out = asyncio.subprocess.PIPE, asyncio.subprocess.STDOUT
        args = (params.command, *(params.args or []))
        cwd = params.cwd if isinstance(params.cwd, str) else None
        proc = await asyncio.create_subprocess_exec(
            *args, cwd=cwd, env=env, stdout=pipe, stderr=out
        )
        output, terminal_id = bytearray(), f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = (
            proc,
            output,
            asyncio.create_task(self._collect(proc, output)),
        )
        return acp.CreateTerminalResponse(terminal_id=terminal_id)

    async def _collect(self, proc: asyncio.subprocess.Process, output: bytearray) -> None:
        while chunk := await proc.stdout.read(65536):  # type: ignore[union-attr]
            output += chunk

    async def terminal_output(
        self, params: acp.TerminalOutputRequest
    ) -> acp.TerminalOutputResponse:
        proc, output, _ = self.terminals[params.terminal_id]
        status = (
            None if proc.returncode is None else acp.TerminalExitStatus(exit_code=proc.returncode)
        )
        return acp.TerminalOutputResponse(
            output=output.decode(errors="replace"), truncated=False, exit_status=status
        )

    async def terminal_wait_for_exit(
        self, params: acp.WaitForTerminalExitRequest
    ) -> acp.WaitForTerminalExitResponse:
        proc, _, collecting = self.terminals[params.terminal_id]
        await collecting
        return acp.WaitForTerminalExitResponse(exit_code=await proc.wait())

    async def terminal_kill(self, params: acp.KillTerminalRequest) -> acp.KillTerminalResponse:
        self.terminals[params.terminal_id][0].kill()
        return acp.KillTerminalResponse()

    async def terminal_release(
        self, params: acp.ReleaseTerminalRequest
    ) -> acp.ReleaseTerminalResponse:
        proc, _, _ = self.terminals.pop(params.terminal_id)
        if proc.returncode is None:
            proc.kill()
        return acp.ReleaseTerminalResponse()


def show(state: SessionState, update: object) -> None:
    """Print the part of the state this update changed."""
    if isinstance(update, acp.SessionUpdateAgentMessageChunk) and isinstance(
        update.content, acp.TextContent
    ):
        print(f"   agent: {update.content.text.rstrip()}")
    elif isinstance(update, acp.Plan):
        print(
            "   plan: "
            + "  ".join(f"[{MARKS.get(e.status.value, '?')}] {e.content}" for e in state.plan)
        )
    elif isinstance(update, (acp.ToolCall, acp.SessionUpdateToolCallUpdate)):
        call = state.tool_calls[update.tool_call_id]
        status = call.status.value if isinstance(call.status, acp.ToolCallStatus) else "?"
        parts = ", ".join(map(describe, call.content or []))
        print(f"   tool: {call.title} [{status}] {parts}".rstrip())
    elif isinstance(update, acp.CurrentModeUpdate):
        print(f"   mode: {state.current_mode_id}")


def describe(content: object) -> str:
    """A tool call's content item in a few words."""
    if isinstance(content, acp.Diff):
        old, new = (content.old_text or "").count("\n"), content.new_text.count("\n")
        return f"diff {content.path} (-{old} +{new} lines)"
    return f"terminal {content.terminal_id}" if isinstance(content, acp.Terminal) else "content"


@contextlib.asynccontextmanager
async def offered_notes(conn: Any) -> AsyncIterator[list[Any]]:
    """The `mcpServers` of the session: the `notes` server to an agent that takes `acp` ones (and
    when the `mcp` extra is installed), else none."""
    try:
        import mcp.types as types
        from mcp.server import Server

        from acp_runtime.mcp.sdk import serve_mcp_server
    except ImportError:
        yield []
        return
    if not agent_accepts_acp_servers(conn.peer_capabilities):
        yield []
        return

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        text = {"type": "object", "properties": {"text": {"type": "string"}}}
        note = types.Tool(name="note", description="Show the user a note", input_schema=text)
        return types.ListToolsResult(tools=[note])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = str((params.arguments or {}).get("text", ""))
        print(f"   note: {text}")
        return types.CallToolResult(content=[types.TextContent(type="text", text="noted")])

    notes: Server[Any] = Server("notes", on_list_tools=list_tools, on_call_tool=call_tool)
    async with serve_mcp_server(conn.handler.mcp, "notes", notes) as registration:
        yield [registration.declaration]


async def run(prompt: str, command: list[str], yes: bool) -> int:
    async with spawn_agent(lambda conn: LocalClient(conn, yes), command[0], *command[1:]) as conn:
        fs = acp.FileSystemCapabilities(read_text_file=True, write_text_file=True)
        await conn.agent.initialize(
            acp.InitializeRequest(
                protocol_version=1, client_capabilities=acp.ClientCapabilities(fs=fs, terminal=True)
            )
        )
        async with offered_notes(conn) as servers:
            return await watch(conn, prompt, servers)


async def watch(conn: Any, prompt: str, servers: list[Any]) -> int:
    session = await Session.new(conn, os.getcwd(), servers)
    turn = asyncio.ensure_future(session.prompt(prompt))
    async for update in session.updates():
        show(session.state, update)
    outcome = await turn
    print(f"stop: {outcome.stop_reason}")
    return 3 if outcome.stop_reason in ("cancelled", "refusal") else 0


def main() -> int:
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(
        prog="watch_client.py", usage=(__doc__ or "").splitlines()[2].strip()
    )
    parser.add_argument("--prompt", required=True)
    parser.add_argument("--yes", action="store_true", help="allow every tool call without asking")
    args = parser.parse_args(argv[:split])
    if not argv[split + 1 :]:
        parser.error("missing AGENT_CMD after --")
    try:
        return asyncio.run(run(args.prompt, argv[split + 1 :], args.yes))
    except (acp.RpcError, OSError, ConnectionError) as err:
        print(f"error: {err!r}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
