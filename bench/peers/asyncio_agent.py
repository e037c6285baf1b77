"""The bare event-loop floor, agent end: an asyncio `Protocol` on stdio pipes, no framework,
untyped msgspec. Each line is answered in the callback that received it, with the loop's own
transport: the least any agent on that event loop does per message. Answers like raw_agent.py:
`stream N` gets N agent_message_chunk notifications then a response, `big N` one chunk of N
characters, anything else (a `ping`) a response at once. `task` as first argument answers each
request from a task of its own instead (as an engine serving requests concurrently does).
`BENCH_LOOP=uvloop` runs it on uvloop.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

import msgspec
from common import big_text, chunk_line, pin

decode, encode = msgspec.json.decode, msgspec.json.encode


class Agent(asyncio.Protocol):
    def __init__(self, out: asyncio.WriteTransport, use_task: bool, done: asyncio.Future[None]):
        self.out, self.use_task, self.done, self.rest = out, use_task, done, b""

    def data_received(self, data: bytes) -> None:
        lines = (self.rest + data).split(b"\n")
        self.rest = lines.pop()
        for line in lines:
            if self.use_task:
                asyncio.get_running_loop().create_task(self.answer_soon(decode(line)))
            else:
                self.answer(decode(line))

    async def answer_soon(self, request: Any) -> None:
        self.answer(request)

    def answer(self, request: Any) -> None:
        params = request.get("params") or {}
        prompt = params.get("prompt") or [{}]
        command, session_id = prompt[0].get("text", ""), params.get("sessionId", "")
        write = self.out.write
        if command.startswith("stream "):
            write(
                b"".join(
                    chunk_line(session_id, f"token {i} of the answer, ")
                    for i in range(int(command[7:]))
                )
            )
        elif command.startswith("big "):
            write(chunk_line(session_id, big_text(int(command[4:]))))
        write(
            encode({"jsonrpc": "2.0", "id": request["id"], "result": {"stopReason": "end_turn"}})
            + b"\n"
        )

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


async def main(use_task: bool) -> None:
    loop = asyncio.get_running_loop()
    out, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stdout)
    done: asyncio.Future[None] = loop.create_future()
    await loop.connect_read_pipe(lambda: Agent(out, use_task, done), sys.stdin)
    await done


if __name__ == "__main__":
    pin("agent")
    use_task = sys.argv[1:] == ["task"]
    if os.environ.get("BENCH_LOOP") == "uvloop":
        import uvloop

        uvloop.run(main(use_task))
    else:
        asyncio.run(main(use_task))
