"""The bare event-loop floor, client end: spawns asyncio_agent.py and talks to it through an
asyncio subprocess `Protocol` (lines split in the callback that received them, a call's future
resolved there), untyped msgspec, no framework: the least any client on that event loop does per
message, with the caller a coroutine. The pipe section's "floor (asyncio)" and, with
`BENCH_LOOP=uvloop` (both processes), "floor (uvloop)". Prints one JSON report like the others.

    python asyncio_client.py STREAM_N PINGS REPEATS [BIG_BYTES]     (see common.py)
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, cast

import msgspec
from common import pin, report, run_scenario

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "asyncio_agent.py")


class Client(asyncio.SubprocessProtocol):
    def __init__(self) -> None:
        self.rest = b""
        self.waiting: tuple[int, asyncio.Future[int]] | None = None
        self.count = self.last_chars = 0
        self.exited = asyncio.get_running_loop().create_future()

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        lines = (self.rest + bytes(data)).split(b"\n")
        self.rest = lines.pop()
        for line in lines:
            message: Any = msgspec.json.decode(line)
            if "method" in message:
                self.count += 1
                self.last_chars = len(message["params"]["update"]["content"]["text"])
            elif self.waiting is not None and message.get("id") == self.waiting[0]:
                self.waiting[1].set_result(self.count)
                self.waiting = None

    def process_exited(self) -> None:
        self.exited.set_result(None)


async def main(argv: list[str]) -> None:
    loop = asyncio.get_running_loop()
    transport, client = await loop.subprocess_exec(
        Client, sys.executable, AGENT, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    stdin = cast(asyncio.WriteTransport, transport.get_pipe_transport(0))
    encode = msgspec.json.encode
    next_id = 0

    async def call(text: str) -> int:
        nonlocal next_id
        next_id += 1
        client.count = 0
        request = {
            "jsonrpc": "2.0",
            "id": next_id,
            "method": "session/prompt",
            "params": {"sessionId": "bench-session", "prompt": [{"type": "text", "text": text}]},
        }
        answered: asyncio.Future[int] = loop.create_future()
        client.waiting = (next_id, answered)
        stdin.write(encode(request) + b"\n")
        return await answered

    async def stream(n: int) -> int:
        return await call(f"stream {n}")

    async def ping() -> None:
        await call("ping")

    async def big(size: int) -> int:
        await call(f"big {size}")
        return client.last_chars

    try:
        result = await run_scenario(stream, ping, big, argv)
    finally:
        stdin.close()
        await client.exited
        transport.close()
    report(result)


if __name__ == "__main__":
    pin("client")
    if os.environ.get("BENCH_LOOP") == "uvloop":
        import uvloop

        uvloop.run(main(sys.argv[1:]))
    else:
        asyncio.run(main(sys.argv[1:]))
