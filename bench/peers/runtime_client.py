"""The benchmark client on acp_runtime: spawns runtime_agent.py, prints one JSON report.

python runtime_client.py STREAM_N PINGS REPEATS [BIG_BYTES]     (see common.py)

BENCH_SESSION=1 sets the session up with `acp_runtime.session.Session` and prompts through it, so
every update is also folded into the session's state (as a client showing the session does).
ACP_RUNTIME_LOOP (see `acp_runtime.run`) picks the event loop of both processes.
"""

from __future__ import annotations

import os
import sys

from common import pin, report, run_scenario

import acp_schema as acp
from acp_runtime import run, spawn_agent
from acp_runtime.session import Session

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtime_agent.py")


class CountingClient(acp.ClientHandler):
    def __init__(self) -> None:
        self.count = 0
        self.chars = 0

    async def session_update(self, params: acp.SessionNotification) -> None:
        self.count += 1
        self.chars = len(params.update.content.text)


async def main(argv: list[str]) -> None:
    client = CountingClient()
    async with spawn_agent(client, sys.executable, AGENT) as conn:
        agent = conn.agent
        await agent.initialize(acp.InitializeRequest(protocol_version=1))
        if os.environ.get("BENCH_SESSION") == "1":
            session = await Session.new(conn, "/")

            async def prompt(text: str) -> None:
                await session.prompt(text)
                if len(session.state.messages) > 1:
                    raise SystemExit("the session folded the chunks into more than one message")

        else:
            new = await agent.session_new(acp.NewSessionRequest(cwd="/", mcp_servers=[]))
            sid = new.session_id

            async def prompt(text: str) -> None:
                await agent.session_prompt(
                    acp.PromptRequest(session_id=sid, prompt=[acp.TextContent(text=text)])
                )

        async def stream(n: int) -> int:
            client.count = 0
            await prompt(f"stream {n}")
            return client.count

        async def ping() -> None:
            await prompt("ping")

        async def big(size: int) -> int:
            await prompt(f"big {size}")
            return client.chars

        result = await run_scenario(stream, ping, big, argv)
    report(result)


if __name__ == "__main__":
    pin("client")
    run(main(sys.argv[1:]))
