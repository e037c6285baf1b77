"""The floors of a round trip, timed as cpu_pings.py times acp_runtime's (CPU time per process from
`/proc/<pid>/schedstat`, voluntary context switches), to say where a round trip's time goes.

python floor_pings.py raw|asyncio|asyncio-direct PINGS REPEATS

`raw`: blocking buffered pipes on both ends (`raw_agent.py`): two process wake-ups and four system
calls a round trip, nothing else. `asyncio`: an asyncio client writing a line and awaiting
`readline`, against `asyncio_agent.py` (a task per request; `asyncio-direct`: answered inline).
One JSON line, as cpu_pings.py's.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from typing import Any, Awaitable, Callable

import msgspec
from common import report
from cpu_client import on_cpu_ns
from cpu_pings import wakeups

HERE = os.path.dirname(os.path.abspath(__file__))
PING = msgspec.json.encode(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "session/prompt",
        "params": {"sessionId": "bench-session", "prompt": [{"type": "text", "text": "ping"}]},
    }
)


async def timed(
    ping: Callable[[], Awaitable[None]], agent_pid: int, pings: int, repeats: int
) -> Any:
    for _ in range(max(1, pings // 10)):  # warm-up
        await ping()
    me, runs = os.getpid(), []
    for _ in range(repeats):
        wall, mine, theirs = time.perf_counter(), on_cpu_ns(me), on_cpu_ns(agent_pid)
        my_wakes, their_wakes = wakeups(me), wakeups(agent_pid)
        for _ in range(pings):
            await ping()
        runs.append(
            {
                "wall_s": time.perf_counter() - wall,
                "client_cpu_s": (on_cpu_ns(me) - mine) / 1e9,
                "agent_cpu_s": (on_cpu_ns(agent_pid) - theirs) / 1e9,
                "client_wakeups": wakeups(me) - my_wakes,
                "agent_wakeups": wakeups(agent_pid) - their_wakes,
            }
        )
    return runs


async def raw(pings: int, repeats: int) -> Any:
    agent = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "raw_agent.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert agent.stdin is not None and agent.stdout is not None
    stdin, stdout, line = agent.stdin, agent.stdout, PING + b"\n"

    async def ping() -> None:  # blocking: no event loop turn in it
        stdin.write(line)
        stdin.flush()
        stdout.readline()

    runs = await timed(ping, agent.pid, pings, repeats)
    stdin.close()
    agent.wait()
    return runs


async def bare_asyncio(pings: int, repeats: int, *args: str) -> Any:
    agent = await asyncio.create_subprocess_exec(
        sys.executable,
        os.path.join(HERE, "asyncio_agent.py"),
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert agent.stdin is not None and agent.stdout is not None
    stdin, stdout, line = agent.stdin, agent.stdout, PING + b"\n"

    async def ping() -> None:
        stdin.write(line)
        await stdout.readline()

    runs = await timed(ping, agent.pid, pings, repeats)
    stdin.close()
    await agent.wait()
    return runs


async def main(kind: str, pings: int, repeats: int) -> None:
    if kind == "raw":
        runs = await raw(pings, repeats)
    elif kind in ("asyncio", "asyncio-direct"):
        runs = await bare_asyncio(pings, repeats, *(["task"] if kind == "asyncio" else []))
    else:
        raise SystemExit(f"unknown floor {kind!r}: raw, asyncio or asyncio-direct")
    report({"floor": kind, "pings": pings, "runs": runs})


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
