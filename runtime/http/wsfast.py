"""The common WebSocket message of an `AcpApp` under Hypercorn, in fewer steps: what each side of
a round trip costs the server in wsproto's and Hypercorn's Python code, cut where a message is
plain (one whole text frame, no extension, nothing half-read or queued before it). Everything
else takes the libraries' own path, so what they check and answer stays theirs.

- In: `TextFrames` is wsproto's server `Connection` that parses a chunk of whole, masked,
  unfragmented text frames at once (the checks wsproto makes of such frames, and its UTF-8 check)
  and hands Hypercorn the same `TextMessage` events; any other chunk goes to wsproto untouched.
- Out: `text_writer(send)` writes a text frame straight to the socket's stream writer, as
  Hypercorn's `send` chain (wsproto's frame, the HTTP/1.1 protocol, the TCP server) would, when
  the socket is open and idle; else it calls `send` as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from itertools import chain
from typing import Any, Awaitable, Callable

from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.events import Closed
from hypercorn.protocol.h11 import H11Protocol, H11WSConnection
from hypercorn.protocol.ws_stream import ASGIWebsocketState, WSStream
from wsproto.connection import Connection, ConnectionState
from wsproto.events import Event, TextMessage

from .replies import Send

_TEXT = 0x81  # FIN, no RSV bit, opcode TEXT


def text_payloads(data: bytes) -> list[tuple[bytes, str]] | None:
    """The text messages of `data` (each as its UTF-8 bytes and its text) when it is whole client
    frames, each a FIN text frame with no RSV bit, masked, its length in the shortest form, its
    payload valid UTF-8; else None."""
    messages: list[tuple[bytes, str]] = []
    pos, end = 0, len(data)
    while pos < end:
        if end - pos < 6 or data[pos] != _TEXT or not data[pos + 1] & 0x80:
            return None
        size = data[pos + 1] & 0x7F
        pos += 2
        if size == 126:
            if end - pos < 6:
                return None
            size = int.from_bytes(data[pos : pos + 2], "big")
            if size <= 125:
                return None
            pos += 2
        elif size == 127:
            if end - pos < 12:
                return None
            size = int.from_bytes(data[pos : pos + 8], "big")
            if size <= 0xFFFF or size >> 63:
                return None
            pos += 8
        mask = data[pos : pos + 4]
        pos += 4
        if end - pos < size:
            return None
        payload = data[pos : pos + size]
        pos += size
        if size:
            key = int.from_bytes(mask * ((size + 3) // 4), "big") >> (8 * (-size % 4))
            payload = (int.from_bytes(payload, "big") ^ key).to_bytes(size, "big")
        try:
            messages.append((payload, payload.decode()))
        except UnicodeDecodeError:
            return None
    return messages


def parse_text_frames(data: bytes) -> list[TextMessage] | None:
    """`text_payloads` as wsproto's events."""
    messages = text_payloads(data)
    if messages is None:
        return None
    return [
        TextMessage(data=text, frame_finished=True, message_finished=True) for _, text in messages
    ]


class TextFrames(Connection):
    """wsproto's server connection, with `parse_text_frames` first: a chunk that is only plain
    text frames, received while wsproto holds nothing half-parsed and no event waits, becomes its
    messages at once; any other chunk (control frames, fragments, a frame cut across chunks, an
    extension in use, bad UTF-8, a closing connection) is wsproto's, as if this class were not
    there."""

    _ready: list[TextMessage] | None = None  # messages parsed here, not yet taken by `events`
    _after: bool = False  # wsproto was fed after them: its events follow theirs

    def receive_data(self, data: bytes | None) -> None:
        if data and self._ready is None and self._idle():
            messages = parse_text_frames(data)
            if messages is not None:
                self._ready = messages
                return
        if self._ready is not None:
            self._after = True
        super().receive_data(data)

    def _idle(self) -> bool:
        proto = self._proto
        frames = proto._frame_decoder
        return (
            self._state is ConnectionState.OPEN
            and not self._events
            and not proto.extensions
            and frames.header is None
            and not len(frames.buffer)
            and proto._message_decoder.opcode is None
        )

    def events(self) -> Iterator[Event]:  # type: ignore[override]
        ready = self._ready
        if ready is None:
            return super().events()
        self._ready = None
        if self._after:
            self._after = False
            return chain(ready, super().events())
        return iter(ready)


TextWriter = Callable[[bytes], Awaitable[None]]


def _hypercorn_of(send: Send) -> tuple[WSStream, H11Protocol, TCPServer] | None:
    """Hypercorn's WebSocket stream, HTTP/1.1 protocol and asyncio TCP server behind the ASGI
    `send` of an accepted WebSocket (None: another server, or WebSocket over HTTP/2)."""
    stream = getattr(send, "__self__", None)
    if type(stream) is not WSStream or getattr(send, "__func__", None) is not WSStream.app_send:
        return None
    protocol = getattr(stream.send, "__self__", None)
    if type(protocol) is not H11Protocol or protocol.stream is not stream:
        return None
    server = getattr(protocol.send, "__self__", None)
    if (
        type(server) is not TCPServer
        or getattr(protocol.send, "__func__", None) is not TCPServer.protocol_send
    ):
        return None
    return stream, protocol, server


def _plain_stream(transport: Any, received: Any, reader: Any) -> bool:
    """Whether `received` is the stream protocol feeding `reader`, untouched, on asyncio's own
    socket transport (not TLS, not uvloop, which looks `data_received` up once)."""
    return (
        type(transport).__module__ == "asyncio.selector_events"
        and type(received) is asyncio.StreamReaderProtocol
        and getattr(received, "_stream_reader", None) is reader
        and "data_received" not in vars(received)
    )


def direct_reader(
    send: Send, queue: asyncio.Queue[Any], deliver: Callable[[bytes], None]
) -> Callable[[], None] | None:
    """Hand each chunk of plain text frames (`text_payloads`) that reaches the accepted WebSocket
    whose ASGI `send` is `send` (Hypercorn's over HTTP/1.1 on asyncio's own socket transport) to
    `deliver`, message by message, within the transport's `data_received`: no task wakes up
    and none of Hypercorn's reading runs for it. Only while everything before the chunk has been
    handled: Hypercorn's reader waits for data with none buffered, its WebSocket connection
    holds no part of a message, and `queue` (the app's events) is empty; and only when each
    message fits `websocket_max_message_size`. Any other chunk goes to Hypercorn as before.
    Not under a `read_timeout` (a Hypercorn setting `serve` leaves unset): its clock runs in
    Hypercorn's reading, which a chunk taken here skips, so an active client would time out.
    Returns the undo (None: not Hypercorn's, nothing done)."""
    found = _hypercorn_of(send)
    if found is None:
        return None
    stream, protocol, server = found
    if server.config.read_timeout is not None:
        return None
    transport: Any = server.writer.transport
    reader: Any = server.reader
    received: Any = transport.get_protocol()
    if not _plain_stream(transport, received, reader):
        return None
    connection = stream.connection
    passing = protocol.connection
    if not isinstance(connection, TextFrames) or type(passing) is not H11WSConnection:
        return None
    limit = server.config.websocket_max_message_size
    data_received = received.data_received

    def take(data: bytes) -> None:
        waiter = reader._waiter
        if (
            waiter is not None
            and not waiter.done()
            and not reader._buffer
            and not stream.closed
            and queue.empty()
            and not passing.buffer
            and connection._ready is None
            and connection._idle()
        ):
            messages = text_payloads(data)
            if messages is not None and all(len(text) <= limit for _, text in messages):
                for payload, _ in messages:
                    deliver(payload)
                return
        data_received(data)

    received.data_received = take

    def undo() -> None:
        if vars(received).get("data_received") is take:
            del received.data_received

    return undo


def text_writer(send: Send) -> TextWriter | None:
    """A writer of one text message (its UTF-8 bytes) for the accepted WebSocket whose ASGI `send`
    is `send`, when it is Hypercorn's over HTTP/1.1 on asyncio (None otherwise).

    The frame goes to the stream writer at once when the socket is open and nothing else is being
    written (Hypercorn's send lock is free, and no message of this writer waits for it); the
    writer then waits for the buffer to drain under the lock, as Hypercorn does. Otherwise the
    message goes through `send`, in order."""
    found = _hypercorn_of(send)
    if found is None:
        return None
    stream, _, server = found
    writer = server.writer
    transport: Any = writer.transport
    lock = server.send_lock
    connection = stream.connection
    proto = connection._proto
    waiting = 0  # messages of this writer gone through `send` and not yet sent

    async def write_text(data: bytes) -> None:
        nonlocal waiting
        if (
            waiting
            or lock.locked()
            or stream.closed
            or stream.state is not ASGIWebsocketState.CONNECTED
            or connection.state is not ConnectionState.OPEN
            or proto.extensions
            or proto._outbound_opcode is not None
            or transport.is_closing()
        ):
            waiting += 1
            try:
                await send({"type": "websocket.send", "text": data.decode()})
            finally:
                waiting -= 1
            return
        size = len(data)
        if size <= 125:
            head = bytes((_TEXT, size))
        elif size <= 0xFFFF:
            head = bytes((_TEXT, 126)) + size.to_bytes(2, "big")
        else:
            head = bytes((_TEXT, 127)) + size.to_bytes(8, "big")
        try:
            writer.write(head + data)
            if transport.get_write_buffer_size():  # not all taken by the socket: maybe paused
                async with lock:
                    await writer.drain()
        except (ConnectionError, RuntimeError):
            await server.protocol.handle(Closed())

    return write_text
