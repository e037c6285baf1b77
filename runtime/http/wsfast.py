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

from collections.abc import Iterator
from itertools import chain
from typing import Any, Awaitable, Callable

from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.events import Closed
from hypercorn.protocol.h11 import H11Protocol
from hypercorn.protocol.ws_stream import ASGIWebsocketState, WSStream
from wsproto.connection import Connection, ConnectionState
from wsproto.events import Event, TextMessage

from .replies import Send

_TEXT = 0x81  # FIN, no RSV bit, opcode TEXT


def parse_text_frames(data: bytes) -> list[TextMessage] | None:
    """The text messages of `data` when it is whole client frames, each a FIN text frame with no
    RSV bit, masked, its length in the shortest form, its payload valid UTF-8; else None."""
    messages: list[TextMessage] = []
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
            text = payload.decode()
        except UnicodeDecodeError:
            return None
        messages.append(TextMessage(data=text, frame_finished=True, message_finished=True))
    return messages


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


def text_writer(send: Send) -> TextWriter | None:
    """A writer of one text message (its UTF-8 bytes) for the accepted WebSocket whose ASGI `send`
    is `send`, when it is Hypercorn's over HTTP/1.1 on asyncio (None otherwise).

    The frame goes to the stream writer at once when the socket is open and nothing else is being
    written (Hypercorn's send lock is free, and no message of this writer waits for it); the
    writer then waits for the buffer to drain under the lock, as Hypercorn does. Otherwise the
    message goes through `send`, in order."""
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
