"""The cost of constructing a connection on acp_runtime, agent and client side: the first one of
the process (which works out the package's tables) and each one after it. Prints one JSON line.

    python construct.py N
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

from common import maxrss_kb, report

import acp_schema as acp
from acp_runtime import AgentSideConnection, ClientSideConnection, memory_pipe


async def main(n: int) -> dict[str, Any]:
    out: dict[str, Any] = {"n": n}
    clock = time.perf_counter
    sides: dict[str, tuple[Any, Any]] = {
        "agent": (AgentSideConnection, lambda conn: acp.AgentHandler()),
        "client": (ClientSideConnection, lambda conn: acp.ClientHandler()),
    }
    for side, (cls, handler) in sides.items():
        ends = [memory_pipe()[0] for _ in range(n + 1)]
        start = clock()
        first = cls(handler, *ends[0])
        first_s = clock() - start
        conns = []
        start = clock()
        for reader, writer in ends[1:]:
            conns.append(cls(handler, reader, writer))
        after_s = (clock() - start) / n
        out[side] = {"first_ms": first_s * 1e3, "after_us": after_s * 1e6}
        for conn in [first, *conns]:
            await conn.close()
    out["maxrss_kb"] = maxrss_kb()
    return out


if __name__ == "__main__":
    report(asyncio.run(main(int(sys.argv[1]))))
