"""The bytes an event-loop protocol receives, pushed to one consumer (`PushReader`, fed by
`PushProtocol` or a subprocess protocol), and `memory_pipe()`: two connected in-memory ends, for
tests and in-process peers."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Callable, cast


class PushReader:
    """The bytes an event-loop protocol receives (`PushProtocol`, or a subprocess protocol
    calling `feed_data`), for one consumer: one that `attach`es is handed each chunk in the
    callback that received it (no loop turn between the system call and the message); `read`
    serves as a `ByteReader` otherwise. Unread bytes past `limit` pause the protocol's transport."""

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
        self._held = False  # attached, but what arrived before is not handed over yet
        self._stopped = False  # paused by the consumer (`pause`)

    # --- fed by the protocol ----------------------------------------------------------------------

    def feed_data(self, data: bytes) -> None:
        if self._on_data is not None and not self._held:
            self._on_data(data)
            return
        self._chunks.append(data)
        self._size += len(data)
        if self._size > self._limit and self.transport is not None and not self._paused:
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def feed_eof(self, error: BaseException | None = None) -> None:
        if self._eof:
            return
        self._eof, self._error = True, error
        on_end = self._on_end
        if on_end is not None and not self._held:
            self._on_data = self._on_end = None
            on_end(error)
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # --- taken by the consumer --------------------------------------------------------------------

    def attach(
        self, on_data: Callable[[bytes], None], on_end: Callable[[BaseException | None], None]
    ) -> None:
        """Hand every chunk to `on_data` from now on and the end of input to `on_end`; what
        arrived before is handed over in the next loop turn."""
        self._on_data, self._on_end = on_data, on_end
        if self._chunks or self._eof:
            self._held = True  # until the next loop turn: the owner is still being built
            asyncio.get_running_loop().call_soon(self._hand_over)
        self._resume()

    def pause(self) -> None:
        """Hand nothing more to the consumer until `resume` (chunks are kept; past the limit the
        protocol's transport is paused)."""
        self._held = self._stopped = True

    def resume(self) -> None:
        if self._stopped:
            self._stopped = False
            asyncio.get_running_loop().call_soon(self._hand_over)

    def _hand_over(self) -> None:
        if self._stopped:  # paused by the consumer since: `resume` hands over
            return
        self._held = False
        while self._chunks and self._on_data is not None and not self._held:
            chunk = self._chunks.popleft()
            self._size -= len(chunk)
            self._on_data(chunk)
        self._resume()
        if self._held or self._chunks:
            return
        if self._eof and self._on_end is not None:
            on_end, self._on_data, self._on_end = self._on_end, None, None
            on_end(self._error)

    def detach(self) -> None:
        """Hand nothing more over."""
        self._on_data = self._on_end = None

    async def read(self, n: int = -1) -> bytes:
        while not self._chunks:
            if self._eof:
                if self._error is not None:
                    raise self._error
                return b""
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        chunk = self._chunks.popleft()
        if 0 < n < len(chunk):
            chunk, rest = chunk[:n], chunk[n:]
            self._chunks.appendleft(rest)
        self._size -= len(chunk)
        self._resume()
        return chunk

    def _resume(self) -> None:
        if self._paused and self._size <= self._limit and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()


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
