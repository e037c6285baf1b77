"""A hostile agent: after its initialize answer, one line without end (no newline, ever)."""

from __future__ import annotations

import json
import sys

line = sys.stdin.buffer.readline()
rid = json.loads(line).get("id")
result = {"protocolVersion": 1, "agentInfo": {"name": "flood", "version": "1"}}
sys.stdout.buffer.write(
    json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode() + b"\n"
)
block = b"x" * (1 << 20)
while True:
    sys.stdout.buffer.write(block)
