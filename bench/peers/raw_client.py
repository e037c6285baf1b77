"""The raw-pipe floor, client end: spawns raw_agent.py and talks to it with blocking buffered pipes
and untyped msgspec, no framework. Prints one JSON report like the other clients.

    python raw_client.py STREAM_N PINGS REPEATS [BIG_BYTES]     (see common.py)
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import msgspec
from common import pin, report, run_scenario

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "raw_agent.py")


def main(argv: list[str]) -> None:
    decode, encode = msgspec.json.decode, msgspec.json.encode
    proc = subprocess.Popen([sys.executable, AGENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    send, flush, readline = proc.stdin.write, proc.stdin.flush, proc.stdout.readline
    next_id = 0
    last_chars = 0

    def call(text: str) -> int:
        nonlocal next_id, last_chars
        next_id += 1
        request = {
            "jsonrpc": "2.0",
            "id": next_id,
            "method": "session/prompt",
            "params": {"sessionId": "bench-session", "prompt": [{"type": "text", "text": text}]},
        }
        send(encode(request) + b"\n")
        flush()
        count = 0
        while True:
            message = decode(readline())
            if "method" in message:
                count += 1
                last_chars = len(message["params"]["update"]["content"]["text"])
            elif message.get("id") == next_id:
                return count

    async def stream(n: int) -> int:
        return call(f"stream {n}")

    async def ping() -> None:
        call("ping")

    async def big(size: int) -> int:
        call(f"big {size}")
        return last_chars

    try:
        result = asyncio.run(run_scenario(stream, ping, big, argv))
    finally:
        proc.stdin.close()
        proc.wait()
    report(result)


if __name__ == "__main__":
    pin("client")
    main(sys.argv[1:])
