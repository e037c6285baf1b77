"""The server's short WebSocket paths (acp_runtime.http.wsfast) behave as the libraries' own:

- `TextFrames` (wsproto's server connection with plain text frames parsed in one step) gives
  the same events, state and errors as wsproto's `Connection` for any sequence of client frames,
  valid or not, cut into chunks anywhere; a chunk of plain frames skips wsproto's decoder;
- `text_writer` puts on the wire the bytes wsproto and Hypercorn would, and while Hypercorn's
  send lock is held (a ping waiting for the socket to drain) its messages go through Hypercorn's
  `send`, in order, with later ones behind them;
- over a real Hypercorn server both are in use, and frames cut across TCP writes or packed two
  to a write are answered in order.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
from typing import Any

import h11
import pytest
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.asyncio.worker_context import WorkerContext
from hypercorn.config import Config
from hypercorn.protocol.h11 import H11Protocol, H11WSConnection
from hypercorn.protocol.ws_stream import ASGIWebsocketState, WSStream
from hypercorn.typing import ConnectionState as HypercornState
from wsproto import ConnectionType, WSConnection
from wsproto.connection import Connection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Event,
    Ping,
    Pong,
    Request,
    TextMessage,
)
from wsproto.frame_protocol import FrameProtocol
from wsproto.utilities import LocalProtocolError

from acp_runtime.http import AcpApp, websocket, wsfast
from acp_runtime.http.wsfast import TextFrames, direct_reader, parse_text_frames, text_writer

from .agents import HistoryAgent, Store
from .helpers import prompt, request, served

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


def some_frames(rng: random.Random) -> list[bytes]:
    """A random client conversation: mostly plain text frames, and every kind of oddity."""
    out: list[bytes] = []
    plain = rng.random() < 0.4  # a conversation of plain text frames only
    for _ in range(rng.randrange(1, 12)):
        kind = rng.random() * (0.55 if plain else 1.0)
        size = rng.choice([0, 1, 3, 4, 5, 60, 125, 126, 127, 300, 4000, 65535, 65536])
        pattern = "".join(rng.choice('ab{}":é€😀') for _ in range(7))
        words = (pattern * (size // 7 + 1))[:size]
        if kind < 0.55:
            out.append(text(words))
        elif kind < 0.6:
            out.append(frame(0x2, os.urandom(size)))  # binary
        elif kind < 0.65:
            out.append(frame(0x9, b"hi"))  # ping
        elif kind < 0.68:
            out.append(frame(0xA, b"yo"))  # pong
        elif kind < 0.72:  # fragmented text
            data = words.encode()
            cut = len(data) // 2
            out += [frame(0x1, data[:cut], fin=False), frame(0x0, data[cut:])]
        elif kind < 0.75:
            out.append(frame(0x1, b"\xff\xfe bad utf-8"))
        elif kind < 0.78:
            out.append(text(words[:5], length_form=126))  # length not in its shortest form
        elif kind < 0.80:
            out.append(text(words[:300], length_form=127))
        elif kind < 0.82:
            out.append(text(words[:10], masked=False))
        elif kind < 0.84:
            out.append(text(words[:10], rsv=rng.choice([1, 2, 4])))
        elif kind < 0.86:
            out.append(frame(0x0, b"stray continuation"))
        elif kind < 0.88:
            out.append(frame(0x3, b"reserved opcode"))
        elif kind < 0.90:
            out.append(frame(0x8, (1000).to_bytes(2, "big") + b"bye"))  # close
        else:
            out.append(frame(0x1, "😀".encode()[:2]))  # UTF-8 cut short
    return out


def chunks(frames: list[bytes], rng: random.Random) -> list[bytes]:
    """`frames` whole, or cut between frames, or cut at random places."""
    data = b"".join(frames)
    how = rng.random()
    if how < 0.3:
        return [data]
    if how < 0.6:
        pieces: list[bytes] = []
        for one in frames:
            if pieces and rng.random() < 0.5:
                pieces[-1] += one
            else:
                pieces.append(one)
        return pieces
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randrange(1, 5))))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def run(connection: Connection, pieces: list[bytes]) -> list[Any]:
    """What `connection` makes of `pieces` fed one by one, as Hypercorn feeds it: each event (as a
    comparable tuple) and the state after each chunk, or the error a chunk raised."""
    seen: list[Any] = []
    for piece in pieces:
        try:
            connection.receive_data(piece)
        except LocalProtocolError as exc:
            seen.append(("error", str(exc)))
            continue
        seen += [describe(event) for event in connection.events()]
        seen.append(("state", connection.state))
    return seen


def describe(event: Event) -> tuple[Any, ...]:
    if isinstance(event, (TextMessage, BytesMessage)):
        return (type(event).__name__, event.data, event.frame_finished, event.message_finished)
    if isinstance(event, CloseConnection):
        return ("close", event.code, event.reason)
    if isinstance(event, (Ping, Pong)):
        return (type(event).__name__, event.payload)
    return (type(event).__name__,)


def test_text_frames_behave_as_wsproto_for_any_frames_cut_anywhere() -> None:
    rng = random.Random(21)
    fast_chunks = 0
    for _ in range(400):
        pieces = chunks(some_frames(rng), rng)
        fast_chunks += sum(parse_text_frames(p) is not None for p in pieces)
        plain = run(Connection(ConnectionType.SERVER), pieces)
        ours = run(TextFrames(ConnectionType.SERVER), pieces)
        assert ours == plain, pieces
    assert fast_chunks > 100  # the short path was taken, not only wsproto's


def test_a_chunk_of_plain_text_frames_skips_wsproto_decoder(monkeypatch: Any) -> None:
    connection = TextFrames(ConnectionType.SERVER)
    sizes = (0, 5, 125, 126, 65535, 65536)
    words = ["é" * (size // 2) + "x" * (size % 2) for size in sizes]

    def refuse(self: Any, data: bytes) -> None:
        raise AssertionError("wsproto's decoder was fed a plain chunk")

    monkeypatch.setattr(FrameProtocol, "receive_bytes", refuse)
    connection.receive_data(b"".join(text(w) for w in words))
    assert [describe(e) for e in connection.events()] == [
        ("TextMessage", w, True, True) for w in words
    ]


def test_plain_frames_after_a_cut_one_follow_it_in_order() -> None:
    connection = TextFrames(ConnectionType.SERVER)
    first, second = text("one"), text("two")
    connection.receive_data(first[:4])  # wsproto holds half a frame
    connection.receive_data(first[4:] + second)
    assert [e.data for e in connection.events() if isinstance(e, TextMessage)] == ["one", "two"]
    connection.receive_data(text("three"))
    assert [e.data for e in connection.events() if isinstance(e, TextMessage)] == ["three"]


def test_the_rest_of_a_cut_frame_is_never_read_as_frames_of_its_own() -> None:
    inner = text("not a frame")  # what the rest of the outer frame's payload looks like
    mask = b"\x01\x02\x03\x04"
    payload = b"head" + inner
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    # the outer frame is binary; its payload, masked, ends with bytes that parse as a text frame
    unmasked_tail = bytes(b ^ mask[(i + 4) % 4] for i, b in enumerate(inner))
    outer = bytes((0x82, 0x80 | len(payload))) + mask + masked[:4] + unmasked_tail
    for connection in (Connection(ConnectionType.SERVER), TextFrames(ConnectionType.SERVER)):
        connection.receive_data(outer[:10])  # wsproto has read the header and 4 payload bytes
        list(connection.events())
        connection.receive_data(outer[10:])
        events = [describe(e) for e in connection.events()]
        assert events == [("BytesMessage", inner, True, True)], type(connection)


def test_fed_twice_before_its_events_are_read_keeps_the_order() -> None:
    connection = TextFrames(ConnectionType.SERVER)
    connection.receive_data(text("one"))  # the short path
    connection.receive_data(frame(0x9, b"p") + text("two"))  # wsproto's
    assert [describe(e) for e in connection.events()] == [
        ("TextMessage", "one", True, True),
        ("Ping", b"p"),
        ("TextMessage", "two", True, True),
    ]


# --- the writer, on Hypercorn's own objects over a socket pair ---------------------------------


async def hypercorn_socket() -> tuple[Any, TCPServer, WSStream, socket.socket]:
    """Hypercorn's objects of one accepted WebSocket over HTTP/1.1 (TCP server, HTTP/1.1
    protocol, WebSocket stream), writing to one end of a socket pair; the other end returned."""
    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=ours)
    config = Config()
    context = WorkerContext(None)
    loop = asyncio.get_running_loop()
    server = TCPServer(None, loop, config, context, HypercornState({}), reader, writer)  # type: ignore[arg-type]
    protocol = H11Protocol(
        None, config, context, None, HypercornState({}), False, None, None, server.protocol_send  # type: ignore[arg-type]
    )
    stream = WSStream(None, config, context, None, False, None, None, protocol.stream_send, 1)  # type: ignore[arg-type]
    protocol.stream = stream
    protocol.connection = H11WSConnection(h11.Connection(h11.SERVER))  # as after the upgrade
    stream.state = ASGIWebsocketState.CONNECTED
    stream.connection = TextFrames(ConnectionType.SERVER)  # as `serve` makes it
    theirs.setblocking(False)
    return stream.app_send, server, stream, theirs


async def read_messages(sock: socket.socket, count: int) -> tuple[bytes, list[str]]:
    """`count` text messages from the server's end of the pair (and the raw bytes)."""
    client = Connection(ConnectionType.CLIENT)
    raw = b""
    out: list[str] = []
    loop = asyncio.get_running_loop()
    while len(out) < count:
        data = await asyncio.wait_for(loop.sock_recv(sock, 1 << 20), 5)
        raw += data
        client.receive_data(data)
        out += [e.data for e in client.events() if isinstance(e, TextMessage)]
    return raw, out


async def test_the_writer_writes_what_wsproto_and_hypercorn_would() -> None:
    send, server, stream, peer = await hypercorn_socket()
    write_text = text_writer(send)
    assert write_text is not None
    words = ["", "x" * 125, "é" * 63, "y" * 65535, "z" * 65536, '{"jsonrpc":"2.0"}']
    for word in words:
        await write_text(word.encode())
    raw, got = await read_messages(peer, len(words))
    assert got == words
    reference = Connection(ConnectionType.SERVER)
    assert raw == b"".join(reference.send(TextMessage(data=w)) for w in words)
    server.writer.close()
    peer.close()


async def test_while_hypercorn_holds_its_send_lock_messages_queue_behind_in_order() -> None:
    send, server, stream, peer = await hypercorn_socket()
    write_text = text_writer(send)
    assert write_text is not None
    await server.send_lock.acquire()  # as a ping waiting for the socket to drain
    first = asyncio.ensure_future(write_text(b"one"))
    await asyncio.sleep(0)
    second = asyncio.ensure_future(write_text(b"two"))
    await asyncio.sleep(0.05)
    assert not first.done() and not second.done()  # waiting for the lock, nothing written
    server.send_lock.release()
    # sent while the lock passes from one waiting message to the next: behind them
    third = asyncio.ensure_future(write_text(b"three"))
    await asyncio.wait_for(asyncio.gather(first, second, third), 5)
    await write_text(b"four")  # nothing waits any more: written at once
    _, got = await read_messages(peer, 4)
    assert got == ["one", "two", "three", "four"]
    server.writer.close()
    peer.close()


async def test_after_the_socket_closes_the_writer_leaves_it_to_hypercorn() -> None:
    send, server, stream, peer = await hypercorn_socket()
    write_text = text_writer(send)
    assert write_text is not None
    stream.closed = True  # Hypercorn saw the connection end: its send drops messages
    await write_text(b"late")
    peer.setblocking(True)
    peer.settimeout(0.1)
    with pytest.raises(TimeoutError):
        peer.recv(10)
    server.writer.close()
    peer.close()


def test_no_writer_nor_reader_for_a_server_that_is_not_hypercorns() -> None:
    async def send(event: Any) -> None:
        pass

    assert text_writer(send) is None
    assert direct_reader(send, asyncio.Queue(), print) is None


async def test_the_direct_reader_takes_a_chunk_only_when_nothing_waits_before_it() -> None:
    send, server, stream, peer = await hypercorn_socket()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    taken: list[bytes] = []
    undo = direct_reader(send, queue, taken.append)
    assert undo is not None
    reader = server.reader
    loop = asyncio.get_running_loop()

    async def arrives(data: bytes) -> None:
        await loop.sock_sendall(peer, data)
        await asyncio.sleep(0.05)

    # Hypercorn's reader task busy elsewhere (not waiting for data): the chunk is its
    await arrives(chunk := text("one"))
    assert taken == [] and await reader.read(100) == chunk
    # waiting, nothing before it: taken at once, Hypercorn's reader still waits
    reading = asyncio.ensure_future(reader.read(100))
    await asyncio.sleep(0)
    await arrives(text("two") + text("three"))
    assert taken == [b"two", b"three"] and not reading.done()
    # an event waits for the app: the chunk goes behind it, to Hypercorn
    queue.put_nowait({"type": "websocket.receive", "text": "earlier"})
    await arrives(chunk := text("four"))
    assert taken == [b"two", b"three"] and await reading == chunk
    queue.get_nowait()
    # not plain frames (a ping): Hypercorn's
    reading = asyncio.ensure_future(reader.read(100))
    await asyncio.sleep(0)
    await arrives(frame(0x9, b"hi") + text("five"))
    assert taken == [b"two", b"three"] and reading.done()
    undo()  # Hypercorn's reading again, for everything
    reading = asyncio.ensure_future(reader.read(100))
    await asyncio.sleep(0)
    await arrives(chunk := text("six"))
    assert taken == [b"two", b"three"] and await reading == chunk
    server.writer.close()
    peer.close()


async def test_no_direct_reader_while_hypercorn_times_its_reads() -> None:
    # Hypercorn's `read_timeout` clock runs in its reading, which a chunk taken directly skips
    send, server, stream, peer = await hypercorn_socket()
    undo = direct_reader(send, asyncio.Queue(), print)
    assert undo is not None
    undo()
    server.config.read_timeout = 5
    assert direct_reader(send, asyncio.Queue(), print) is None
    server.writer.close()
    peer.close()


# --- over a real Hypercorn server -----------------------------------------------------------------


async def test_both_short_paths_serve_a_real_socket_frames_cut_and_packed(
    monkeypatch: Any,
) -> None:
    writers: list[Any] = []

    def spy(send: Any) -> Any:
        writer = text_writer(send)
        writers.append(writer)
        return writer

    monkeypatch.setattr(websocket, "text_writer", spy)
    readers: list[Any] = []

    def spy_reader(*args: Any) -> Any:
        undo = direct_reader(*args)
        readers.append(undo)
        return undo

    monkeypatch.setattr(websocket, "direct_reader", spy_reader)
    parsed: list[int] = []
    real_parse = wsfast.text_payloads

    def count_parse(data: bytes) -> Any:
        messages = real_parse(data)
        parsed.append(0 if messages is None else len(messages))
        return messages

    monkeypatch.setattr(wsfast, "text_payloads", count_parse)
    app = AcpApp(lambda conn: HistoryAgent(conn, Store()))
    async with served(app) as url:
        host, port = url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        client = WSConnection(ConnectionType.CLIENT)
        writer.write(client.send(Request(host="127.0.0.1", target="/acp")))
        answers: list[Any] = []  # every message; `until` waits for `count` answers among them

        def answered() -> list[Any]:
            return [a["id"] for a in answers if "id" in a and "method" not in a]

        async def until(count: int) -> None:
            while len(answered()) < count:
                data = await asyncio.wait_for(reader.read(1 << 16), 5)
                assert data, "the server closed"
                client.receive_data(data)
                for event in client.events():
                    if isinstance(event, Ping):
                        continue
                    assert isinstance(event, TextMessage), event
                    answers.append(json.loads(event.data))

        handshake = await asyncio.wait_for(reader.read(1 << 16), 5)
        client.receive_data(handshake)
        assert isinstance(next(client.events()), AcceptConnection)  # (then Hypercorn's ping)

        def framed(message: Any) -> bytes:
            return bytes(client.send(TextMessage(data=json.dumps(message))))

        init = framed(request(1, "initialize", {"protocolVersion": 1}))
        writer.write(init[:3])  # a frame cut across two writes
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.write(init[3:])
        await until(1)
        assert answers[0]["id"] == 1 and "result" in answers[0]
        writer.write(framed(request(2, "session/new", {"cwd": "/", "mcpServers": []})))
        await until(2)
        session = answers[-1]["result"]["sessionId"]
        # two prompts packed into one write: answered in order
        writer.write(framed(prompt(3, session, "a")) + framed(prompt(4, session, "b")))
        await until(4)
        assert answered() == [1, 2, 3, 4]
        assert all("result" in a for a in answers if "id" in a)
        writer.close()
    assert writers and writers[0] is not None  # the writer was in use
    assert readers and readers[0] is not None  # and the direct reader
    assert max(parsed) == 2 and parsed.count(0) >= 1  # packed pair parsed in one step; cut one not


class RawClient:
    """A WebSocket client by hand (wsproto) on a plain socket to an app served by Hypercorn."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.ws = WSConnection(ConnectionType.CLIENT)

    @classmethod
    async def open(cls, url: str) -> RawClient:
        host, port = url.removeprefix("http://").split(":")
        client = cls(*await asyncio.open_connection(host, int(port)))
        client.writer.write(client.ws.send(Request(host="127.0.0.1", target="/acp")))
        client.ws.receive_data(await asyncio.wait_for(client.reader.read(1 << 16), 5))
        assert isinstance(next(client.ws.events()), AcceptConnection)
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
        assert (messages, code) == ([], -1)  # wsproto's protocol error: Hypercorn drops the socket
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
