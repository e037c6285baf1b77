"""An ACP agent that does a realistic turn with no model behind it: it tidies one file.

    python examples/tidy_agent.py [--check COMMAND]

Prompt it with a file path (relative to the session's cwd): the prompt's first text block is the
path; later blocks (context a proxy adds, examples/context_proxy.py) are not read. It streams a
plan, reads the file through the client, shows the trailing whitespace it would strip as a tool
call with a diff, asks permission, writes the file through the client, then runs `COMMAND FILE`
(default `wc -l`) in a client terminal. It needs a client offering fs and terminals. When the
client offers an MCP server "notes" over ACP (MCP over ACP: examples/watch_client.py does), it
leaves a note there with its `note` tool before the turn ends.
"""

from __future__ import annotations

import argparse
import os
import shlex
import uuid

import acp_schema as acp
from acp_runtime import AgentSideConnection, run_agent
from acp_runtime.helpers import AgentSession
from acp_runtime.mcp import AcpServer, McpCaller


class TidyAgent(acp.AgentHandler):
    def __init__(self, conn: AgentSideConnection, check: list[str]) -> None:
        self.conn, self.check = conn, check
        self.cwd: dict[str, str] = {}
        self.mcp = McpCaller(conn, client_info={"name": "tidy-agent", "version": "0.1.0"})
        self.notes: dict[str, AcpServer] = {}  # the "notes" MCP server a session was offered

    async def mcp_message_notification(self, params: acp.MessageMcpNotification) -> None:
        await self.mcp.mcp_message_notification(params)

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        info = acp.Implementation(name="tidy-agent", version="0.1.0")
        return acp.InitializeResponse(
            protocol_version=1,
            agent_capabilities=acp.AgentCapabilities(
                mcp_capabilities=acp.McpCapabilities(acp=True)  # MCP servers over ACP
            ),
            agent_info=info,
        )

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        session_id = f"tidy-{uuid.uuid4().hex[:12]}"
        self.cwd[session_id] = params.cwd
        self.notes.update((session_id, s) for s in self.mcp.servers(params) if s.name == "notes")
        return acp.NewSessionResponse(session_id=session_id)

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        s = AgentSession(self.conn, params.session_id)
        needs = ("fs/read_text_file", "fs/write_text_file", "terminal/create")
        if not all(s.client_offers(method) for method in needs):
            await s.say("I need a client that offers file access and terminals.")
            return acp.PromptResponse(stop_reason=acp.StopReason.REFUSAL)
        texts = [b.text for b in params.prompt if isinstance(b, acp.TextContent)]
        name = texts[0].strip() if texts else ""
        path = os.path.join(self.cwd[params.session_id], name)
        steps = [f"Read {name}", "Strip trailing whitespace", f"Check with {self.check[0]}"]
        await s.plan([(step, "pending") for step in steps])

        async with s.tool_call(f"Read {name}", kind="read", locations=[{"path": path}]):
            old = await s.read_file(path)
        new = "".join(line.rstrip() + "\n" for line in old.splitlines())
        await s.plan([(steps[0], "completed"), (steps[1], "in_progress"), (steps[2], "pending")])

        if new == old:
            await s.say(f"{name} is already tidy.\n")
        else:
            async with s.tool_call(f"Tidy {name}", kind="edit") as edit:
                await edit.add_diff(path, new, old)
                choice = await s.ask_permission(edit)
                if choice is None or choice.option_id != "allow":
                    await edit.update(status="failed")
                    await s.say(f"Left {name} as it was.\n")
                    return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)
                await s.write_file(path, new)
        await s.plan([(steps[0], "completed"), (steps[1], "completed"), (steps[2], "in_progress")])

        async with s.tool_call(shlex.join([*self.check, name]), kind="execute") as run:
            async with s.terminal(self.check[0], [*self.check[1:], path]) as term:
                await run.add_terminal(term.id)
                status = await term.wait_for_exit()
                output = (await term.output()).output
        if params.session_id in self.notes:  # the client's own MCP tool, over ACP
            notes = self.mcp.session(self.notes[params.session_id])
            await notes.call_tool("note", {"text": f"tidied {name}"})
        await s.plan([(step, "completed") for step in steps])
        await s.say(f"Done: {self.check[0]} exited {status.exit_code}: {output.strip()}\n")
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", default="wc -l", help="command run on the file afterwards")
    args = parser.parse_args()
    run_agent(lambda conn: TidyAgent(conn, shlex.split(args.check)))


if __name__ == "__main__":
    main()
