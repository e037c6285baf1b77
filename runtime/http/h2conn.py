"""One HTTP/2 connection (h2c: prior knowledge on `http://`) carrying every request of an ACP
connection: its POSTs, its DELETE, and its SSE streams, multiplexed, as the RFD intends.

httpx cannot carry them on one connection: httpcore reads an HTTP/2 connection under one lock
taken in turn, and a stream whose answer is already read queues behind an idle SSE stream that
holds the lock while it waits for the network (with two SSE streams and a POST, the POST's answer
waits for the next keepalive). Here one asyncio protocol reads the socket and hands each frame to
its stream, so no stream waits for another. It drives h2 through its documented API only.

Flow control: a stream's window is given back as its reader takes the data; a request body larger
than the send window waits for the server's window updates; requests past the server's
MAX_CONCURRENT_STREAMS wait for a stream to end. GOAWAY: no new stream, and the streams the server
did not take fail. Cookies go through the connection's `httpx.Cookies` jar both ways.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, AsyncIterator, NamedTuple

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import httpx

from .remote import PostFailed, SocketProtocol, keep_cookies, request_headers


class Reply(NamedTuple):
    """An answer's status and headers, and its body as it comes."""

    status: int
    headers: httpx.Headers
    chunks: AsyncIterator[bytes]
    transport: str


class _Stream:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.head: asyncio.Future[tuple[int, list[tuple[bytes, bytes]]]] = loop.create_future()
        self.data: asyncio.Queue[bytes | Exception | None] = asyncio.Queue()  # None: its end
        self.over = False  # ended or failed

    def end(self, error: Exception | None = None) -> None:
        if not self.over:
            self.over = True
            self.data.put_nowait(error)
        if error is not None and not self.head.done():
            self.head.set_exception(error)
            self.head.exception()  # a stream nobody awaits must not log "never retrieved"


class H2Connection(SocketProtocol):
    """An HTTP/2 client connection to the origin of `url`, opened by its first request."""

    def __init__(
        self, url: str, headers: httpx.Headers, cookies: httpx.Cookies, connect_timeout: float
    ) -> None:
        parts = httpx.URL(url)
        self._url = url
        self._address = (parts.host or "localhost", parts.port or 80)
        self._pseudo = [
            (b":scheme", b"http"),
            (b":authority", parts.netloc),
            (b":path", parts.raw_path),
        ]
        self._fixed = {"accept": "*/*", "user-agent": f"python-httpx/{httpx.__version__}"}
        self._fixed.update((name.lower(), value) for name, value in headers.items())
        self._cookies = cookies
        self._connect_timeout = connect_timeout
        config = h2.config.H2Configuration(client_side=True, header_encoding=None)
        self._h2 = h2.connection.H2Connection(config=config)
        self._h2.initiate_connection()  # (its preface goes out once connected)
        self._opening: asyncio.Future[Any] | None = None  # connecting (its error: every request's)
        self._streams: dict[int, _Stream] = {}
        self._changed = asyncio.Event()  # a send window or a stream slot may have opened
        self._broken: Exception | None = None  # no stream can go on
        self._refusing: Exception | None = None  # no new stream (GOAWAY)

    # --- asyncio.Protocol -------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        try:
            events = self._h2.receive_data(data)
        except h2.exceptions.ProtocolError as exc:
            self._break(PostFailed(f"HTTP/2 protocol error from {self._url}: {exc!r}"))
            return
        for event in events:
            stream = self._streams.get(getattr(event, "stream_id", 0) or 0)
            if isinstance(event, h2.events.ResponseReceived) and stream is not None:
                fields = event.headers or []
                status = int(dict(fields).get(b":status", 0))
                headers = [(name, value) for name, value in fields if not name.startswith(b":")]
                if any(name == b"set-cookie" for name, _ in headers):
                    keep_cookies(self._cookies, self._url, status, headers)
                if not stream.head.done():
                    stream.head.set_result((status, headers))
            elif isinstance(event, h2.events.DataReceived):
                size = event.flow_controlled_length or 0
                if stream is None or not event.data:  # a stream given up, or padding only
                    self._acknowledge(size, event.stream_id)
                else:  # its window goes back as the reader takes it (`_chunks`); padding at once
                    stream.data.put_nowait(event.data)
                    self._acknowledge(size - len(event.data), event.stream_id)
            elif isinstance(event, h2.events.StreamEnded) and stream is not None:
                stream.end()
            elif isinstance(event, h2.events.StreamReset) and stream is not None:
                stream.end(PostFailed(f"the server reset the stream ({event.error_code!r})"))
            elif isinstance(event, h2.events.ConnectionTerminated):
                # GOAWAY: the streams past `last_stream_id` were not processed and fail, the others
                # may still finish (the server closes the socket after them)
                error = PostFailed(f"the server ended the HTTP/2 connection ({event.error_code!r})")
                self._refusing = error
                for stream_id, each in list(self._streams.items()):
                    if event.last_stream_id is None or stream_id > event.last_stream_id:
                        each.end(error)
        self._changed.set()  # (a send window or a stream slot may have opened)
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        self._break(PostFailed(f"the HTTP/2 connection to {self._url} closed: {exc!r}"))

    def _break(self, error: Exception) -> None:
        self._broken = self._broken or error
        self._refusing = self._refusing or error
        for stream in self._streams.values():
            stream.end(error)
        self._changed.set()

    def _flush(self) -> None:
        data = self._h2.data_to_send()
        if data and self._transport is not None and not self._transport.is_closing():
            self._transport.write(data)

    def _acknowledge(self, size: int, stream_id: int) -> None:
        if size > 0 and self._broken is None:
            with contextlib.suppress(h2.exceptions.ProtocolError):
                self._h2.acknowledge_received_data(size, stream_id)

    # --- requests ---------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def open(
        self, method: str, headers: dict[str, str], body: bytes = b""
    ) -> AsyncIterator[Reply]:
        """Send a request, once the connection is open (connecting is the first request's: its
        error fails every request) and a stream slot is free; the answer's head, and its data as
        the reader takes it. On exit a stream the server has not ended is reset."""
        if self._opening is None:
            connecting = asyncio.get_running_loop().create_connection(lambda: self, *self._address)
            self._opening = asyncio.ensure_future(
                asyncio.wait_for(connecting, self._connect_timeout)
            )
        try:
            await asyncio.shield(self._opening)
        except OSError as exc:  # (TimeoutError too: the connect_timeout, not a read_timeout)
            raise PostFailed(f"could not connect to {self._url}: {exc!r}") from exc
        h2c = self._h2
        while h2c.open_outbound_streams >= h2c.remote_settings.max_concurrent_streams:
            if self._refusing is not None:
                break
            self._changed.clear()
            await self._changed.wait()
        if self._refusing is not None:
            raise self._refusing
        fields = {**self._fixed, **request_headers(headers, self._cookies, self._url)}
        if body:
            fields["content-length"] = str(len(body))
        head = [(b":method", method.encode()), *self._pseudo]
        head.extend((name.encode(), value.strip().encode()) for name, value in fields.items())
        stream_id = h2c.get_next_available_stream_id()
        stream = self._streams[stream_id] = _Stream(asyncio.get_running_loop())
        try:
            try:
                h2c.send_headers(stream_id, head, end_stream=not body)
                view = memoryview(body)
                while view:  # the body, as the send windows let it go
                    if self._broken is not None:
                        raise self._broken
                    window = h2c.local_flow_control_window(stream_id)
                    room = min(window, h2c.max_outbound_frame_size)
                    if room <= 0:
                        self._flush()
                        self._changed.clear()
                        await self._changed.wait()
                        continue
                    piece, view = view[:room], view[room:]
                    h2c.send_data(stream_id, piece.tobytes(), end_stream=not view)
                self._flush()  # the headers and a body that fits the window: one write
            except h2.exceptions.ProtocolError as exc:
                stream.over = True  # (refused by h2, or reset already: nothing to reset)
                raise PostFailed(f"could not send the request: {exc!r}") from exc
            status, raw = await stream.head
            yield Reply(status, httpx.Headers(raw), self._chunks(stream_id, stream), "h2c")
        finally:
            self._streams.pop(stream_id, None)
            if not stream.over:
                with contextlib.suppress(h2.exceptions.ProtocolError):
                    self._h2.reset_stream(stream_id, h2.errors.ErrorCodes.CANCEL)
            self._changed.set()
            self._flush()

    async def _chunks(self, stream_id: int, stream: _Stream) -> AsyncIterator[bytes]:
        while (chunk := await stream.data.get()) is not None:
            if isinstance(chunk, Exception):
                raise chunk
            self._acknowledge(len(chunk), stream_id)
            self._flush()
            yield chunk

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
            self._flush()
            self._transport.close()
