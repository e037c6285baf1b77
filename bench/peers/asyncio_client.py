"""The bare-asyncio floor, client end: spawns asyncio_agent.py and talks to it over asyncio's
pipes (`StreamReader.readline`, untyped msgspec), no framework. What any peer on that event loop
can reach at best: the pipe section's "floor (asyncio)" and, with `BENCH_LOOP=uvloop` (both
processes), "floor (uvloop)". Prints one JSON report like the other clients.

    python asyncio_client.py STREAM_N PINGS REPEATS [BIG_BYTES]     (see common.py)
"""

from __future__ import annotations

import asyncio
import os
import sys

import msgspec
from common import pin, report, run_scenario

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "asyncio_agent.py")


async def main(argv: list[str]) -> None:
    decode, encode = msgspec.json.decode, msgspec.json.encode
    agent = await asyncio.create_subprocess_exec(
        sys.executable,
        AGENT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=1 << 30,
    )
    assert agent.stdin is not None and agent.stdout is not None
    stdin, stdout = agent.stdin, agent.stdout
    next_id = 0
    last_chars = 0

    async def call(text: str) -> int:
        nonlocal next_id, last_chars
        next_id += 1
        request = {
            "jsonrpc": "2.0",
            "id": next_id,
            "method": "session/prompt",
            "params": {"sessionId": "bench-session", "prompt": [{"type": "text", "text": text}]},
        }
        stdin.write(encode(request) + b"\n")
        count = 0
        while True:
            message = decode(await stdout.readline())
            if "method" in message:
                count += 1
                last_chars = len(message["params"]["update"]["content"]["text"])
            elif message.get("id") == next_id:
                return count

    async def stream(n: int) -> int:
        return await call(f"stream {n}")

    async def ping() -> None:
        await call("ping")

    async def big(size: int) -> int:
        await call(f"big {size}")
        return last_chars

    try:
        result = await run_scenario(stream, ping, big, argv)
    finally:
        stdin.close()
        await agent.wait()
    report(result)


if __name__ == "__main__":
    pin("client")
    if os.environ.get("BENCH_LOOP") == "uvloop":
        import uvloop

        uvloop.run(main(sys.argv[1:]))
    else:
        asyncio.run(main(sys.argv[1:]))
