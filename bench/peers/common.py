"""What every benchmark client does the same way: warm up, time the runs, measure its own memory.

Clients are run as `python X_client.py STREAM_N PINGS REPEATS [BIG_BYTES]`. With STREAM_N > 0 they
time streaming and round trips; with BIG_BYTES > 0 (and STREAM_N = 0) they instead receive one
agent_message_chunk whose text is BIG_BYTES long and report the peak memory it took.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from typing import Any, Awaitable, Callable

BIG_LINE = 'line {:>9} of a huge "chunk" \\ with escapes and accents: é ü\n'


def pin(role: str) -> None:
    """Pin this process to its CPU when the bench asks (`BENCH_PIN="client_cpu,agent_cpu"`).

    Two processes talking over a pipe go much faster when the scheduler happens to put them on
    one CPU than on two; pinning makes every contender run under the same placement.
    """
    spec = os.environ.get("BENCH_PIN")
    if spec and hasattr(os, "sched_setaffinity"):
        cpus = [int(c) for c in spec.split(",")]
        os.sched_setaffinity(0, {cpus[0] if role == "client" else cpus[1]})


def chunk_line(session_id: str, text: str) -> bytes:
    """One agent_message_chunk notification as the floor agents write it: untyped, newline-ended.
    (msgspec is imported here: the official SDK's peers import this module in a venv without it.)"""
    import msgspec

    note = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": session_id,
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text},
            },
        },
    }
    return msgspec.json.encode(note) + b"\n"


def big_text(size: int) -> str:
    """Text of `size` characters, as the agents send it in the huge-line mode."""
    lines, total, i = [], 0, 0
    while total < size:
        line = BIG_LINE.format(i)
        lines.append(line)
        total += len(line)
        i += 1
    return "".join(lines)[:size]


def peak_kb(pid: int | str = "self") -> int | None:
    """Peak resident set size of process `pid` (this one by default), in KiB; None when it is gone.

    `VmHWM` of /proc/PID/status, not `getrusage(RUSAGE_SELF).ru_maxrss`: on Linux, exec carries
    the parent's peak over into the child's ru_maxrss, so a child of a big parent would report the
    parent's size. VmHWM belongs to the process's own address space, which exec starts afresh.
    """
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def maxrss_kb() -> int:
    """Peak resident set size of this process, in KiB (`peak_kb`, else getrusage's figure)."""
    own = peak_kb()
    return own if own is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


async def run_scenario(
    stream: Callable[[int], Awaitable[int]],
    ping: Callable[[], Awaitable[None]],
    big: Callable[[int], Awaitable[int]],
    argv: list[str],
    cpu: dict[str, Callable[[], float]] | None = None,
) -> dict[str, Any]:
    """`stream(n)` has the agent stream n chunks and returns how many the client handled;
    `ping()` is one request/response round trip; `big(size)` has the agent send one chunk of
    `size` characters and returns the length the client got. Warm-up first, then timed runs.
    `cpu`: clocks of CPU seconds (name -> clock) also read around each timed run, reported as
    `stream_cpu_seconds` and `ping_cpu_seconds` (name -> one figure per run)."""
    clocks = cpu or {}
    stream_n, pings, repeats = (int(a) for a in argv[:3])
    big_bytes = int(argv[3]) if len(argv) > 3 else 0
    clock = time.perf_counter
    if stream_n == 0:
        assert await big(100) == 100
        before = maxrss_kb()
        start = clock()
        got = await big(big_bytes)
        seconds = clock() - start
        if got != big_bytes:
            raise SystemExit(f"the client got {got} characters of {big_bytes}")
        return {
            "big_chars": big_bytes,
            "seconds": seconds,
            "maxrss_kb_before": before,
            "maxrss_kb_after": maxrss_kb(),
        }
    assert await stream(max(1, stream_n // 10)) == max(1, stream_n // 10)
    for _ in range(max(1, pings // 10)):
        await ping()
    before = maxrss_kb()
    stream_s = []
    stream_cpu: dict[str, list[float]] = {name: [] for name in clocks}
    for _ in range(repeats):
        used = {name: read() for name, read in clocks.items()}
        start = clock()
        got = await stream(stream_n)
        stream_s.append(clock() - start)
        for name, read in clocks.items():
            stream_cpu[name].append(read() - used[name])
        if got != stream_n:
            raise SystemExit(f"the client handled {got} chunks of {stream_n}")
    after_stream = maxrss_kb()
    ping_s = []
    ping_cpu: dict[str, list[float]] = {name: [] for name in clocks}
    for _ in range(repeats):
        used = {name: read() for name, read in clocks.items()}
        start = clock()
        for _ in range(pings):
            await ping()
        ping_s.append(clock() - start)
        for name, read in clocks.items():
            ping_cpu[name].append(read() - used[name])
    return {
        "stream_n": stream_n,
        "stream_seconds": stream_s,
        **({"stream_cpu_seconds": stream_cpu, "ping_cpu_seconds": ping_cpu} if clocks else {}),
        "pings": pings,
        "ping_seconds": ping_s,
        "maxrss_kb_before_stream": before,
        "maxrss_kb_after_stream": after_stream,
    }


def report(result: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
