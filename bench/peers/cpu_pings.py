"""Round trips timed in CPU time: the ping of runtime_client.py, with each process's share.

python cpu_pings.py AGENT PINGS REPEATS

Spawns the agent script AGENT (a runtime_agent.py) and sends PINGS sequential `session/prompt`
pings REPEATS times after a warm-up. For each run it reports the wall time and the CPU time each
process spent on it (`/proc/<pid>/schedstat`, as cpu_client.py reads it: a busy machine stretches
the wall time, not the work), the voluntary context switches (wake-ups) and the kernel's share
(system time, in clock ticks) of each process. One JSON line.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from common import report
from cpu_client import CountingClient, child_pid, on_cpu_ns

import acp_schema as acp
from acp_runtime import run, spawn_agent


def wakeups(pid: int) -> int:
    """Voluntary context switches of the process's main thread (each one a sleep, then a wake)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("voluntary_ctxt_switches:"):
            return int(line.split()[1])
    raise SystemExit(f"no voluntary_ctxt_switches in /proc/{pid}/status")


def user_sys_s(pid: int) -> tuple[float, float]:
    """Seconds the process has spent in user space and in the kernel (in clock ticks: coarse)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


async def main(agent_script: str, pings: int, repeats: int) -> None:
    async with spawn_agent(CountingClient(), sys.executable, agent_script) as conn:
        agent = conn.agent
        await agent.initialize(acp.InitializeRequest(protocol_version=1))
        new = await agent.session_new(acp.NewSessionRequest(cwd="/", mcp_servers=[]))
        ping = acp.PromptRequest(session_id=new.session_id, prompt=[acp.TextContent(text="ping")])
        for _ in range(max(1, pings // 10)):  # warm-up
            await agent.session_prompt(ping)
        agent_pid, me = child_pid(), os.getpid()
        runs = []
        for _ in range(repeats):
            wall, mine, theirs = time.perf_counter(), on_cpu_ns(me), on_cpu_ns(agent_pid)
            my_wakes, their_wakes = wakeups(me), wakeups(agent_pid)
            my_times, their_times = user_sys_s(me), user_sys_s(agent_pid)
            for _ in range(pings):
                await agent.session_prompt(ping)
            runs.append(
                {
                    "wall_s": time.perf_counter() - wall,
                    "client_cpu_s": (on_cpu_ns(me) - mine) / 1e9,
                    "agent_cpu_s": (on_cpu_ns(agent_pid) - theirs) / 1e9,
                    "client_wakeups": wakeups(me) - my_wakes,
                    "agent_wakeups": wakeups(agent_pid) - their_wakes,
                    "client_sys_s": user_sys_s(me)[1] - my_times[1],
                    "agent_sys_s": user_sys_s(agent_pid)[1] - their_times[1],
                }
            )
    report({"pings": pings, "runs": runs})


if __name__ == "__main__":
    run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
