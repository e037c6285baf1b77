"""A hostile agent: answers initialize and session/new, then floods session/update (short
lines, without end) from the first prompt on. The checker must stop reading at its bound."""

from __future__ import annotations

import json
import sys

out = sys.stdout.buffer
sessions = 0
for line in sys.stdin.buffer:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if not isinstance(message, dict):
        continue
    method, rid = message.get("method"), message.get("id")
    if method == "initialize":
        result = {"protocolVersion": 1, "agentInfo": {"name": "flood", "version": "1"}}
        out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode() + b"\n")
    elif method == "session/new":
        sessions += 1
        answer = {"jsonrpc": "2.0", "id": rid, "result": {"sessionId": f"s{sessions}"}}
        out.write(json.dumps(answer).encode() + b"\n")
    elif method == "session/prompt":
        chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
        frame = {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": f"s{sessions}", "update": chunk},
        }
        data = (json.dumps(frame) + "\n").encode() * 1000
        while True:
            out.write(data)
    elif rid is not None:
        error = {"code": -32601, "message": "Method not found"}
        out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "error": error}).encode() + b"\n")
    out.flush()
