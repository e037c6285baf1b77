"""Newline-delimited framing over any pair of byte streams.

The reader side wants anything with `async read(n) -> bytes` (an `asyncio.StreamReader`); the
writer side anything with `write(bytes)` and `async drain()` (an `asyncio.StreamWriter`).
`memory_pipe()` gives two connected in-memory ends, for tests and in-process peers.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Protocol

DEFAULT_MAX_LINE_BYTES = 128 * 1024 * 1024
"""Default limit of one incoming line (message). A longer line is answered with an error."""

_CHUNK = 256 * 1024
_SNIFF = 4096  # bytes of an oversized line kept to find its id and kind


class ByteReader(Protocol):
    async def read(self, n: int = -1) -> bytes: ...


class ByteWriter(Protocol):
    def write(self, data: bytes) -> object: ...

    async def drain(self) -> None: ...


@dataclass(frozen=True)
class OversizedLine:
    """A line longer than the limit: it was skipped; `head` holds its first bytes."""

    size: int
    head: bytes


class LineReader:
    """Reads one line at a time, never holding more than the limit (plus one chunk) in memory."""

    def __init__(self, stream: ByteReader, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self._stream = stream
        self._max = max_line_bytes
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf known to hold no newline
        self._skipped = 0  # > 0 while skipping the rest of an oversized line
        self._head = b""
        self._eof = False

    async def readline(self) -> bytes | OversizedLine | None:
        """The next line without its newline, an `OversizedLine`, or None at end of stream.

        At EOF, unterminated trailing bytes are returned as a last line.
        """
        while True:
            i = self._buf.find(b"\n", self._scanned)
            if i >= 0:
                line = bytes(self._buf[:i])
                del self._buf[: i + 1]
                self._scanned = 0
                if self._skipped:
                    return self._end_skip(len(line))
                if len(line) > self._max:
                    return OversizedLine(len(line), line[:_SNIFF])
                return line
            if len(self._buf) > self._max or self._skipped:
                if not self._skipped:
                    self._head = bytes(self._buf[:_SNIFF])
                self._skipped += len(self._buf)
                self._buf.clear()
            self._scanned = len(self._buf)
            if self._eof:
                if self._skipped:
                    return self._end_skip(0)
                if self._buf:
                    line = bytes(self._buf)
                    self._buf.clear()
                    self._scanned = 0
                    return line
                return None
            chunk = await self._stream.read(_CHUNK)
            if chunk:
                self._buf += chunk
            else:
                self._eof = True

    def _end_skip(self, tail: int) -> OversizedLine:
        out = OversizedLine(self._skipped + tail, self._head)
        self._skipped, self._head = 0, b""
        return out


_DRAIN_ABOVE = 64 * 1024
"""Wait for the peer to read (drain) only once this many bytes wait in the transport's buffer."""


class LineWriter:
    """Writes one message per line; each message is a single `write` call, so lines never mix."""

    def __init__(self, stream: ByteWriter) -> None:
        self._stream = stream
        self._drain_lock = asyncio.Lock()

    def write_nowait(self, message: bytes) -> None:
        self._stream.write(message + b"\n")

    async def write(self, message: bytes) -> None:
        self.write_nowait(message)
        transport = getattr(self._stream, "transport", None)
        if transport is not None and transport.get_write_buffer_size() < _DRAIN_ABOVE:
            return  # the bytes went out (or nearly): no back-pressure to wait for
        async with self._drain_lock:
            await self._stream.drain()

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            try:
                close()
            except Exception:  # already closed, broken pipe: nothing left to do
                pass


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
