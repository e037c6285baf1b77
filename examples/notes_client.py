"""An ACP client for sessions that outlive the agent: each run starts the agent anew.

    python examples/notes_client.py [--cwd DIR] new [PROMPT] -- AGENT_CMD [ARGS...]
    python examples/notes_client.py [--cwd DIR] list -- AGENT_CMD [ARGS...]
    python examples/notes_client.py [--cwd DIR] load|resume SESSION_ID [PROMPT] -- AGENT_CMD ...

`new` opens a session in DIR (default: the current directory) and prints its id; `list` prints
every session the agent keeps for DIR, one `ID<TAB>TITLE` a line, walking every page of
`session/list`; `load` prints the history the agent replays (`user: ...`, `agent: ...`) as
`session/load` returns; `resume` replays nothing. Then PROMPT, when given, is sent and the answer
printed after `> `. With examples/notes_agent.py: docs/sessions.md.

Exit status: 0; 1 on an error answer, printed as one line on stderr (`session/load` of an id the
agent does not know: -32002); 2 on bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

import acp_schema as acp
from acp_runtime import AcpRuntimeError, ClientSideConnection, spawn_agent
from acp_runtime.session import Session


async def sessions(conn: ClientSideConnection[acp.AgentProxy], cwd: str) -> None:
    async for page in conn.pages("session/list", acp.ListSessionsRequest(cwd=cwd)):
        for info in page.sessions:  # the cursor of each page went back untouched
            print(f"{info.session_id}\t{info.title or ''}")


async def run(action: str, session_id: str, prompt: str | None, cwd: str, cmd: list[str]) -> None:
    async with spawn_agent(acp.ClientHandler(), *cmd) as conn:
        capabilities = acp.ClientCapabilities()
        await conn.agent.initialize(
            acp.InitializeRequest(protocol_version=1, client_capabilities=capabilities)
        )
        if action == "list":
            return await sessions(conn, cwd)
        if action == "new":
            session = await Session.new(conn, cwd)
            print(session.id)
        elif action == "load":
            session = await Session.load(conn, session_id, cwd)  # returns after the replay
            for message in session.state.messages:
                print(f"{message.role}: {message.text()}")
        else:
            session = await Session.resume(conn, session_id, cwd)  # nothing replayed
        if prompt is not None:
            await session.prompt(prompt)
            answer = session.state.messages[-1:]  # the agent's (v1 echoes no prompt)
            print("> " + "".join(message.text() for message in answer))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(prog="notes_client.py")
    parser.add_argument("--cwd", default=os.getcwd(), help="the sessions' directory")
    parser.add_argument("action", choices=("new", "list", "load", "resume"))
    parser.add_argument("words", nargs="*", help="load/resume: SESSION_ID; then PROMPT")
    args = parser.parse_args(argv[:split])
    words: list[str] = list(args.words)
    session_id = words.pop(0) if args.action in ("load", "resume") and words else ""
    prompt = words.pop(0) if words and args.action != "list" else None
    if words or not argv[split + 1 :] or (args.action in ("load", "resume") and not session_id):
        parser.print_usage(sys.stderr)
        return 2
    cwd = os.path.abspath(args.cwd)
    try:
        asyncio.run(run(args.action, session_id, prompt, cwd, argv[split + 1 :]))
    except acp.RpcError as err:
        print(f"error: the agent answered {err.code}: {err.message}", file=sys.stderr)
        return 1
    except (AcpRuntimeError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
