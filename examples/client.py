"""A minimal ACP client: spawn an agent, open a session, send one prompt, print the answer.

    python examples/client.py [--prompt TEXT] -- AGENT_CMD [ARGS...]
    python examples/client.py [--prompt TEXT] [--http2] --url URL

Prints the agent's name and version, then the text of each agent_message_chunk as it arrives. A
permission request is printed and answered with the first allow_once option (cancelled when there
is none). Exits 0 when the turn ends; an error is printed as one line on stderr, with exit 1.
`--url` talks to a remote agent instead: `http(s)://` over Streamable HTTP (`--http2`: h2c on
`http://`), `ws(s)://` over WebSocket (needs the `http` extra).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from contextlib import AbstractAsyncContextManager

import acp_schema as acp
from acp_runtime import AcpRuntimeError, ClientSideConnection, spawn_agent


class PrintingClient(acp.ClientHandler):
    def __init__(self) -> None:
        self.mid_line = False  # streamed text is printed as it comes, without newlines of our own

    def end_line(self) -> None:
        if self.mid_line:
            print(flush=True)
            self.mid_line = False

    async def session_update(self, params: acp.SessionNotification) -> None:
        update = params.update
        if isinstance(update, acp.SessionUpdateAgentMessageChunk) and isinstance(update.content, acp.TextContent):
            print(update.content.text, end="", flush=True)
            self.mid_line = not update.content.text.endswith("\n")

    async def session_request_permission(self, params: acp.RequestPermissionRequest) -> acp.RequestPermissionResponse:
        self.end_line()
        title = params.tool_call.title or params.tool_call.tool_call_id
        print(f"permission requested: {title}", flush=True)
        for option in params.options:
            if option.kind == acp.PermissionOptionKind.ALLOW_ONCE:
                print(f"  -> allowing once: {option.name}", flush=True)
                return acp.RequestPermissionResponse(outcome=acp.SelectedPermissionOutcome(option_id=option.option_id))
        print("  -> no allow_once option: cancelled", flush=True)
        return acp.RequestPermissionResponse(outcome=acp.RequestPermissionOutcomeCancelled())


async def run(prompt: str | None, command: list[str], url: str | None = None, http2: bool = False) -> None:
    client = PrintingClient()
    opened: AbstractAsyncContextManager[ClientSideConnection]
    if url is not None:
        from acp_runtime.http import connect_agent

        opened = connect_agent(url, client, http2=http2 or None)
    else:
        opened = spawn_agent(client, command[0], *command[1:])
    async with opened as conn:
        init = await conn.agent.initialize(
            acp.InitializeRequest(
                protocol_version=1,
                client_capabilities=acp.ClientCapabilities(),  # no fs, no terminal
                client_info=acp.Implementation(name="acpgen-example-client", version="0.1.0"),
            )
        )
        info = init.agent_info
        print(f"agent: {info.name} {info.version}" if info else "agent: (no agentInfo)", flush=True)
        session = await conn.agent.session_new(acp.NewSessionRequest(cwd=os.getcwd(), mcp_servers=[]))
        if prompt is not None:
            await conn.agent.session_prompt(
                acp.PromptRequest(session_id=session.session_id, prompt=[acp.TextContent(text=prompt)])
            )
            client.end_line()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(prog="client.py")
    parser.add_argument("--prompt", help="text to send as one prompt")
    parser.add_argument("--url", help="a remote agent: http(s):// (Streamable HTTP) or ws(s):// (WebSocket)")
    parser.add_argument("--http2", action="store_true", help="with an http:// --url: HTTP/2 (h2c)")
    args = parser.parse_args(argv[:split])
    command = argv[split + 1 :]
    if args.url is None and not command:
        print("usage: client.py [--prompt TEXT] -- AGENT_CMD [ARGS...] | --url URL", file=sys.stderr)
        return 2
    try:
        asyncio.run(run(args.prompt, command, args.url, args.http2))
    except acp.RpcError as err:
        print(f"error: the agent answered {err.code}: {err.message}", file=sys.stderr)
        return 1
    except (AcpRuntimeError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
