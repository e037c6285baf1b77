"""Newline-delimited framing over any pair of byte streams.

The reader side wants anything with `async read(n) -> bytes` (an `asyncio.StreamReader`); the
writer side anything with `write(bytes)` and `async drain()` (an `asyncio.StreamWriter`).
And the bytes an event-loop protocol receives, pushed to one consumer (`PushReader`, fed by
`PushProtocol` or a subprocess protocol), and `memory_pipe()`: two connected in-memory ends, for
tests and in-process peers.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Awaitable, Callable, Protocol, cast

import msgspec

DEFAULT_MAX_LINE_BYTES = 128 * 1024 * 1024
"""Default limit of one incoming line (message). A longer line is answered with an error."""

_CHUNK = 256 * 1024
SNIFF = 4096  # bytes of an oversized line kept to find its id and kind


class ByteReader(Protocol):
    async def read(self, n: int = -1) -> bytes: ...


class ByteWriter(Protocol):
    def write(self, data: bytes) -> object: ...

    async def drain(self) -> None: ...


class OversizedLine(msgspec.Struct, frozen=True):
    """A line longer than the limit: it was skipped; `head` holds its first bytes."""

    size: int
    head: bytes


OnMessages = Callable[[list["bytes | OversizedLine"]], None]
"""Takes messages as they arrive, in order (a transport's `start`)."""
OnEnd = Callable[[BaseException | None], None]
"""Told once that the input ended: None at its end, the error when reading failed."""


class LineReader:
    """Reads newline-delimited lines, never holding more than the limit (plus one chunk) in memory.

    It reads large chunks and splits each with one `bytes.split` call: `readlines()` returns every
    complete line that has arrived, so a connection handles a burst of messages in one loop turn.
    """

    def __init__(self, stream: ByteReader, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self._stream = stream
        self._max = max_line_bytes
        self._pieces: list[bytes] = []  # the start of a line whose newline has not come yet
        self._size = 0  # bytes in _pieces
        self._ready: list[bytes | OversizedLine] = []  # lines read, not yet taken by `readline`
        self._skipped = 0  # > 0 while skipping the rest of an oversized line
        self._head = b""
        self._eof = False

    async def readline(self) -> bytes | OversizedLine | None:
        """The next line without its newline, an `OversizedLine`, or None at end of stream.

        At EOF, unterminated trailing bytes are returned as a last line.
        """
        if not self._ready:
            lines = await self.readlines()
            if lines is None:
                return None
            self._ready = lines
        return self._ready.pop(0)

    async def readlines(self) -> list[bytes | OversizedLine] | None:
        """Every complete line that has arrived (at least one), or None at end of stream."""
        while not self._eof:
            lines = self.split(await self._stream.read(_CHUNK))
            if lines:
                return lines
        return None

    def split(self, chunk: bytes) -> list[bytes | OversizedLine]:
        """The lines `chunk` completes (b"": the end of the stream, with an unterminated last
        line if any): for bytes read, and for bytes pushed rather than read (`PushReader`)."""
        if not chunk:
            self._eof = True
            if self._skipped:
                return [self._end_skip(0)]
            return [self._line(b"")] if self._pieces else []
        pieces = chunk.split(b"\n")
        tail = pieces.pop()  # after the last newline: the start of a line still to come
        lines: list[bytes | OversizedLine] = pieces  # type: ignore[assignment]
        if not lines:  # no newline: all of it belongs to the line that waits
            if self._skipped:  # the rest of an oversized line: dropped
                self._skipped += len(tail)
            else:
                self._keep(tail)
            return []
        if self._skipped:  # the end of an oversized line
            lines[0] = self._end_skip(len(pieces[0]))
        elif self._pieces:  # the end of the line that was waiting for its newline
            lines[0] = self._line(pieces[0])
        if len(chunk) > self._max:
            limit = self._max
            lines = [
                OversizedLine(len(x), x[:SNIFF]) if type(x) is bytes and len(x) > limit else x
                for x in lines
            ]
        if tail:
            self._keep(tail)
        return lines

    def _keep(self, part: bytes) -> None:
        """Hold the start of a line; past the limit, keep only its head and count the rest."""
        if not part:
            return
        self._pieces.append(part)
        self._size += len(part)
        if self._size > self._max:
            head = b"".join(self._pieces)
            self._head = head[:SNIFF]
            self._skipped = len(head)
            self._pieces, self._size = [], 0

    def _line(self, end: bytes) -> bytes | OversizedLine:
        self._pieces.append(end)
        line = b"".join(self._pieces)
        self._pieces, self._size = [], 0
        return OversizedLine(len(line), line[:SNIFF]) if len(line) > self._max else line

    def _end_skip(self, tail: int) -> OversizedLine:
        out = OversizedLine(self._skipped + tail, self._head)
        self._skipped, self._head = 0, b""
        return out


_DRAIN_ABOVE = 64 * 1024
"""Wait for the peer to read (drain) only once this many bytes wait in the transport's buffer."""
_FLUSH_ABOVE = 64 * 1024
"""Hand the messages written so far to the stream at once when they reach this many bytes."""


class LineWriter:
    """Writes one message per line. A message written while the writer is idle (nothing written
    since the last end of a loop turn it waited for, or since input arrived: `fresh`) goes to the
    stream at once, and no call is scheduled for it; the ones written after it are joined and
    handed over in one `write` call (one system call) at the end of the loop turn, or as soon as
    they pass `_FLUSH_ABOVE` bytes. Lines never mix, and their order is kept. (An answer written
    after a request arrived costs one `write` and nothing more; a burst costs two.)

    `on_error(exc)` is told when handing them over fails after the call that wrote them returned;
    later writes then raise that error.
    """

    def __init__(
        self, stream: ByteWriter, on_error: Callable[[BaseException], object] | None = None
    ) -> None:
        self._stream = stream
        self._on_error = on_error
        self._drain_lock = asyncio.Lock()
        self._parts: list[bytes] = []
        self._size = 0
        self._scheduled = False  # a flush at the end of this loop turn (`_flush_soon`)
        self._fresh = True  # idle: the next message may go out at once (`fresh`)
        self._failed: BaseException | None = None
        # looked up once, not per message: `get_running_loop()` costs a getpid() system call
        # (3.11), and the stream's transport (whose buffer says whether to drain) stays the same
        self._loop = asyncio.get_running_loop()  # (a writer is made in the loop it writes in)
        self._transport: asyncio.WriteTransport | None = getattr(stream, "transport", None)
        # what takes the bytes: an asyncio.StreamWriter's `write` is its transport's (no frame)
        self._write: Callable[[bytes], object] = (
            self._transport.write
            if type(stream) is asyncio.StreamWriter and self._transport is not None
            else stream.write
        )
        self._done: asyncio.Future[None] | None = None  # what `write` returns when nothing waits
        # the transport's buffer was below `_DRAIN_ABOVE` when last asked, and nothing was handed
        # to it since (it grows only by our writes): no need to ask again (on stock asyncio that
        # is a Python call per message)
        self._below = False

    def fresh(self) -> None:
        """Input arrived (a new loop turn): the next message may go out at once, unless messages
        of this turn still wait for its end (they go first)."""
        if not self._scheduled:
            self._fresh = True

    def write_nowait(self, message: bytes) -> None:
        if self._failed is not None:
            raise self._failed
        if self._fresh:  # idle: at once, and nothing to schedule (`_scheduled` is False)
            self._fresh = self._below = False
            self._write(message + b"\n")
            return
        if not self._scheduled:  # the ones after it wait for the end of the loop turn
            self._scheduled = True
            self._loop.call_soon(self._flush_soon)
        self._parts.append(message)
        self._size += len(message)
        if self._size >= _FLUSH_ABOVE:
            self.flush()

    def write(self, message: bytes) -> Awaitable[None]:
        """Write one message; the awaitable returned waits while the peer reads too slowly.

        Not a coroutine: with no back-pressure to wait for (the common case), the message is
        written by the call and the awaitable is a finished future, with no frame to run."""
        self.write_nowait(message)
        done = self._done
        if self._below and done is not None:  # nothing handed over since the buffer was low
            return done
        transport = self._transport
        if transport is not None and transport.get_write_buffer_size() < _DRAIN_ABOVE:
            done = self._done  # the bytes went out (or nearly): no back-pressure to wait for
            if done is None:  # a future that is done: awaiting it returns at once, as often
                done = self._done = self._loop.create_future()
                done.set_result(None)
            self._below = True
            return done
        return self._drain()

    async def _drain(self) -> None:
        self.flush()
        async with self._drain_lock:
            await self._stream.drain()

    def flush(self) -> None:
        """Hand every message written so far to the stream now."""
        parts = self._parts
        if not parts:
            return
        self._parts, self._size = [], 0
        if len(parts) == 1:
            data = parts[0] + b"\n"
        else:
            parts.append(b"")
            data = b"\n".join(parts)
        self._below = False
        self._write(data)

    def _flush_soon(self) -> None:
        self._scheduled = False
        self._fresh = True  # the end of the loop turn: idle again
        try:
            self.flush()
        except Exception as exc:  # a broken stream: later writes raise it, the owner is told
            self._failed = exc
            if self._on_error is not None:
                self._on_error(exc)

    def close(self) -> None:
        with contextlib.suppress(Exception):  # already closed, broken pipe: nothing left to do
            self.flush()
        close = getattr(self._stream, "close", None)
        with contextlib.suppress(Exception):  # (the same)
            if close is not None:
                close()


class PushReader:
    """The bytes an event-loop protocol receives (`PushProtocol`, or a subprocess protocol
    calling `feed_data`), for one consumer: one that `attach`es is handed each chunk in the
    callback that received it (no loop turn between the system call and the message), and may
    `pause` the protocol's transport; `read` serves as a `ByteReader` otherwise, and unread bytes
    past `limit` pause the transport."""

    def __init__(self, limit: int = 1 << 20) -> None:
        self._limit = limit
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._eof = False
        self._error: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._on_data: Callable[[bytes], None] | None = None
        self._on_end: Callable[[BaseException | None], None] | None = None
        self.transport: asyncio.ReadTransport | None = None
        self._paused = False

    def feed_data(self, data: bytes) -> None:
        if self._on_data is not None:
            self._on_data(data)
            return
        self._chunks.append(data)
        self._size += len(data)
        if self._size > self._limit:
            self.pause()
        self._wake()

    def feed_eof(self, error: BaseException | None = None) -> None:
        if not self._eof:
            self._eof, self._error = True, error
            self._end()
            self._wake()

    def _end(self) -> None:
        on_end = self._on_end
        if on_end is not None:
            self._on_data = self._on_end = None
            on_end(self._error)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def attach(
        self, on_data: Callable[[bytes], None], on_end: Callable[[BaseException | None], None]
    ) -> None:
        """Hand every chunk to `on_data` and the end of input to `on_end`: those that came
        before in this call, in order, the rest as they come."""
        while self._chunks:
            on_data(self._chunks.popleft())
        self._size = 0
        self._on_data, self._on_end = on_data, on_end
        if self._eof:
            self._end()
        self.resume()

    def detach(self) -> None:
        """Hand nothing more over (what comes is kept, for `read`)."""
        self._on_data = self._on_end = None

    def pause(self) -> None:
        """Pause the protocol's transport: no more bytes come until `resume`."""
        if self.transport is not None and not self._paused:
            self._paused = True
            self.transport.pause_reading()

    def resume(self) -> None:
        if self._paused and self._size <= self._limit and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()

    async def read(self, n: int = -1) -> bytes:
        while not self._chunks:
            if self._eof:
                if self._error is not None:
                    raise self._error
                return b""
            # (a waiter woken, or left by a cancelled read, is done: `_wake` skips it)
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        chunk = self._chunks.popleft()
        if 0 < n < len(chunk):
            chunk, rest = chunk[:n], chunk[n:]
            self._chunks.appendleft(rest)
        self._size -= len(chunk)
        self.resume()
        return chunk


class PushProtocol(asyncio.Protocol):
    """An event-loop read pipe's protocol feeding a `PushReader`."""

    def __init__(self, reader: PushReader) -> None:
        self._reader = reader

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._reader.transport = cast("asyncio.ReadTransport", transport)

    def data_received(self, data: bytes) -> None:
        self._reader.feed_data(data)

    def eof_received(self) -> None:
        self._reader.feed_eof()

    def connection_lost(self, exc: Exception | None) -> None:
        self._reader.feed_eof(exc)


class MemoryWriter:
    """The writing end of an in-memory pipe: what it writes, the paired StreamReader reads."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader
        self._closed = False

    def write(self, data: bytes) -> None:
        if self._closed:
            raise ConnectionResetError("memory pipe closed")
        self._reader.feed_data(data)

    async def drain(self) -> None:
        if self._closed:
            raise ConnectionResetError("memory pipe closed")
        await asyncio.sleep(0)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._reader.feed_eof()


def memory_pipe() -> (
    tuple[tuple[asyncio.StreamReader, MemoryWriter], tuple[asyncio.StreamReader, MemoryWriter]]
):
    """Two connected ends `(reader, writer)`: what one end writes, the other reads."""
    a_in, b_in = asyncio.StreamReader(), asyncio.StreamReader()
    return (a_in, MemoryWriter(b_in)), (b_in, MemoryWriter(a_in))
