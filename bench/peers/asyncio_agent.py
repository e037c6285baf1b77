"""The bare-asyncio floor, agent end: an asyncio loop, stdio pipes, no framework, untyped msgspec.
Reads lines with `StreamReader.readline` and answers each one (a `session/prompt` ping) from a task
of its own, as an engine serving requests concurrently must: what asyncio alone costs a round
trip. `direct` as first argument answers inline instead, without the task.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import msgspec
from common import pin


async def main(direct: bool) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout
    )
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    decode, encode = msgspec.json.decode, msgspec.json.encode

    async def answer(request: Any) -> None:
        result = {"stopReason": "end_turn"}
        writer.write(encode({"jsonrpc": "2.0", "id": request["id"], "result": result}) + b"\n")

    while line := await reader.readline():
        request = decode(line)
        if direct:
            await answer(request)
        else:
            loop.create_task(answer(request))


if __name__ == "__main__":
    pin("agent")
    asyncio.run(main(sys.argv[1:] == ["direct"]))
