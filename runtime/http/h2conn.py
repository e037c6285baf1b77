"""One HTTP/2 connection (h2c: prior knowledge on `http://`) carrying every request of an ACP
connection: its POSTs, its DELETE, and its SSE streams, multiplexed, as the RFD intends. It is
an httpx transport (`httpx.AsyncBaseTransport`): the client around it keeps the cookies and sets
the default headers, as on every other path.

httpx's own transport cannot carry them on one connection: httpcore reads an HTTP/2 connection
under one lock taken in turn, and a stream whose answer is already read queues behind an idle
SSE stream that holds the lock while it waits for the network (with two SSE streams and a POST,
the POST's answer waits for the next keepalive). Here one asyncio protocol reads the socket and
hands each frame to its stream, so no stream waits for another. It drives h2 through its
documented API only.

Flow control: a stream's window is given back as its reader takes the data; a request body larger
than the send window waits for the server's window updates; requests past the server's
MAX_CONCURRENT_STREAMS wait for a stream to end. GOAWAY: no new stream, and the streams the server
did not take fail.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from typing import AsyncIterator

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import httpx

from .remote import PostFailed


class _Stream:
    __slots__ = ("head", "chunks", "ended", "error", "wake")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.head: asyncio.Future[tuple[int, list[tuple[bytes, bytes]]]] = loop.create_future()
        self.chunks: collections.deque[bytes] = collections.deque()
        self.ended = False
        self.error: Exception | None = None
        self.wake = asyncio.Event()

    def fail(self, error: Exception) -> None:
        if not self.ended and self.error is None:
            self.error = error
        if not self.head.done():
            self.head.set_exception(error)
            self.head.exception()  # a stream nobody awaits must not log "never retrieved"
        self.wake.set()


class _Body(httpx.AsyncByteStream):
    """An answer's data as its reader takes it; closed before the server ended it, its stream is
    reset."""

    def __init__(self, owner: H2Connection, stream_id: int, request: httpx.Request) -> None:
        self.owner, self.stream_id, self.request = owner, stream_id, request
        self.stream = owner.streams[stream_id]
        self.read_timeout = request.extensions.get("timeout", {}).get("read")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        stream = self.stream
        while True:
            if stream.chunks:
                chunk = stream.chunks.popleft()
                self.owner.acknowledge(len(chunk), self.stream_id)
                self.owner.flush()
                yield chunk
            elif stream.error is not None:
                raise stream.error
            elif stream.ended:
                return
            else:
                stream.wake.clear()
                try:
                    async with asyncio.timeout(self.read_timeout):
                        await stream.wake.wait()
                except TimeoutError:
                    raise httpx.ReadTimeout("no data came", request=self.request) from None

    async def aclose(self) -> None:
        self.owner.end(self.stream_id, self.stream)


class H2Connection(httpx.AsyncBaseTransport, asyncio.Protocol):
    """An HTTP/2 client connection to the origin of its first request, opened by it."""

    def __init__(self) -> None:
        config = h2.config.H2Configuration(client_side=True, header_encoding=None)
        self._h2 = h2.connection.H2Connection(config=config)
        self._transport: asyncio.Transport | None = None
        self._opening: asyncio.Task[None] | None = None
        self._url = ""
        self.streams: dict[int, _Stream] = {}
        self._changed = asyncio.Event()  # a send window or a stream slot may have opened
        self._broken: Exception | None = None  # no stream can go on
        self._refusing: Exception | None = None  # no new stream (GOAWAY)

    # --- asyncio.Protocol -------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._h2.initiate_connection()
        self.flush()

    def data_received(self, data: bytes) -> None:
        try:
            events = self._h2.receive_data(data)
        except h2.exceptions.ProtocolError as exc:
            self._break(PostFailed(f"HTTP/2 protocol error from {self._url}: {exc!r}"))
            return
        for event in events:
            self._on_event(event)
        self.flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        self._break(PostFailed(f"the HTTP/2 connection to {self._url} closed: {exc!r}"))

    def _on_event(self, event: h2.events.Event) -> None:
        stream = self.streams.get(getattr(event, "stream_id", 0) or 0)
        if isinstance(event, h2.events.ResponseReceived) and stream is not None:
            status, headers = 0, []
            for name, value in event.headers or []:
                if name == b":status":
                    status = int(value)
                elif not name.startswith(b":"):
                    headers.append((name, value))
            if not stream.head.done():
                stream.head.set_result((status, headers))
        elif isinstance(event, h2.events.DataReceived):
            size = event.flow_controlled_length or 0
            if stream is None or not event.data:  # a stream given up, or padding only
                self.acknowledge(size, event.stream_id)
            else:  # its window goes back as the reader takes it (`_Body`); padding at once
                stream.chunks.append(event.data)
                stream.wake.set()
                self.acknowledge(size - len(event.data), event.stream_id)
        elif isinstance(event, h2.events.StreamEnded) and stream is not None:
            stream.ended = True
            stream.wake.set()
        elif isinstance(event, h2.events.StreamReset) and stream is not None:
            stream.fail(PostFailed(f"the server reset the stream ({event.error_code!r})"))
        elif isinstance(event, h2.events.ConnectionTerminated):
            # GOAWAY: the streams past `last_stream_id` were not processed and fail, the others
            # may still finish (the server closes the socket after them)
            error = PostFailed(f"the server ended the HTTP/2 connection ({event.error_code!r})")
            self._refusing = error
            for stream_id, each in list(self.streams.items()):
                if event.last_stream_id is None or stream_id > event.last_stream_id:
                    each.fail(error)
        self._changed.set()

    def _break(self, error: Exception) -> None:
        self._broken = self._broken or error
        self._refusing = self._refusing or error
        for stream in self.streams.values():
            stream.fail(error)
        self._changed.set()

    def flush(self) -> None:
        data = self._h2.data_to_send()
        if data and self._transport is not None and not self._transport.is_closing():
            self._transport.write(data)

    def acknowledge(self, size: int, stream_id: int) -> None:
        if size > 0 and self._broken is None:
            with contextlib.suppress(h2.exceptions.ProtocolError):
                self._h2.acknowledge_received_data(size, stream_id)

    def end(self, stream_id: int, stream: _Stream) -> None:
        """The reader is done with a stream: one the server has not ended is reset."""
        self.streams.pop(stream_id, None)
        if not stream.ended and stream.error is None:
            with contextlib.suppress(h2.exceptions.ProtocolError):
                self._h2.reset_stream(stream_id, h2.errors.ErrorCodes.CANCEL)
        self._changed.set()
        self.flush()

    # --- httpx.AsyncBaseTransport -----------------------------------------------------------------

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send a request; the answer's head, and its data as the reader takes it."""
        body = await request.aread()
        stream_id, stream = await self._start(request, body)
        try:
            status, headers = await stream.head
        except BaseException:
            self.end(stream_id, stream)
            raise
        version = {"http_version": b"HTTP/2"}
        stream_body = _Body(self, stream_id, request)
        return httpx.Response(status, headers=headers, stream=stream_body, extensions=version)

    async def _connect(self, request: httpx.Request) -> None:
        loop = asyncio.get_running_loop()
        url, timeout = request.url, request.extensions.get("timeout", {}).get("connect")
        self._url = str(url)
        try:
            async with asyncio.timeout(timeout):
                await loop.create_connection(lambda: self, url.host, url.port or 80)
        except (OSError, asyncio.TimeoutError) as exc:
            error = PostFailed(f"could not connect to {self._url}: {exc!r}")
            self._break(error)
            raise error from exc

    async def _start(self, request: httpx.Request, body: bytes) -> tuple[int, _Stream]:
        if self._opening is None:
            self._opening = asyncio.get_running_loop().create_task(self._connect(request))
        if not self._opening.done():
            await asyncio.shield(self._opening)
        self._opening.result()
        h2c = self._h2
        while h2c.open_outbound_streams >= h2c.remote_settings.max_concurrent_streams:
            if self._refusing is not None:
                break
            self._changed.clear()
            await self._changed.wait()
        if self._refusing is not None:
            raise self._refusing
        stream_id = h2c.get_next_available_stream_id()
        stream = self.streams[stream_id] = _Stream(asyncio.get_running_loop())
        try:
            h2c.send_headers(stream_id, _head(request), end_stream=not body)
            view = memoryview(body)
            while view:  # the body, as the send windows let it go
                if self._broken is not None:
                    raise self._broken
                room = min(h2c.local_flow_control_window(stream_id), h2c.max_outbound_frame_size)
                if room <= 0:
                    self.flush()
                    self._changed.clear()
                    await self._changed.wait()
                    continue
                piece, view = view[:room], view[room:]
                h2c.send_data(stream_id, piece.tobytes(), end_stream=not view)
            self.flush()  # the headers and a body that fits the window: one write
        except BaseException as exc:
            self.streams.pop(stream_id, None)
            if isinstance(exc, h2.exceptions.ProtocolError):
                raise PostFailed(f"could not send the request: {exc!r}") from exc
            raise
        return stream_id, stream

    async def aclose(self) -> None:
        """Say goodbye (GOAWAY) and close the socket; open streams fail."""
        if self._opening is not None and not self._opening.done():
            self._opening.cancel()
            with contextlib.suppress(BaseException):
                await self._opening
        self._break(PostFailed(f"the HTTP/2 connection to {self._url} was closed"))
        if self._transport is not None:
            with contextlib.suppress(h2.exceptions.ProtocolError):
                self._h2.close_connection()
            self.flush()
            self._transport.close()


def _head(request: httpx.Request) -> list[tuple[bytes, bytes]]:
    """A request's HTTP/2 head: the pseudo-headers, then its headers (h2 checks and normalizes
    them: it refuses a Host that is not the authority, drops connection-specific ones)."""
    url = request.url
    head = [
        (b":method", request.method.encode()),
        (b":scheme", url.raw_scheme),
        (b":authority", url.netloc.rpartition(b"@")[2]),
        (b":path", url.raw_path),
    ]
    head.extend((name.lower(), value.strip()) for name, value in request.headers.raw)
    return head
