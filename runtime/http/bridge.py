"""Byte-stream ends for a `Connection` whose messages travel one by one (HTTP bodies, SSE events,
WebSocket frames) instead of as lines on a pipe.

The connection reads from a `MessageReader` (each fed message becomes one line) and writes to a
`MessageWriter` (each line it writes is handed to a callback as one message). The connection's
own framing, decoding, ordering and closing rules stay exactly those of stdio.
"""

from __future__ import annotations

import asyncio
from typing import Callable

from .messages import one_line


class MessageReader(asyncio.StreamReader):
    """What a connection reads: `feed_message(body)` adds one message, `feed_eof()` ends input."""

    def feed_message(self, body: bytes) -> None:
        self.feed_data(one_line(body) + b"\n")


class MessageWriter:
    """What a connection writes to: `deliver(message)` gets each message, without its newline;
    `on_close()` runs once when the connection closes its output."""

    def __init__(self, deliver: Callable[[bytes], None], on_close: Callable[[], None]) -> None:
        self._deliver = deliver
        self._on_close = on_close
        self._closed = False

    def write(self, data: bytes) -> None:
        if self._closed:
            raise ConnectionResetError("the remote connection is closed")
        for line in data.split(b"\n"):
            if line:
                self._deliver(line)

    async def drain(self) -> None:
        if self._closed:
            raise ConnectionResetError("the remote connection is closed")

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._on_close()

    def is_closing(self) -> bool:
        return self._closed
