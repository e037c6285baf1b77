"""The client's reading of a server-sent event stream: `EventParser` takes the stream's bytes as
they come, in pieces of any size, and gives the data of each whole event.

Each event's data lines are joined with newlines; comments (`: keepalive`) and other fields are
skipped. A line, or an event's data, longer than the client's message limit raises
`OversizedEventError`: what is buffered never grows past the limit by more than a piece.
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

from ..jsonrpc.framing import DEFAULT_MAX_LINE_BYTES


class OversizedEventError(Exception):
    """An SSE line or event passed the client's message limit."""


class SilentServerError(Exception):
    """An SSE stream brought nothing, not even a keepalive, for its read deadline."""


class EventParser:
    """Incremental SSE parsing: `feed(piece)` returns the data of the events it completed."""

    __slots__ = ("_limit", "_buffer", "_scanned", "_data", "_size")

    def __init__(self, limit: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self._limit = limit
        self._buffer = bytearray()
        self._scanned = 0  # bytes of `_buffer` known to hold no newline
        self._data: list[bytes] = []
        self._size = 0  # of `_data`

    def feed(self, piece: bytes) -> list[bytes]:
        """The events `piece` completes (none, one or several), in order."""
        events: list[bytes] = []
        buffer = self._buffer
        buffer += piece
        start = 0
        scanned = self._scanned
        while (end := buffer.find(b"\n", max(start, scanned))) >= 0:
            line = bytes(buffer[start:end]).rstrip(b"\r")
            start = scanned = end + 1
            if not line:
                if self._data:
                    events.append(b"\n".join(self._data))
                    self._data, self._size = [], 0
            elif line.startswith(b"data:"):
                value = line[5:]
                value = value[1:] if value.startswith(b" ") else value
                self._data.append(value)
                self._size += len(value) + 1
                if self._size > self._limit:
                    raise OversizedEventError(f"an event over {self._limit} bytes")
        del buffer[:start]
        self._scanned = len(buffer)
        if self._scanned > self._limit + 8:  # "data: " and a CRLF beyond the message itself
            raise OversizedEventError(f"a line over {self._limit} bytes")
        return events

    def end(self) -> bytes | None:
        """At the end of the stream: the data of an event that had no blank line after it."""
        if not self._data:
            return None
        data, self._data, self._size = b"\n".join(self._data), [], 0
        return data


async def alive_within(chunks: AsyncIterator[bytes], seconds: float | None) -> AsyncIterator[bytes]:
    """The chunks of a response; `SilentServerError` when none comes for `seconds` (None: no
    deadline). A keepalive comment is a chunk: a quiet but live server passes."""
    iterator = chunks.__aiter__()
    while True:
        try:
            async with asyncio.timeout(seconds):
                chunk = await anext(iterator)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise SilentServerError(
                f"nothing came for {seconds} seconds, not even a keepalive"
            ) from None
        yield chunk


async def sse_events(
    chunks: AsyncIterator[bytes], limit: int = DEFAULT_MAX_LINE_BYTES
) -> AsyncIterator[bytes]:
    """The data of each server-sent event of `chunks`; an event unfinished at the end of the
    stream is the last."""
    parser = EventParser(limit)
    async for chunk in chunks:
        for event in parser.feed(chunk):
            yield event
    if (last := parser.end()) is not None:
        yield last
