"""A message nested deeper than the JSON decoder goes (msgspec raises RecursionError) is answered
-32600 with its id when the id is readable, else -32700; never a traceback, and the connection
lives on (stdio, in process and over a real pipe)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import acp_schema_v2 as v2

from .helpers import raw_client

ROOT = Path(__file__).parents[2]
DEPTH = 100_000


def deep(prefix: bytes, depth: int = DEPTH) -> bytes:
    """`prefix` followed by `depth` nested arrays and the closing of the object."""
    return prefix + b"[" * depth + b"]" * depth + b"}"


DEEP_REQUEST = deep(b'{"jsonrpc": "2.0", "id": 7, "method": "session/new", "params": ')


async def test_a_deep_request_is_answered_invalid_request_with_its_id() -> None:
    conn, peer = await raw_client()
    peer.send_bytes(DEEP_REQUEST + b"\n")
    answer = await peer.recv()
    assert answer["id"] == 7 and answer["error"]["code"] == -32600, answer
    assert "nested deeper" in answer["error"]["message"]
    await peer.barrier()


async def test_a_deep_message_without_a_readable_id_is_a_parse_error() -> None:
    conn, peer = await raw_client()
    late_id = b'{"params": ' + b"[" * DEPTH + b"]" * DEPTH + b', "id": 9, "method": "session/new"}'
    peer.send_bytes(late_id + b"\n")
    answer = await peer.recv()
    assert answer["id"] is None and answer["error"]["code"] == -32700, answer
    await peer.barrier()


async def test_a_deep_notification_is_dropped() -> None:
    conn, peer = await raw_client()
    peer.send_bytes(deep(b'{"jsonrpc": "2.0", "method": "session/cancel", "params": ') + b"\n")
    await peer.barrier()


async def test_a_deep_v2_batch_is_a_parse_error_and_the_connection_lives() -> None:
    conn, peer = await raw_client(initialize=False, schema=v2)
    peer.send_bytes(b"[" + DEEP_REQUEST + b"]\n")
    answer = await peer.recv()
    assert answer["error"]["code"] in (-32700, -32600), answer
    init = {"protocolVersion": 2, "clientCapabilities": {}, "info": {"name": "t", "version": "1"}}
    answer = await peer.call(0, "initialize", init)
    assert answer["id"] == 0, answer  # answered (the v1 test agent cannot speak v2): still alive


async def test_over_a_real_pipe_the_echo_agent_answers_and_prints_no_traceback() -> None:
    agent = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "examples" / "echo_agent.py"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=1 << 24,
    )
    assert agent.stdin is not None and agent.stdout is not None
    init = {"protocolVersion": 1, "clientCapabilities": {}}
    agent.stdin.write(
        json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}).encode()
        + b"\n"
    )
    agent.stdin.write(DEEP_REQUEST + b"\n")
    new = {"jsonrpc": "2.0", "id": 8, "method": "session/new"}
    new["params"] = {"cwd": "/", "mcpServers": []}
    agent.stdin.write(json.dumps(new).encode() + b"\n")
    await agent.stdin.drain()
    answers = [json.loads(await asyncio.wait_for(agent.stdout.readline(), 20)) for _ in range(3)]
    agent.stdin.close()
    _, err = await asyncio.wait_for(agent.communicate(), 20)
    by_id = {answer["id"]: answer for answer in answers}  # answers may come in any order
    assert sorted(by_id) == [0, 7, 8], answers
    assert by_id[7]["error"]["code"] == -32600, by_id[7]
    assert "sessionId" in by_id[8]["result"], by_id[8]
    assert b"Traceback" not in err and b"RecursionError" not in err, err.decode()[-2000:]
