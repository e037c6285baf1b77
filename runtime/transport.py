"""The transport layer: what a connection's engine reads and writes, one whole message at a time.

A `Transport` hands the engine whole messages (the bytes of one JSON value each) and takes whole
messages from it; the engine decodes each message once, and never sees how messages are framed.

- Newline framing over a pair of byte streams (stdio, pipes, sockets) is `framing.LineTransport`.
- `MessageTransport` is for transports whose messages already travel one by one (HTTP bodies, SSE
  events, WebSocket frames): the owner `feed`s each received message and is handed each sent one.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Awaitable, Callable, Protocol

from .framing import _SNIFF, DEFAULT_MAX_LINE_BYTES, OnEnd, OnMessages, OversizedLine

__all__ = ["MessageTransport", "OversizedLine", "Transport"]


class Transport(Protocol):
    """Whole messages in and out."""

    def start(self, on_messages: OnMessages, on_end: OnEnd) -> None:
        """Hand every message to `on_messages` as it arrives, in order (one over the size limit
        as an `OversizedLine`), and the end of input (or why reading failed) to `on_end`, once."""
        ...

    def send_nowait(self, message: bytes) -> None:
        """Send one message (raises when the output is closed or broken)."""
        ...

    def send(self, message: bytes) -> Awaitable[None]:
        """Send one message; await the result to wait while the peer reads too slowly."""
        ...

    def close(self) -> None:
        """End the output (idempotent)."""
        ...


class MessageTransport:
    """A transport whose messages arrive one by one from its owner: `feed(message)` hands the
    engine one received message, `feed_eof()` ends the input; each sent message goes to
    `deliver(message)`, and `on_close()` runs once when the engine closes its output."""

    def __init__(
        self,
        deliver: Callable[[bytes], None],
        on_close: Callable[[], None],
        max_message_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> None:
        self._deliver = deliver
        self._on_close = on_close
        self._max = max_message_bytes
        self._items: deque[bytes | OversizedLine] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._eof = False
        self._closed = False
        self._pump: asyncio.Task[None] | None = None

    # --- in: fed by the owner ---------------------------------------------------------------------

    def feed(self, message: bytes) -> None:
        """One received message, whole."""
        if self._eof:
            raise RuntimeError("feed after feed_eof")
        size = len(message)
        self._items.append(OversizedLine(size, message[:_SNIFF]) if size > self._max else message)
        self._wake()

    def feed_eof(self) -> None:
        """The input ended."""
        self._eof = True
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def receive(self) -> list[bytes | OversizedLine] | None:
        while not self._items:
            if self._eof:
                return None
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        items = list(self._items)
        self._items.clear()
        return items

    def start(self, on_messages: OnMessages, on_end: OnEnd) -> None:
        """Hand the messages fed on, a loop turn after `feed` (never inside the owner's call)."""

        async def pump() -> None:
            while (messages := await self.receive()) is not None:
                on_messages(messages)
            on_end(None)

        self._pump = asyncio.get_running_loop().create_task(pump())

    # --- out --------------------------------------------------------------------------------------

    def send_nowait(self, message: bytes) -> None:
        if self._closed:
            raise ConnectionResetError("the remote connection is closed")
        self._deliver(message)

    async def send(self, message: bytes) -> None:
        self.send_nowait(message)

    def close(self) -> None:
        if self._pump is not None:
            self._pump.cancel()
        if not self._closed:
            self._closed = True
            self._on_close()

    @property
    def closed(self) -> bool:
        return self._closed
