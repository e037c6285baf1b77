"""connect_agent over WebSocket against a hostile server, memory bounded (issue 40, item 5):

- a server flooding pings and never reading the pongs: the client stops reading once its pongs
  wait unread (backpressure), so the flood stalls within a few MiB of socket buffers, where a
  client that reads on buffers every pong it owes;
- a server gone silent: dropped once a ping brings nothing back;
- a server flooding requests: at most `max_peer_requests` are handled at once; the rest wait in
  the socket, and each is handled once earlier ones are answered.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import socket
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

import acp_schema as acp
from acp_runtime import ConnectionClosedError
from acp_runtime.http import connect_agent

PING = b"\x89\x7d" + b"p" * 125  # a server's ping frame (unmasked), the largest a ping may be
FLOOD_CAP = 48 << 20  # what the flooding server sends at most: a bound on the test itself


async def _accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer a WebSocket handshake by hand."""
    head = await reader.readuntil(b"\r\n\r\n")
    key = next(
        line.split(b":", 1)[1].strip()
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"sec-websocket-key:")
    )
    accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
    writer.write(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n"
    )


async def _flood(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, sent: Any, stop: asyncio.Event
) -> None:
    """Accept the handshake, then send pings until the client stops reading them (a write
    that does not drain within 2 s) or FLOOD_CAP bytes are sent; never read again; drop the
    connection once told to `stop`."""
    # a small receive buffer: the pongs the client owes back up sooner (the test runs faster)
    writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
    await _accept(reader, writer)
    batch = PING * 512
    total = 0
    try:
        while total < FLOOD_CAP:
            writer.write(batch)
            total += len(batch)
            await asyncio.wait_for(writer.drain(), 2)
    except TimeoutError:
        pass  # stalled: the client reads no more
    sent.set_result(total)
    await stop.wait()
    writer.transport.abort()


async def test_a_ping_flood_whose_pongs_are_never_read_stalls_instead_of_growing() -> None:
    # (a client that reads on takes the whole flood, FLOOD_CAP, before the test's time is up)
    sent: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()
    server = await asyncio.start_server(lambda r, w: _flood(r, w, sent, stop), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with connect_agent(f"ws://127.0.0.1:{port}/acp", None) as conn:
            total = await asyncio.wait_for(sent, 80)
            assert not conn.closed
            stop.set()
            await asyncio.wait_for(conn.wait_closed(), 10)
    finally:
        server.close()
    # the client took in its socket buffers' worth, then stopped reading: far below the cap
    assert total < FLOOD_CAP * 2 // 3, total


test_a_ping_flood_whose_pongs_are_never_read_stalls_instead_of_growing.timeout = 90  # type: ignore[attr-defined]


async def test_a_server_gone_silent_is_dropped_after_an_unanswered_ping(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from acp_runtime.http import wsclient

    monkeypatch.setattr(wsclient, "PING_INTERVAL", 0.3)
    hold = asyncio.Event()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _accept(reader, writer)
        await hold.wait()  # reads nothing, answers no ping

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with connect_agent(f"ws://127.0.0.1:{port}/acp", None) as conn:
            with pytest.raises(ConnectionClosedError, match="nothing came within 0.3 s"):
                await asyncio.wait_for(conn.request("initialize", {"protocolVersion": 1}), 10)
    finally:
        hold.set()
        server.close()


ANSWER = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
REQUESTS = 600


async def test_a_request_flood_meets_at_most_max_peer_requests_handlers_at_once() -> None:
    answered: list[Any] = []
    done = asyncio.Event()

    async def agent(socket: ServerConnection) -> None:
        request = json.loads(await socket.recv())
        await socket.send(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": ANSWER}))
        request = json.loads(await socket.recv())  # session/new
        result = {"sessionId": "s1"}
        await socket.send(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}))

        async def read() -> None:
            async for message in socket:
                answered.append(json.loads(message)["id"])
                if len(answered) == REQUESTS:
                    done.set()

        reading = asyncio.create_task(read())
        option = {"optionId": "ok", "name": "OK", "kind": "allow_once"}
        tool = {"toolCallId": "t", "title": "t"}
        for n in range(REQUESTS):
            params = {"sessionId": "s1", "toolCall": tool, "options": [option]}
            message = {"jsonrpc": "2.0", "id": n, "method": "session/request_permission"}
            await socket.send(json.dumps({**message, "params": params}))
        await reading

    running, most = 0, 0
    release = asyncio.Event()

    class Client(acp.ClientHandler):
        async def session_request_permission(
            self, params: acp.RequestPermissionRequest
        ) -> acp.RequestPermissionResponse:
            nonlocal running, most
            running += 1
            most = max(most, running)
            await release.wait()
            running -= 1
            return acp.RequestPermissionResponse(
                outcome=acp.SelectedPermissionOutcome(option_id="ok")
            )

    async with serve(agent, "127.0.0.1", 0, compression=None) as server:
        port = list(server.sockets)[0].getsockname()[1]
        url = f"ws://127.0.0.1:{port}/acp"
        async with connect_agent(url, Client(), max_peer_requests=16) as conn:
            await conn.agent.initialize(acp.InitializeRequest(protocol_version=1))
            await conn.agent.session_new(acp.NewSessionRequest(cwd="/tmp", mcp_servers=[]))
            for _ in range(200):  # the flood comes in as far as the client lets it
                if running == 16:
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)
            assert running == most == 16
            release.set()
            await asyncio.wait_for(done.wait(), 30)
    assert sorted(answered) == list(range(REQUESTS)) and most == 16
