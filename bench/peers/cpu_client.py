"""The streaming client of `bench.ab`: runtime_client.py's stream, timed in CPU time and wall time.

python cpu_client.py AGENT STREAM_N REPEATS
(BENCH_SESSION=1: prompted through `acp_runtime.session.Session`, its fold attached)

Spawns the agent script AGENT (a runtime_agent.py) and has it stream STREAM_N agent_message_chunk
updates REPEATS times after a warm-up. For each stream it reports the wall time and the CPU time
each process spent on it, read from `/proc/<pid>/schedstat` (nanoseconds on a CPU, whatever the
load of the machine: a busy machine stretches the wall time, not the work), and the time the
client's garbage collector took (collections by generation and seconds). One JSON line.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from pathlib import Path

from common import report

import acp_schema as acp
from acp_runtime import run, spawn_agent
from acp_runtime.session import Session


def on_cpu_ns(pid: int) -> int:
    """Nanoseconds the process's main thread has run on a CPU."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


def child_pid() -> int:
    """The one child process of this one (the agent)."""
    me = os.getpid()
    children = Path(f"/proc/{me}/task/{me}/children").read_text().split()
    if len(children) != 1:
        raise SystemExit(f"expected one child process (the agent), found {children}")
    return int(children[0])


class Collections:
    """The client's garbage collections (`gc.callbacks`): how many of each generation, and the time
    they took."""

    def __init__(self) -> None:
        self.counts = [0, 0, 0]
        self.seconds = 0.0
        self._start = 0.0
        gc.callbacks.append(self.on_collection)

    def on_collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.counts[info["generation"]] += 1
            self.seconds += time.perf_counter() - self._start

    def since(self, counts: list[int], seconds: float) -> dict[str, object]:
        return {
            "collections": [a - b for a, b in zip(self.counts, counts, strict=True)],
            "seconds": self.seconds - seconds,
        }


class CountingClient(acp.ClientHandler):
    def __init__(self) -> None:
        self.count = 0

    async def session_update(self, params: acp.SessionNotification) -> None:
        self.count += 1


async def main(agent_script: str, stream_n: int, repeats: int) -> None:
    client = CountingClient()
    async with spawn_agent(client, sys.executable, agent_script) as conn:
        agent = conn.agent
        await agent.initialize(acp.InitializeRequest(protocol_version=1))
        if os.environ.get("BENCH_SESSION") == "1":  # the Session fold attached
            session = await Session.new(conn, "/")

            async def prompt(text: str) -> None:
                await session.prompt(text)

        else:
            new = await agent.session_new(acp.NewSessionRequest(cwd="/", mcp_servers=[]))

            async def prompt(text: str) -> None:
                await agent.session_prompt(
                    acp.PromptRequest(
                        session_id=new.session_id, prompt=[acp.TextContent(text=text)]
                    )
                )

        async def stream(n: int) -> None:
            client.count = 0
            await prompt(f"stream {n}")
            if client.count != n:
                raise SystemExit(f"the client handled {client.count} chunks of {n}")

        await stream(max(1, stream_n // 10))  # warm-up
        agent_pid, me = child_pid(), os.getpid()
        runs = []
        collections = Collections()
        for _ in range(repeats):
            gc_counts, gc_seconds = list(collections.counts), collections.seconds
            wall, mine, theirs = time.perf_counter(), on_cpu_ns(me), on_cpu_ns(agent_pid)
            await stream(stream_n)
            runs.append(
                {
                    "wall_s": time.perf_counter() - wall,
                    "client_cpu_s": (on_cpu_ns(me) - mine) / 1e9,
                    "agent_cpu_s": (on_cpu_ns(agent_pid) - theirs) / 1e9,
                    "client_gc": collections.since(gc_counts, gc_seconds),
                }
            )
    report({"stream_n": stream_n, "runs": runs})


if __name__ == "__main__":
    run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
