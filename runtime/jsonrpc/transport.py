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
from typing import Awaitable, Callable, Protocol, runtime_checkable

from .framing import DEFAULT_MAX_LINE_BYTES, SNIFF, OnEnd, OnMessages, OversizedLine

__all__ = ["MessageTransport", "OversizedLine", "Pausable", "Transport"]


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


@runtime_checkable
class Pausable(Protocol):
    """A transport that can stop handing messages on: the engine pauses one while the peer has
    too many requests in flight (`serving.DEFAULT_MAX_IN_FLIGHT`), and resumes it below half."""

    def pause_reading(self) -> None:
        """Hand no more messages on (those that arrive wait, and the peer is read no further)."""
        ...

    def resume_reading(self) -> None:
        """Hand messages on again, those that waited first (from a later loop turn)."""
        ...


def flow(transport: object, reading: bool) -> None:
    """Pause (False) or resume (True) a transport's reading, when it can pause."""
    if isinstance(transport, Pausable):
        if reading:
            transport.resume_reading()
        else:
            transport.pause_reading()


class MessageTransport:
    """A transport whose messages arrive one by one from its owner: `feed(message)` hands the
    engine one received message, `feed_eof()` ends the input; each sent message goes to
    `deliver(message)`, and `on_close()` runs once when the engine closes its output. With
    `write`, a message the engine sends and waits for (`send`, not `send_nowait`) goes to
    `await write(message)` instead, in the engine's task: an owner that can write at once saves a
    task of its own waking per message.

    Once started, each message is pushed to the engine within the owner's `feed` call, as the
    stdio transports push each chunk (`framing.PushReader`): no task wakes up per message.
    Within that call the engine may send (`deliver` runs inside `feed`), and may close the
    transport. A message fed while another is being handed over (the owner fed from inside
    `deliver`, say) waits for it and follows it, so the engine never sees messages out of order
    nor is entered twice; after `close` what is fed is dropped. What is fed before `start` is
    handed over a loop turn after it (the engine is still being built), or taken by `receive`
    when nothing starts it."""

    def __init__(
        self,
        deliver: Callable[[bytes], None],
        on_close: Callable[[], None],
        max_message_bytes: int = DEFAULT_MAX_LINE_BYTES,
        write: Callable[[bytes], Awaitable[None]] | None = None,
    ) -> None:
        self._deliver = deliver
        self._write = write
        self._on_close = on_close
        self._max = max_message_bytes
        self._items: deque[bytes | OversizedLine] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._eof = False
        self._closed = False
        self._on_messages: OnMessages | None = None
        self._on_end: OnEnd | None = None
        self._handing = False  # handing messages over (or holding them until the next turn)
        self._paused = False  # `pause_reading`: what is fed waits

    # --- in: fed by the owner ---------------------------------------------------------------------

    def feed(self, message: bytes) -> None:
        """One received message, whole."""
        if self._eof:
            raise RuntimeError("feed after feed_eof")
        if self._closed:
            return  # the engine closed: nobody reads on
        size = len(message)
        item = OversizedLine(size, message[:SNIFF]) if size > self._max else message
        on_messages = self._on_messages
        if on_messages is None or self._handing or self._paused:
            self._items.append(item)
            self._wake()
            return
        self._handing = True
        try:
            on_messages([item])
        finally:
            self._handing = False
        if self._items or self._eof:  # fed (or ended) while that one was handed over
            self._hand_over()

    def feed_eof(self) -> None:
        """The input ended."""
        if self._eof:
            return
        self._eof = True
        if self._on_end is not None and not self._handing and not self._paused:
            self._hand_over()
        self._wake()

    def _hand_over(self) -> None:
        """Hand the engine what waits, in order, then the end of input if it came."""
        self._handing = False
        while self._items and self._on_messages is not None and not self._paused:
            items = list(self._items)
            self._items.clear()
            self._handing = True
            try:
                self._on_messages(items)
            finally:
                self._handing = False
        on_end = self._on_end
        if self._eof and on_end is not None and not self._items and not self._paused:
            self._on_messages = self._on_end = None
            on_end(None)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def receive(self) -> list[bytes | OversizedLine] | None:
        """Every message fed so far (at least one), or None at the end of input: for an owner
        that reads rather than `start`s."""
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
        """Hand every message fed from now on to `on_messages` within `feed`; what was fed before,
        and an end that came before, a loop turn later."""
        self._on_messages, self._on_end = on_messages, on_end
        if self._items or self._eof:
            self._handing = True  # held until the next loop turn: the owner is still being built
            asyncio.get_running_loop().call_soon(self._hand_over)

    def pause_reading(self) -> None:
        self._paused = True

    def resume_reading(self) -> None:
        if self._paused:
            self._paused = False
            if self._on_messages is not None and (self._items or self._eof) and not self._handing:
                self._handing = True  # held until the next loop turn, as after `start`
                asyncio.get_running_loop().call_soon(self._hand_over)

    # --- out --------------------------------------------------------------------------------------

    def send_nowait(self, message: bytes) -> None:
        if self._closed:
            raise ConnectionResetError("the remote connection is closed")
        self._deliver(message)

    async def send(self, message: bytes) -> None:
        if self._closed:
            raise ConnectionResetError("the remote connection is closed")
        if self._write is None:
            self._deliver(message)
        else:
            await self._write(message)

    def close(self) -> None:
        self._on_messages = self._on_end = None  # hand nothing more over
        self._items.clear()
        if not self._closed:
            self._closed = True
            self._on_close()

    @property
    def closed(self) -> bool:
        return self._closed
