"""The transport layer: what a connection's engine reads and writes, one whole message at a time.

A `Transport` hands the engine whole messages (the bytes of one JSON value each) and takes whole
messages from it; the engine decodes each message once, and never sees how messages are framed.

- `LineTransport` is newline framing over a pair of byte streams (stdio, pipes, sockets).
- `MessageTransport` is for transports whose messages already travel one by one (HTTP bodies, SSE
  events, WebSocket frames): the owner `feed`s each received message and is handed each sent one.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Awaitable, Callable, Protocol

from .framing import (
    DEFAULT_MAX_LINE_BYTES,
    SNIFF,
    ByteReader,
    ByteWriter,
    LineReader,
    LineWriter,
    OnEnd,
    OnMessages,
    OversizedLine,
    PushReader,
)


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

    def pause_reading(self) -> None:
        """Hand no more messages on (those that arrive wait, and the peer is read no further): the
        engine pauses its transport while the peer has too many requests in flight
        (`serving.DEFAULT_MAX_IN_FLIGHT`)."""
        ...

    def resume_reading(self) -> None:
        """Hand messages on again, those that waited first (from a later loop turn)."""
        ...


SLICE = 64
"""Messages handed on per loop turn at most. A burst (a pipe read holds hundreds of lines) is handed
on in slices, one a loop turn, the engine's worker handling them as they come (two a wake): decoded
all at once, hundreds of messages stay alive together, which costs the garbage collector and the
CPU caches far more than the loop turns saved."""


class Inlet:
    """The receiving half of both transports: what is `put` is handed to the engine in order, in
    the call that put it when nothing waits before it (no task wakes per message), at most `SLICE`
    messages a loop turn (the rest of a burst in the turns after, later ones behind them), then the
    end of input (`end`), once. What is put while messages are handed over (the engine's own sends
    may feed more) waits and follows within that call, so the engine is never entered twice; what
    is put before `start` or while paused is handed over from a later loop turn; after `close`,
    nothing."""

    def __init__(self) -> None:
        self._queued: deque[list[bytes | OversizedLine]] = deque()
        self._on_messages: OnMessages | None = None
        self._on_end: OnEnd | None = None
        self._handing = False  # handing messages over, or holding them until a later loop turn
        self._paused = False  # `pause_reading`: what is put waits
        self._eof = False
        self._error: BaseException | None = None
        self.closed = False

    def put(self, messages: list[bytes | OversizedLine]) -> None:
        on_messages = self._on_messages
        if on_messages is None or self._handing or self._paused or len(messages) > SLICE:
            if not self.closed:
                if len(messages) > SLICE:  # a burst: cut into slices once
                    self._queued.extend(
                        messages[i : i + SLICE] for i in range(0, len(messages), SLICE)
                    )
                else:
                    self._queued.append(messages)
                if on_messages is not None and not self._handing and not self._paused:
                    self._hand_over()
            return
        self._handing = True
        try:
            on_messages(messages)
        finally:
            self._handing = False
        if self._queued or self._eof:  # put (or ended) while those were handed over
            self._hand_over()

    def end(self, error: BaseException | None = None) -> None:
        if self._eof:
            return
        self._eof, self._error = True, error
        if not self._handing and not self._paused:
            self._hand_over()

    def _hand_over(self) -> None:
        """Hand on what waits, a slice per loop turn at most, then the end of input if it came. The
        next loop turn's hand-over is asked for before the last slice of this one is handed on, so
        that what that slice wakes (the engine's worker) runs after the next slice too: one wake
        per two slices."""
        self._handing = False
        handed = 0
        queued = self._queued
        while queued and self._on_messages is not None and not self._paused:
            if handed >= SLICE:  # (put while the last slice was handed on)
                return self._later()
            messages = queued.popleft()
            handed += len(messages)
            held = handed >= SLICE and bool(queued)
            if held:
                asyncio.get_running_loop().call_soon(self._hand_over)
            self._handing = True
            try:
                self._on_messages(messages)
            finally:
                self._handing = held
            if held:
                return
        on_end = self._on_end
        if self._eof and on_end is not None and not queued and not self._paused:
            self._on_messages = self._on_end = None
            on_end(self._error)

    def _later(self) -> None:
        self._handing = True  # held until the next loop turn
        asyncio.get_running_loop().call_soon(self._hand_over)

    def start(self, on_messages: OnMessages, on_end: OnEnd) -> None:
        """Hand every message put from now on to `on_messages`; what was put before, and an end
        that came before, a loop turn later (the engine is still being built)."""
        self._on_messages, self._on_end = on_messages, on_end
        if self._queued or self._eof:
            self._later()

    def pause_reading(self) -> None:
        self._paused = True

    def resume_reading(self) -> None:
        if self._paused:
            self._paused = False
            if (self._queued or self._eof) and not self._handing:
                self._later()

    def close(self) -> None:
        self.closed = True
        self._on_messages = self._on_end = None  # hand nothing more over
        self._queued.clear()


class MessageTransport(Inlet):
    """A transport whose messages arrive one by one from its owner: `feed(message)` hands the
    engine one received message (within the call, as `Inlet` does), `feed_eof()` ends the input;
    each sent message goes to `deliver(message)`, and `on_close()` runs once when the engine closes
    its output. With `write`, a message the engine sends and waits for (`send`, not
    `send_nowait`) goes to `await write(message)` instead, in the engine's task: an owner that can
    write at once saves a task of its own waking per message. Within `feed` the engine may send
    (`deliver` runs inside it), and may close the transport."""

    def __init__(
        self,
        deliver: Callable[[bytes], None],
        on_close: Callable[[], None],
        max_message_bytes: int = DEFAULT_MAX_LINE_BYTES,
        write: Callable[[bytes], Awaitable[None]] | None = None,
    ) -> None:
        super().__init__()
        self._deliver = deliver
        self._write = write
        self._on_close = on_close
        self._max = max_message_bytes

    def feed(self, message: bytes) -> None:
        """One received message, whole."""
        if self._eof:
            raise RuntimeError("feed after feed_eof")
        size = len(message)
        self.put([OversizedLine(size, message[:SNIFF]) if size > self._max else message])

    def feed_eof(self) -> None:
        """The input ended."""
        self.end(None)

    def send_nowait(self, message: bytes) -> None:
        if self.closed:
            raise ConnectionResetError("the remote connection is closed")
        self._deliver(message)

    async def send(self, message: bytes) -> None:
        if self._write is None or self.closed:
            self.send_nowait(message)  # (raises when closed)
        else:
            await self._write(message)

    def close(self) -> None:
        closed = self.closed
        super().close()
        if not closed:
            self._on_close()


class LineTransport(Inlet):
    """Newline framing over a pair of byte streams as a transport of whole messages: a
    `LineReader` in, a `LineWriter` out. Over a `PushReader` each chunk is split and its lines put
    in the protocol callback that received it; over any other reader a task reads chunks and puts
    their lines."""

    def __init__(
        self,
        reader: ByteReader,
        writer: ByteWriter,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        on_error: Callable[[BaseException], object] | None = None,
    ) -> None:
        super().__init__()
        self._source = reader
        self._lines = LineReader(reader, max_line_bytes)
        self._out = LineWriter(writer, on_error=on_error)
        self._pump: asyncio.Task[None] | None = None
        self._flowing = asyncio.Event()  # cleared while paused: the reading task waits
        self._flowing.set()
        self.send_nowait = self._out.write_nowait  # bound once: no frame of ours per message
        self.send = self._out.write

    def pause_reading(self) -> None:
        """Hand no more lines on; a pushing reader's transport is paused (those pushed wait)."""
        super().pause_reading()
        self._flowing.clear()
        if isinstance(self._source, PushReader):
            self._source.pause()

    def resume_reading(self) -> None:
        super().resume_reading()
        self._flowing.set()
        if isinstance(self._source, PushReader):
            self._source.resume()

    def start(self, on_messages: OnMessages, on_end: OnEnd) -> None:
        if isinstance(self._source, PushReader):  # what it holds is put first: `Inlet.start`
            self._source.attach(self._on_data, self._on_eof)  # hands it on a loop turn later
        else:
            self._pump = asyncio.get_running_loop().create_task(self._pull())
        super().start(on_messages, on_end)

    def _on_data(self, chunk: bytes) -> None:
        """A chunk pushed by the `PushReader`: its lines handed on in this very call."""
        self._out.fresh()  # input: a new loop turn
        lines = self._lines.split(chunk)
        if lines:
            self.put(lines)

    def _on_eof(self, error: BaseException | None) -> None:
        if error is None:
            self._on_data(b"")  # the unterminated last line, if any
        self.end(error)

    async def _pull(self) -> None:
        try:
            while await self._flowing.wait() and (lines := await self._lines.readlines()):
                self._out.fresh()  # input: a new loop turn, as in `start`
                self.put(lines)
        except Exception as exc:  # a broken stream
            self.end(exc)
        else:
            self.end(None)

    def close(self) -> None:
        self._out.close()
        super().close()
        if self._pump is not None:
            self._pump.cancel()
        if isinstance(self._source, PushReader):
            self._source.detach()
