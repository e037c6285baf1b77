"""The benchmark client on the official Python SDK: spawns sdk_agent.py, prints one JSON report.

python sdk_client.py STREAM_N PINGS REPEATS [BIG_BYTES]     (see common.py)
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

import acp
from common import pin, report, run_scenario

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sdk_agent.py")


class CountingClient:
    def __init__(self) -> None:
        self.count = 0
        self.chars = 0
        self.target = -1
        self.reached = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.count += 1
        self.chars = len(update.content.text)
        if self.count == self.target:
            self.reached.set()


async def main(argv: list[str]) -> None:
    client = CountingClient()
    async with acp.spawn_agent_process(client, sys.executable, AGENT) as (conn, _process):  # type: ignore[arg-type]  # duck-typed, as the SDK allows
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd="/", mcp_servers=[])
        sid = session.session_id

        async def prompt(text: str, updates: int) -> None:
            # The SDK runs each incoming notification as its own task: the prompt's answer can
            # arrive before the last updates were handled, so also wait until all were.
            client.count, client.target = 0, updates
            client.reached.clear()
            await conn.prompt(session_id=sid, prompt=[acp.text_block(text)])
            if updates:
                await asyncio.wait_for(client.reached.wait(), 120)

        async def stream(n: int) -> int:
            await prompt(f"stream {n}", n)
            return client.count

        async def ping() -> None:
            await conn.prompt(session_id=sid, prompt=[acp.text_block("ping")])

        async def big(size: int) -> int:
            await prompt(f"big {size}", 1)
            return client.chars

        result = await run_scenario(stream, ping, big, argv)
    report(result)


if __name__ == "__main__":
    pin("client")
    asyncio.run(main(sys.argv[1:]))
