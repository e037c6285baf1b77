"""The bare-asyncio floor, agent end: an asyncio loop, stdio pipes, no framework, untyped msgspec.
Reads lines with `StreamReader.readline` and answers each one from a task of its own, as an engine
serving requests concurrently must: what asyncio alone costs a round trip. Answers like
raw_agent.py: `stream N` gets N agent_message_chunk notifications then a response, `big N` one
chunk of N characters, anything else (a `ping`) a response at once. `direct` as first argument
answers inline instead, without the task. `BENCH_LOOP=uvloop` runs it on uvloop.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

import msgspec
from common import big_text, pin


def chunk(session_id: str, text: str) -> bytes:
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


async def main(direct: bool) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 30)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout
    )
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    decode, encode = msgspec.json.decode, msgspec.json.encode

    async def answer(request: Any) -> None:
        params = request.get("params") or {}
        prompt = params.get("prompt") or [{}]
        command, session_id = prompt[0].get("text", ""), params.get("sessionId", "")
        if command.startswith("stream "):
            for i in range(int(command[7:])):
                writer.write(chunk(session_id, f"token {i} of the answer, "))
                if transport.get_write_buffer_size() > 1 << 16:
                    await writer.drain()
        elif command.startswith("big "):
            writer.write(chunk(session_id, big_text(int(command[4:]))))
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
    if os.environ.get("BENCH_LOOP") == "uvloop":
        import uvloop

        uvloop.run(main(sys.argv[1:] == ["direct"]))
    else:
        asyncio.run(main(sys.argv[1:] == ["direct"]))
