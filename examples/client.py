"""An ACP client: spawn an agent, open a session, send one prompt, print the answer as it streams.

    python examples/client.py [--protocol-version 1|2] [--prompt TEXT] -- AGENT_CMD [ARGS...]
    python examples/client.py [--protocol-version 1|2] [--prompt TEXT] [--http2] --url URL

Prints the agent's name, its text as it streams, then `stop: REASON`, the same in both protocol
versions (in v1 the stop reason is the prompt's answer; in v2 the session's idle state_update);
`--protocol-version 2` falls back to v1 with an agent that answers 1. A permission request is
printed and answered with the first allow_once option (cancelled when there is none).

Exit status: 0 when the turn ended (or no prompt was given); 3 when it ended `cancelled` or
`refusal`; 1 on an error, printed as one line on stderr with the agent's error data; 2 on bad
usage. When the output is closed early (`| head`), it cancels the turn and exits 0, quietly.
`--url` talks to a remote agent instead: `http(s)://` over Streamable HTTP (`--http2`: h2c on
`http://`), `ws(s)://` over WebSocket (needs the `http` extra).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from contextlib import AbstractAsyncContextManager
from typing import Any, Sequence

import acp_schema as acp
import acp_schema_v2 as acp2
from acp_runtime import AcpRuntimeError, wire
from acp_runtime.session import Session
from acp_runtime.versions import ClientRoute, ClientVersions

NOT_DONE = {"cancelled", "refusal"}  # stop reasons that exit 3
CLIENT_INFO = {"name": "acpgen-example-client", "version": "0.1.0"}


class Output:
    """stdout, which may close under us (`| head`): then everything else is dropped quietly."""

    closed = False
    mid_line = False

    def write(self, text: str, end: str = "\n") -> None:
        if self.closed:
            return
        try:
            if end and self.mid_line:
                text, self.mid_line = "\n" + text, False
            sys.stdout.write(text + end)
            sys.stdout.flush()
            self.mid_line = self.mid_line or (not end and not text.endswith("\n"))
        except BrokenPipeError:
            self.closed = True
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit


OUT = Output()


def answer_permission(package: Any, title: str, options: Sequence[Any]) -> Any:
    """Print the request and answer it with its first allow_once option (else cancelled)."""
    OUT.write(f"permission requested: {title}")
    allow = next((o for o in options if wire.get(o, "kind") == "allow_once"), None)
    OUT.write(
        f"  -> allowing once: {allow.name}" if allow else "  -> no allow_once option: cancelled"
    )
    outcome = (
        {"outcome": "selected", "optionId": allow.option_id} if allow else {"outcome": "cancelled"}
    )
    return wire.build(package, {"outcome": outcome}, package.RequestPermissionResponse)


class PermissionAsker(acp.ClientHandler):
    async def session_request_permission(
        self, params: acp.RequestPermissionRequest
    ) -> acp.RequestPermissionResponse:
        title = params.tool_call.title or params.tool_call.tool_call_id
        return answer_permission(acp, title, params.options)  # type: ignore[no-any-return]


class PermissionAskerV2(acp2.ClientHandler):
    async def session_request_permission(
        self, params: acp2.RequestPermissionRequest
    ) -> acp2.RequestPermissionResponse:
        return answer_permission(acp2, params.title, params.options)  # type: ignore[no-any-return]


async def run(
    prompt: str | None, command: list[str], url: str | None, http2: bool, version: int
) -> int:
    routes: list[ClientRoute[Any, Any]] = [
        ClientRoute(1, acp, PermissionAsker()),
        ClientRoute(2, acp2, PermissionAskerV2()),
    ]
    versions = ClientVersions(*routes[:version])  # asks for `version`, takes what the agent answers
    opened: AbstractAsyncContextManager[Any]
    if url is not None:
        from acp_runtime.http import connect_agent

        opened = connect_agent(url, versions, http2=http2 or None)
    else:
        opened = versions.spawn(command[0], *command[1:])
    async with opened as conn:
        init = (  # written for the latest version asked (a v1 agent reads it as v1)
            {"protocolVersion": 2, "info": CLIENT_INFO, "capabilities": {}}
            if version == 2
            else {"protocolVersion": 1, "clientInfo": CLIENT_INFO, "clientCapabilities": {}}
        )  # no fs, no terminal
        await conn.request("initialize", init)
        info = conn.agent_info
        OUT.write(f"agent: {info.name} {info.version}" if info else "agent: ?")
        session = await Session.new(conn, os.getcwd())
        if prompt is None:
            return 0
        turn = asyncio.ensure_future(session.prompt(prompt))
        async for update in session.updates():
            if wire.get(update, "sessionUpdate") == "agent_message_chunk":
                OUT.write(wire.get(update, "content", "text") or "", end="")
            if OUT.closed:
                await session.cancel()
        outcome = await turn
        OUT.write(f"stop: {outcome.stop_reason}")
        return 0 if OUT.closed else 3 if outcome.stop_reason in NOT_DONE else 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(prog="client.py")
    parser.add_argument("--prompt", help="text to send as one prompt")
    parser.add_argument("--protocol-version", type=int, choices=(1, 2), default=1)
    parser.add_argument("--url", help="a remote agent: http(s):// or ws(s)://")
    parser.add_argument("--http2", action="store_true", help="with an http:// --url: HTTP/2 (h2c)")
    args = parser.parse_args(argv[:split])
    command = argv[split + 1 :]
    if args.url is None and not command:
        parser.print_usage(sys.stderr)
        print("client.py: give the agent as -- AGENT_CMD [ARGS...], or --url URL", file=sys.stderr)
        return 2
    try:
        return asyncio.run(run(args.prompt, command, args.url, args.http2, args.protocol_version))
    except (acp.RpcError, acp2.RpcError) as err:
        error = err.to_error_object()
        data = f" (data: {json.dumps(error['data'])})" if "data" in error else ""
        print(f"error: the agent answered {err.code}: {err.message}{data}", file=sys.stderr)
    except (AcpRuntimeError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
