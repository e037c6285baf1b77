"""The client of the remote benchmark, on acp_runtime or on the official Python SDK 1.0.0rc3
(`sdk`: run it with the interpreter of .venv/acp-rc3, see bench/servers.py).

    python remote_client.py runtime|sdk http1|h2c|ws URL STREAM_N PINGS SERVER_PID

One connection to the agent at URL (bench/peers/many_agent.py, same implementation), one
session; after a warm-up, one prompt that streams STREAM_N agent_message_chunk updates (timed
until the client has handled every one), then PINGS prompts answered at once, one after another
(each a round trip). Prints one JSON line (see common.run_scenario) with the peak memory of this
process and the CPU time of both processes in each timed run (`client` is this process, `server`
the process SERVER_PID, read from /proc): on a busy machine the wall-clock rates move with the
load, the CPU time each side spends far less.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any, Awaitable, Callable

from common import maxrss_kb, report, run_scenario

WAIT_S = 120.0

Prompt = Callable[[str], Awaitable[None]]


class Counter:
    """Updates handled, and a wait until there are `target` of them."""

    def __init__(self) -> None:
        self.count = 0
        self.target = -1
        self.reached = asyncio.Event()

    def add(self) -> None:
        self.count += 1
        if self.count == self.target:
            self.reached.set()

    async def stream(self, prompt: Prompt, n: int) -> int:
        """Prompt `stream n` and wait for its n updates: over HTTP they and the prompt's answer
        may be handled in either order (the SDK handles each notification in a task of its own)."""
        self.count, self.target = 0, n
        self.reached.clear()
        await prompt(f"stream {n}")
        if n:
            await asyncio.wait_for(self.reached.wait(), WAIT_S)
        return self.count


async def runtime(mode: str, url: str, argv: list[str]) -> dict[str, Any]:
    import acp_schema as acp
    from acp_runtime.http import connect_agent

    counter = Counter()

    class CountingClient(acp.ClientHandler):
        async def session_update(self, params: acp.SessionNotification) -> None:
            counter.add()

    http2 = True if mode == "h2c" else None
    async with connect_agent(url, CountingClient(), http2=http2) as conn:
        agent = conn.agent
        await agent.initialize(acp.InitializeRequest(protocol_version=1))
        new = await agent.session_new(acp.NewSessionRequest(cwd="/", mcp_servers=[]))
        sid = new.session_id

        async def prompt(text: str) -> None:
            request = acp.PromptRequest(session_id=sid, prompt=[acp.TextContent(text=text)])
            await agent.session_prompt(request)

        return await _scenario(counter, prompt, argv)


async def sdk(mode: str, url: str, argv: list[str]) -> dict[str, Any]:
    import acp
    from acp.schema import TextContentBlock
    from many_client import sdk_transport

    counter = Counter()

    class CountingClient:
        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            counter.add()

    transport, client = await sdk_transport(mode, url)
    conn = acp.connect_to_agent(CountingClient(), transport)
    try:
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd="/", mcp_servers=[])).session_id

        async def prompt(text: str) -> None:
            await conn.prompt(session_id=sid, prompt=[TextContentBlock(text=text)])

        return await _scenario(counter, prompt, argv)
    finally:
        await conn.close()
        if client is not None:
            await client.aclose()


async def _scenario(counter: Counter, prompt: Prompt, argv: list[str]) -> dict[str, Any]:
    async def stream(n: int) -> int:
        return await counter.stream(prompt, n)

    async def ping() -> None:
        await prompt("ping")

    async def big(size: int) -> int:
        raise NotImplementedError("the remote benchmark sends no huge line")

    clocks = {"client": time.process_time, "server": server_cpu}
    result = await run_scenario(stream, ping, big, [*argv, "1"], clocks)  # one timed run of each
    result["maxrss_kb"] = maxrss_kb()
    return result


SERVER_PID = 0


def server_cpu() -> float:
    """CPU seconds the server process has used (user and system), to the nanosecond: its
    threads' time on a CPU from /proc/PID/task/*/schedstat (/proc/PID/stat counts clock ticks,
    10 ms each: a tenth of a round trip's CPU time over 1,000 round trips)."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{SERVER_PID}/task")
    except OSError:
        tasks = []
    for task in tasks:
        try:
            with open(f"/proc/{SERVER_PID}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended in between
    if total:
        return total / 1e9
    with open(f"/proc/{SERVER_PID}/stat") as f:  # no schedstat (a kernel without it)
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    impl, mode, url = sys.argv[1:4]
    SERVER_PID = int(sys.argv[6])
    main = {"runtime": runtime, "sdk": sdk}[impl]
    stream_n, pings = sys.argv[4:6]
    report(asyncio.run(main(mode, url, [stream_n, pings])))
