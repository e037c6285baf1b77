"""The server's WebSocket frames over a real socket (Hypercorn, guarded by `wsguard.py`): frames cut
across writes or packed several to a write are answered in order; a message over the limit is
closed 1009, and a fragmented one is not kept past it; a frame the protocol refuses gets its close
frame (1002, 1007) before the socket closes; permessage-deflate is never negotiated.
"""

from __future__ import annotations

import asyncio
import json
import os
import tracemalloc
from typing import Any

from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Request, TextMessage
from wsproto.extensions import PerMessageDeflate

from acp_runtime.http import AcpApp

from .agents import HistoryAgent, Store
from .helpers import request, served

# --- frames by hand ---------------------------------------------------------------------------


def frame(
    opcode: int,
    payload: bytes,
    *,
    fin: bool = True,
    rsv: int = 0,
    masked: bool = True,
    length_form: int | None = None,
) -> bytes:
    """A client frame; `length_form` 126 or 127 forces that length encoding (maybe not minimal)."""
    size = len(payload)
    form = length_form or (size if size <= 125 else 126 if size <= 0xFFFF else 127)
    head = bytes(((0x80 if fin else 0) | rsv << 4 | opcode, (0x80 if masked else 0) | form))
    if form == 126:
        head += size.to_bytes(2, "big")
    elif form == 127:
        head += size.to_bytes(8, "big")
    if not masked:
        return head + payload
    mask = os.urandom(4)
    key = (mask * (size // 4 + 1))[:size]
    body = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(size, "big")
    return head + mask + body


def text(message: str, **kw: Any) -> bytes:
    return frame(0x1, message.encode(), **kw)


class RawClient:
    """A WebSocket client by hand (wsproto) on a plain socket to an app served by Hypercorn."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.accepted: AcceptConnection | None = None

    @classmethod
    async def open(cls, url: str, **request: Any) -> RawClient:
        host, port = url.removeprefix("http://").split(":")
        client = cls(*await asyncio.open_connection(host, int(port)))
        client.writer.write(client.ws.send(Request(host="127.0.0.1", target="/acp", **request)))
        client.ws.receive_data(await asyncio.wait_for(client.reader.read(1 << 16), 5))
        accepted = next(client.ws.events())
        assert isinstance(accepted, AcceptConnection)
        client.accepted = accepted
        return client

    async def write(self, data: bytes, settle: float = 0.05) -> None:
        """Write `data` and give the server time to take it (so the next write is a chunk of
        its own)."""
        self.writer.write(data)
        await self.writer.drain()
        await asyncio.sleep(settle)

    async def outcome(self) -> tuple[list[Any], int | None]:
        """The messages the server sends until it closes (or 1 s of silence), and its close
        code (None: still open; -1: the connection ended without a close frame)."""
        messages: list[Any] = []
        while True:
            try:
                data = await asyncio.wait_for(self.reader.read(1 << 16), 1)
            except TimeoutError:
                return messages, None
            except ConnectionError:  # reset: the server closed with data of ours unread
                return messages, -1
            if not data:
                return messages, -1
            self.ws.receive_data(data)
            for event in self.ws.events():
                if isinstance(event, TextMessage):
                    messages.append(json.loads(event.data))
                elif isinstance(event, CloseConnection):
                    return messages, event.code

    def close(self) -> None:
        self.writer.close()


async def test_a_plain_message_over_the_limit_closes_the_socket_1009() -> None:
    app = AcpApp(lambda conn: HistoryAgent(conn, Store()), max_message_bytes=1000)
    async with served(app) as url:
        client = await RawClient.open(url)
        padding = " " * 1500  # JSON whitespace: the message is valid, only too big
        message = json.dumps(request(1, "initialize", {"protocolVersion": 1})) + padding
        await client.write(text(message))  # one plain frame, one chunk
        messages, code = await client.outcome()
        assert (messages, code) == ([], 1009)
        client.close()


async def test_a_plain_frame_inside_a_fragmented_message_fails_the_socket() -> None:
    app = AcpApp(lambda conn: HistoryAgent(conn, Store()))
    async with served(app) as url:
        client = await RawClient.open(url)
        first = json.dumps(request(1, "initialize", {"protocolVersion": 1})).encode()
        await client.write(frame(0x1, first[:10], fin=False))  # a message begun
        # a new text frame where its continuation must come: a protocol error, not a message
        await client.write(text(json.dumps(request(2, "initialize", {"protocolVersion": 1}))))
        messages, code = await client.outcome()
        assert (messages, code) == ([], 1002)  # a protocol error, told before the socket closes
        client.close()


async def test_a_ping_and_plain_frames_in_one_chunk_are_answered_in_order() -> None:
    app = AcpApp(lambda conn: HistoryAgent(conn, Store()))
    async with served(app) as url:
        client = await RawClient.open(url)
        init = text(json.dumps(request(1, "initialize", {"protocolVersion": 1})))
        new = text(json.dumps(request(2, "session/new", {"cwd": "/", "mcpServers": []})))
        await client.write(frame(0x9, b"are you there") + init + new)  # Hypercorn's chunk
        await client.write(text(json.dumps(request(3, "session/new", {"cwd": "/"}))))
        messages, code = await client.outcome()
        assert code is None
        assert [m["id"] for m in messages] == [1, 2, 3]
        client.close()


async def test_an_unmasked_frame_gets_close_1002_and_bad_utf8_close_1007() -> None:
    app = AcpApp(lambda conn: HistoryAgent(conn, Store()))
    async with served(app) as url:
        for bad, expected in [(text("{}", masked=False), 1002), (frame(0x1, b"\xff\xfe"), 1007)]:
            client = await RawClient.open(url)
            await client.write(bad)
            messages, code = await client.outcome()
            assert (messages, code) == ([], expected)
            assert await asyncio.wait_for(client.reader.read(1 << 16), 5) == b""  # then closed
            client.close()


async def test_permessage_deflate_is_never_negotiated() -> None:
    app = AcpApp(lambda conn: HistoryAgent(conn, Store()))
    async with served(app) as url:
        client = await RawClient.open(url, extensions=[PerMessageDeflate()])
        assert client.accepted is not None and client.accepted.extensions == []
        init = text(json.dumps(request(1, "initialize", {"protocolVersion": 1})))
        await client.write(init)
        messages, code = await client.outcome()
        assert code is None and [m["id"] for m in messages] == [1]
        client.close()


async def test_fragments_past_the_limit_are_closed_1009_and_not_kept() -> None:
    """A FIN=0 text frame, then 64 KiB continuation frames: 64 MiB sent against the 4 MiB limit.
    The server closes the socket 1009 and reads no more of it; what this process holds (server
    and client, traced) stays far below what was sent."""
    app = AcpApp(lambda conn: HistoryAgent(conn, Store()))
    chunk = frame(0x0, b" " * (64 << 10), fin=False)  # one masked frame, sent again and again
    tracemalloc.start()
    try:
        async with served(app) as url:
            client = await RawClient.open(url)
            await client.write(frame(0x1, b'{"jsonrpc": "2.0"', fin=False))
            base = tracemalloc.get_traced_memory()[0]
            sent = 0
            try:
                while sent < 64 << 20:
                    client.writer.write(chunk)
                    await client.writer.drain()
                    sent += len(chunk)
            except ConnectionError:
                pass
            messages, code = await client.outcome()
            peak = tracemalloc.get_traced_memory()[1] - base
            assert messages == [] and code in (1009, -1)  # -1: reset, the close frame lost in it
            assert sent < 64 << 20, "the server kept reading after its close 1009"
            assert peak < 24 << 20, f"the server held {peak} bytes"
            client.close()
    finally:
        tracemalloc.stop()
