"""The raw-pipe floor, agent end: no framework, blocking buffered stdio and untyped msgspec.

Reads one JSON line at a time and answers like runtime_agent.py: `stream N` gets N
agent_message_chunk notifications then a response, `big N` one chunk of N characters, anything
else a response at once.
"""

from __future__ import annotations

import sys

import msgspec
from common import big_text, chunk_line, pin


def main() -> None:
    decode, encode = msgspec.json.decode, msgspec.json.encode
    out = sys.stdout.buffer

    for line in sys.stdin.buffer:
        request = decode(line)
        command = request["params"]["prompt"][0]["text"]
        session_id = request["params"]["sessionId"]
        if command.startswith("stream "):
            for i in range(int(command[7:])):
                out.write(chunk_line(session_id, f"token {i} of the answer, "))
        elif command.startswith("big "):
            out.write(chunk_line(session_id, big_text(int(command[4:]))))
        out.write(
            encode({"jsonrpc": "2.0", "id": request["id"], "result": {"stopReason": "end_turn"}})
            + b"\n"
        )
        out.flush()


if __name__ == "__main__":
    pin("agent")
    main()
