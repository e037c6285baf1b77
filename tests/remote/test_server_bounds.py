"""Bounds of the remote server added for issue 40 and issue 39's listening line:

- a request with both Content-Length and Transfer-Encoding is answered 400 and its connection
  closed (RFC 9112, 6.1), so a request smuggled behind it never runs;
- a connection nobody has named since its initialize (its id never reached anyone: an initialize
  stream reset, a client gone) and a WebSocket that sends nothing hold their slot for
  `first_message_timeout` only, not `idle_timeout`;
- `serve` logs one "listening on URL" line to stderr.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import httpx

from acp_runtime.http import AcpApp

from .helpers import request, served
from .test_security import RawSocket, history_app, port_of, post

INIT = request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
NEW = request(1, "session/new", {"cwd": "/", "mcpServers": []})
EXAMPLES = Path(__file__).parents[2] / "examples"


async def until_gone(app: AcpApp, connection_id: str) -> None:
    connections = app.connections
    for _ in range(500):
        if connection_id not in connections:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"connection {connection_id} still holds its slot")


async def test_content_length_with_transfer_encoding_is_400_and_closes_the_connection() -> None:
    async with served(history_app()) as base:
        reader, writer = await asyncio.open_connection("127.0.0.1", port_of(base))
        body = json.dumps(INIT).encode()
        smuggled = "DELETE /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"
        chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
        head = (
            "POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        writer.write(head.encode() + chunked + smuggled.encode())
        answer = await asyncio.wait_for(reader.read(), 10)  # to the end: the server closes
        writer.close()
        assert answer.startswith(b"HTTP/1.1 400"), answer
        assert b"Content-Length with Transfer-Encoding" in answer
        assert answer.count(b"HTTP/1.1") == 1  # the smuggled request was never answered


async def test_an_initialized_connection_nobody_names_frees_its_slot_after_the_deadline() -> None:
    app = history_app(first_message_timeout=0.3, idle_timeout=300.0)
    async with served(app) as base:
        forgotten = await post(base + "/acp", INIT)
        kept = await post(base + "/acp", INIT)
        kept_id = kept.headers["acp-connection-id"]
        named = await post(base + "/acp", NEW, **{"acp-connection-id": kept_id})
        assert named.status_code == 202
        await until_gone(app, forgotten.headers["acp-connection-id"])
        await asyncio.sleep(0.5)  # past the deadline: a connection its client named stays
        assert kept_id in app.connections


async def test_a_websocket_that_sends_nothing_is_closed_after_the_deadline() -> None:
    app = history_app(first_message_timeout=0.3, idle_timeout=300.0, websocket_ping_interval=None)
    async with served(app) as base:
        sock = await RawSocket.open(port_of(base))
        assert sock.status == 101
        opcode = (await sock.frame(10))[0]
        assert opcode in (8, -1)  # a close, then the end of the socket
        assert not app.connections
        sock.close()
        talking = await RawSocket.open(port_of(base))
        talking.send(json.dumps(INIT).encode())
        assert json.loads((await talking.frame(10))[1])["id"] == 0
        await asyncio.sleep(0.5)
        assert len(app.connections) == 1  # a socket that spoke has idle_timeout
        talking.close()


async def test_serve_logs_one_listening_line_to_stderr() -> None:
    agent = await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLES / "echo_agent.py"),
        "--listen",
        "127.0.0.1:0",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert agent.stdout is not None and agent.stderr is not None
    try:
        line = (await asyncio.wait_for(agent.stderr.readline(), 30)).decode()
        assert line.startswith("acp_runtime.http: listening on http://127.0.0.1:"), line
        url = line.rsplit(" ", 1)[1].strip()
        assert url.endswith("/acp")
        async with httpx.AsyncClient() as http:  # it is listening there
            answer = await http.post(url, json=INIT)
        assert answer.status_code == 200
    finally:
        agent.terminate()
        await agent.wait()
    rest = (await agent.stderr.read()).decode()
    assert "listening on" not in rest  # one line only


async def test_initialize_streams_reset_at_once_free_their_slots_after_the_deadline() -> None:
    """Issue 40: 40 initialize POSTs over h2, each reset in the same write; the connections they
    opened (ids delivered to nobody) hold their slots `first_message_timeout`, then an honest
    client gets in."""
    import h2.errors

    from .test_h2_answers import BareH2
    from .test_h2_answers import post as h2_post

    app = history_app(first_message_timeout=0.3, idle_timeout=300.0, max_connections=40)
    async with served(app) as base:
        client = await BareH2.open(base)
        try:
            for _ in range(40):
                stream_id = h2_post(client, INIT, None)
                client.conn.reset_stream(stream_id, h2.errors.ErrorCodes.CANCEL)
            client.writer.write(client.conn.data_to_send())
            for _ in range(500):  # the server opens them (the resets do not stop it)
                if len(app.connections) == 40:
                    break
                await asyncio.sleep(0.01)
            assert len(app.connections) == 40
            for _ in range(500):
                if not app.connections:
                    break
                await asyncio.sleep(0.01)
            assert not app.connections, "reset initialize streams still hold slots"
            honest = await post(base + "/acp", INIT)
            assert honest.status_code == 200
        finally:
            await client.close()
