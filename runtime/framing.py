"""Newline-delimited framing over any pair of byte streams.

The reader side wants anything with `async read(n) -> bytes` (an `asyncio.StreamReader`); the
writer side anything with `write(bytes)` and `async drain()` (an `asyncio.StreamWriter`).
`memory_pipe()` gives two connected in-memory ends, for tests and in-process peers.
"""

from __future__ import annotations

import asyncio
from typing import Callable, Protocol

import msgspec

DEFAULT_MAX_LINE_BYTES = 128 * 1024 * 1024
"""Default limit of one incoming line (message). A longer line is answered with an error."""

_CHUNK = 256 * 1024
_SNIFF = 4096  # bytes of an oversized line kept to find its id and kind


class ByteReader(Protocol):
    async def read(self, n: int = -1) -> bytes: ...


class ByteWriter(Protocol):
    def write(self, data: bytes) -> object: ...

    async def drain(self) -> None: ...


class OversizedLine(msgspec.Struct, frozen=True):
    """A line longer than the limit: it was skipped; `head` holds its first bytes."""

    size: int
    head: bytes


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
        self._ready: list[bytes | OversizedLine] = []
        self._skipped = 0  # > 0 while skipping the rest of an oversized line
        self._head = b""
        self._eof = False

    async def readline(self) -> bytes | OversizedLine | None:
        """The next line without its newline, an `OversizedLine`, or None at end of stream.

        At EOF, unterminated trailing bytes are returned as a last line.
        """
        while not self._ready:
            if self._eof:
                return None
            self._feed(await self._stream.read(_CHUNK))
        return self._ready.pop(0)

    async def readlines(self) -> list[bytes | OversizedLine] | None:
        """Every complete line that has arrived (at least one), or None at end of stream."""
        while not self._ready:
            if self._eof:
                return None
            self._feed(await self._stream.read(_CHUNK))
        lines, self._ready = self._ready, []
        return lines

    def _feed(self, chunk: bytes) -> None:
        if not chunk:
            self._eof = True
            if self._skipped:
                self._ready.append(self._end_skip(0))
            elif self._pieces:
                self._ready.append(self._line(b""))
            return
        if self._skipped:  # the rest of an oversized line: drop it up to its newline
            i = chunk.find(b"\n")
            if i < 0:
                self._skipped += len(chunk)
                return
            self._ready.append(self._end_skip(i))
            chunk = chunk[i + 1 :]
        i = chunk.find(b"\n")
        if i < 0:
            self._keep(chunk)
            return
        if self._pieces:  # the line that was waiting for its newline
            self._ready.append(self._line(chunk[:i]))
            chunk = chunk[i + 1 :]
        lines = chunk.split(b"\n")
        tail = lines.pop()
        if len(chunk) > self._max:
            self._ready += [
                OversizedLine(len(line), line[:_SNIFF]) if len(line) > self._max else line
                for line in lines
            ]
        else:
            self._ready += lines
        if tail:
            self._keep(tail)

    def _keep(self, part: bytes) -> None:
        """Hold the start of a line; past the limit, keep only its head and count the rest."""
        if not part:
            return
        self._pieces.append(part)
        self._size += len(part)
        if self._size > self._max:
            head = b"".join(self._pieces)
            self._head = head[:_SNIFF]
            self._skipped = len(head)
            self._pieces, self._size = [], 0

    def _line(self, end: bytes) -> bytes | OversizedLine:
        self._pieces.append(end)
        line = b"".join(self._pieces)
        self._pieces, self._size = [], 0
        return OversizedLine(len(line), line[:_SNIFF]) if len(line) > self._max else line

    def _end_skip(self, tail: int) -> OversizedLine:
        out = OversizedLine(self._skipped + tail, self._head)
        self._skipped, self._head = 0, b""
        return out


_DRAIN_ABOVE = 64 * 1024
"""Wait for the peer to read (drain) only once this many bytes wait in the transport's buffer."""
_FLUSH_ABOVE = 64 * 1024
"""Hand the messages written so far to the stream at once when they reach this many bytes."""


class LineWriter:
    """Writes one message per line. The first message of a turn of the event loop goes to the
    stream at once; the ones written after it in the same turn are joined and handed over in one
    `write` call (one system call) at the end of the turn, or as soon as they pass `_FLUSH_ABOVE`
    bytes. Lines never mix, and their order is kept.

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
        self._scheduled = False
        self._failed: BaseException | None = None
        # looked up once, not per message: `get_running_loop()` costs a getpid() system call
        # (3.11), and the stream's transport (whose buffer says whether to drain) stays the same
        self._loop: asyncio.AbstractEventLoop | None = None
        self._transport: asyncio.WriteTransport | None = getattr(stream, "transport", None)

    def write_nowait(self, message: bytes) -> None:
        if self._failed is not None:
            raise self._failed
        if not self._scheduled:  # the first message of a loop turn goes out at once
            self._scheduled = True
            loop = self._loop
            if loop is None:
                loop = self._loop = asyncio.get_running_loop()
            loop.call_soon(self._flush_soon)
            self._stream.write(message + b"\n")
            return
        self._parts.append(message)
        self._size += len(message)
        if self._size >= _FLUSH_ABOVE:
            self.flush()

    async def write(self, message: bytes) -> None:
        self.write_nowait(message)
        transport = self._transport
        if transport is not None and transport.get_write_buffer_size() < _DRAIN_ABOVE:
            return  # the bytes went out (or nearly): no back-pressure to wait for
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
        self._stream.write(data)

    def _flush_soon(self) -> None:
        self._scheduled = False
        try:
            self.flush()
        except Exception as exc:  # a broken stream: later writes raise it, the owner is told
            self._failed = exc
            if self._on_error is not None:
                self._on_error(exc)

    def close(self) -> None:
        try:
            self.flush()
        except Exception:  # already closed, broken pipe: nothing left to do
            pass
        close = getattr(self._stream, "close", None)
        if close is not None:
            try:
                close()
            except Exception:  # already closed, broken pipe: nothing left to do
                pass


class LineTransport:
    """Newline framing over a pair of byte streams as a transport of whole messages
    (`acp_runtime.transport.Transport`): a `LineReader` in, a `LineWriter` out."""

    __slots__ = ("_lines", "_out", "receive", "send_nowait", "send")

    def __init__(
        self,
        reader: ByteReader,
        writer: ByteWriter,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        on_error: Callable[[BaseException], object] | None = None,
    ) -> None:
        self._lines = LineReader(reader, max_line_bytes)
        self._out = LineWriter(writer, on_error=on_error)
        self.receive = self._lines.readlines  # bound once: no frame of ours per call
        self.send_nowait = self._out.write_nowait
        self.send = self._out.write

    def close(self) -> None:
        self._out.close()


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

    def is_closing(self) -> bool:
        return self._closed

    async def wait_closed(self) -> None:
        return None


def memory_pipe() -> (
    tuple[tuple[asyncio.StreamReader, MemoryWriter], tuple[asyncio.StreamReader, MemoryWriter]]
):
    """Two connected ends `(reader, writer)`: what one end writes, the other reads."""
    a_in, b_in = asyncio.StreamReader(), asyncio.StreamReader()
    return (a_in, MemoryWriter(b_in)), (b_in, MemoryWriter(a_in))
