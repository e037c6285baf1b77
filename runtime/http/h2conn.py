"""One HTTP/2 connection (h2c: prior knowledge on `http://`) carrying every request of an ACP
connection: its POSTs, its DELETE, and its SSE streams, multiplexed, as the RFD intends.

httpx cannot carry them on one connection: httpcore 1.0.9 reads an HTTP/2 connection under one
lock taken in turn, and a stream waiting with its answer already read queues behind an idle SSE
stream that holds the lock while it waits for the network (with two SSE streams and a POST the
POST's answer can wait for the next keepalive). `connect_agent` therefore gave each stream an
HTTP/2 connection of its own: three per ACP connection or more, each with its own server-side
state. Here one protocol object reads the socket and hands each frame to its stream, so no
stream waits for another.

Flow control: the window of a stream is given back as its reader takes the data (h2 sends the
WINDOW_UPDATE once half of it is used); a request body larger than the send window waits for
the server's window updates. Requests past the server's MAX_CONCURRENT_STREAMS wait for a
stream to end. Cookies go through the connection's `httpx.Cookies` jar both ways.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from typing import AsyncGenerator, Callable

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.utilities
import httpx

from .hpackenc import StatelessEncoder
from .poster import Answer, PostFailed, RawHeaders, fixed_headers, origin, sets_cookie

_REQUEST = h2.utilities.HeaderValidationFlags(
    is_client=True, is_trailer=False, is_response_header=False, is_push_promise=False
)
_CHECKED_HEADS = 64  # distinct heads remembered as checked (one per session, about)


class StreamBroken(PostFailed):
    """The stream was reset, or the HTTP/2 connection ended or broke, before it finished."""


class _Stream:
    """What the connection knows of one request: its answer's head, its data, its end.

    Its data waits in `chunks` for a reader, or, once the reader has given the stream a `sink`
    (`H2Connection.follow`), goes to the sink as it arrives, within the frame's own callback.
    A POST sent at once (`H2Connection.post_at_once`) has no reader: `then` is handed its answer
    (or why it failed) when the stream ends, and its body may not pass `limit` bytes."""

    __slots__ = (
        "head",
        "chunks",
        "ended",
        "error",
        "wake",
        "sink",
        "last",
        "then",
        "limit",
        "size",
    )

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.head: asyncio.Future[tuple[int, RawHeaders]] = loop.create_future()
        self.chunks: collections.deque[bytes] = collections.deque()
        self.ended = False
        self.error: Exception | None = None
        self.wake = asyncio.Event()
        self.sink: Callable[[bytes], None] | None = None
        self.last = 0.0  # loop time of the last data handed to the sink
        self.then: Callable[[Answer | Exception], None] | None = None
        self.limit = 0
        self.size = 0  # of `chunks`

    def fail(self, error: Exception) -> None:
        if not self.ended and self.error is None:
            self.error = error
        if not self.head.done():
            self.head.set_exception(error)
            self.head.exception()  # a stream nobody awaits must not log "never retrieved"
        self.wake.set()


class _Wire(asyncio.Protocol):
    """The half of an HTTP/2 client connection that reads and writes its socket: h2's state, the
    `_Stream` of each request, the frames handed to them (`H2Connection` adds the requests)."""

    def __init__(self, url: str, cookies: httpx.Cookies) -> None:
        self._url = url
        self._cookies = cookies  # what answers set goes in (and requests send, `H2Connection`)
        # the request heads are built in lower case and stripped (`H2Connection._head`): h2
        # need not rewrite them, and its checks run once per distinct head (`_check`)
        config = h2.config.H2Configuration(
            client_side=True,
            header_encoding=None,
            normalize_outbound_headers=False,
            validate_outbound_headers=False,
        )
        self._h2 = h2.connection.H2Connection(config=config)
        self._h2.encoder = StatelessEncoder()  # type: ignore[assignment]  # h2 calls encode()
        self._transport: asyncio.Transport | None = None
        self._streams: dict[int, _Stream] = {}
        self._window = asyncio.Event()  # set when a send window may have grown
        self._slots = asyncio.Event()  # set when a stream ended (a MAX_CONCURRENT_STREAMS slot)
        self._broken: Exception | None = None  # no stream can go on
        self._refusing: Exception | None = None  # no new stream (GOAWAY)
        self._event_loop: asyncio.AbstractEventLoop | None = None

    def _loop(self) -> asyncio.AbstractEventLoop:
        loop = self._event_loop
        if loop is None:
            loop = self._event_loop = asyncio.get_running_loop()
        return loop

    def _loop_time(self) -> float:
        return self._loop().time()

    # --- asyncio.Protocol -------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._h2.initiate_connection()
        self._flush()

    def data_received(self, data: bytes) -> None:
        try:
            events = self._h2.receive_data(data)
        except h2.exceptions.ProtocolError as exc:
            self._break(StreamBroken(f"HTTP/2 protocol error from {self._url}: {exc!r}"))
            return
        for event in events:
            self._on_event(event)
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        self._break(StreamBroken(f"the HTTP/2 connection to {self._url} closed: {exc!r}"))

    def _on_event(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.ResponseReceived):
            stream = self._streams.get(event.stream_id)
            if stream is not None and not stream.head.done():
                status = 0
                headers: list[tuple[bytes, bytes]] = []
                for name, value in event.headers or []:
                    if name == b":status":
                        status = int(value)
                    elif not name.startswith(b":"):
                        headers.append((name, value))
                if sets_cookie(headers):
                    request = httpx.Request("GET", self._url)
                    response = httpx.Response(status, headers=headers, request=request)
                    self._cookies.extract_cookies(response)
                stream.head.set_result((status, headers))
        elif isinstance(event, h2.events.DataReceived):
            stream = self._streams.get(event.stream_id)
            if stream is None:  # a stream we gave up: its window back at once
                self._acknowledge(event.flow_controlled_length or 0, event.stream_id)
            elif stream.sink is not None:  # taken at once: its window back at once
                self._acknowledge(event.flow_controlled_length or 0, event.stream_id)
                if event.data:
                    self._to_sink(event.stream_id, stream, event.data)
            elif event.data:
                stream.chunks.append(event.data)
                stream.wake.set()
                if stream.then is None:
                    # its window goes back as the reader takes it (`_data`); padding at once
                    padding = (event.flow_controlled_length or 0) - len(event.data)
                    self._acknowledge(padding, event.stream_id)
                else:  # a POST sent at once, read whole here (up to `limit`): its window at once
                    self._acknowledge(event.flow_controlled_length or 0, event.stream_id)
                    stream.size += len(event.data)
                    if stream.size > stream.limit:
                        text = f"POST: the answer's body passed {stream.limit} bytes"
                        stream.fail(PostFailed(text))
                        self._answered(event.stream_id, stream)
        elif isinstance(event, h2.events.StreamEnded):
            if (stream := self._streams.get(event.stream_id)) is not None:
                stream.ended = True
                stream.wake.set()
                if stream.then is not None:
                    self._answered(event.stream_id, stream)
        elif isinstance(event, h2.events.StreamReset):
            if (stream := self._streams.get(event.stream_id)) is not None:
                stream.fail(StreamBroken(f"the server reset the stream ({event.error_code!r})"))
                if stream.then is not None:
                    self._answered(event.stream_id, stream)
        elif isinstance(event, h2.events.ConnectionTerminated):
            # GOAWAY: no new stream; the streams past `last_stream_id` were not processed and
            # fail, the others may still finish (the server closes the socket after them)
            error = StreamBroken(f"the server ended the HTTP/2 connection ({event.error_code!r})")
            self._refusing = error
            last = event.last_stream_id
            for stream_id, stream in list(self._streams.items()):
                if last is None or stream_id > last:
                    stream.fail(error)
                    if stream.then is not None:
                        self._answered(stream_id, stream)
            self._slots.set()
        elif isinstance(event, (h2.events.WindowUpdated, h2.events.RemoteSettingsChanged)):
            self._window.set()
            self._slots.set()

    def _to_sink(self, stream_id: int, stream: _Stream, data: bytes) -> None:
        """Hand `data` to the stream's sink; a sink that raises fails the stream (reset)."""
        assert stream.sink is not None
        stream.last = self._loop_time()
        try:
            stream.sink(data)
        except Exception as exc:
            stream.sink = None
            stream.fail(exc)
            with contextlib.suppress(h2.exceptions.ProtocolError):
                self._h2.reset_stream(stream_id, h2.errors.ErrorCodes.CANCEL)

    def _break(self, error: Exception) -> None:
        if self._broken is None:
            self._broken = error
        self._refusing = self._refusing or error
        for stream_id, stream in list(self._streams.items()):
            stream.fail(error)
            if stream.then is not None:
                self._answered(stream_id, stream)
        self._window.set()
        self._slots.set()

    def _flush(self) -> None:
        data = self._h2.data_to_send()
        if data and self._transport is not None and not self._transport.is_closing():
            self._transport.write(data)

    def _acknowledge(self, size: int, stream_id: int) -> None:
        if size > 0 and self._broken is None:
            with contextlib.suppress(h2.exceptions.ProtocolError):
                self._h2.acknowledge_received_data(size, stream_id)

    def _answered(self, stream_id: int, stream: _Stream) -> None:
        """A POST sent at once ended (or failed): hand its answer to `then`, forget the stream."""
        then, stream.then = stream.then, None
        assert then is not None
        outcome: Answer | Exception
        if stream.error is not None:
            outcome = stream.error
        elif not stream.head.done():
            outcome = StreamBroken("the server ended the stream before answering")
        else:
            status, answer_headers = stream.head.result()
            outcome = Answer(status, "", answer_headers, b"".join(stream.chunks))
        if not stream.ended:  # the server is not done with it: tell it to stop
            with contextlib.suppress(h2.exceptions.ProtocolError):
                self._h2.reset_stream(stream_id, h2.errors.ErrorCodes.CANCEL)
        self._forget(stream_id)
        then(outcome)

    def _forget(self, stream_id: int) -> None:
        """The reader is done with the stream: reset it if the server has not ended it."""
        stream = self._streams.pop(stream_id, None)
        if stream is not None and not stream.ended and stream.error is None:
            with contextlib.suppress(h2.exceptions.ProtocolError):
                self._h2.reset_stream(stream_id, h2.errors.ErrorCodes.CANCEL)
        self._slots.set()
        self._flush()


class H2Connection(_Wire):
    """An HTTP/2 client connection to the origin of `url`; `open()` connects it."""

    def __init__(
        self, url: str, headers: httpx.Headers, cookies: httpx.Cookies, connect_timeout: float
    ) -> None:
        super().__init__(url, cookies)
        where = origin(url)
        self._address = (where.host, where.port)
        self._path = where.target.encode()
        self._authority = where.authority.encode()
        self._fixed = [(k.encode(), v.strip().encode()) for k, v in fixed_headers(headers).items()]
        self._connect_timeout = connect_timeout
        self._opening: asyncio.Task[None] | None = None
        self._checked: set[tuple[tuple[bytes, bytes], ...]] = set()  # heads h2's checks passed

    async def _open(self) -> None:
        """Connect, once: the first request waits for it, the others for the first."""
        opening = self._opening
        if opening is not None and opening.done() and not opening.cancelled():
            if opening.exception() is None:
                return  # connected: no shield (a future and callbacks) per request
        if self._opening is None:
            self._opening = asyncio.get_running_loop().create_task(self._connect())
        await asyncio.shield(self._opening)

    async def _connect(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(
                loop.create_connection(lambda: self, *self._address), self._connect_timeout
            )
        except (OSError, asyncio.TimeoutError) as exc:
            error = PostFailed(f"could not connect to {self._url}: {exc!r}")
            self._break(error)
            raise error from exc

    # --- requests ---------------------------------------------------------------------------------

    async def request(
        self, method: str, headers: dict[str, str], body: bytes = b""
    ) -> tuple[int, httpx.Headers, AsyncGenerator[bytes, None]]:
        """Send a request; its answer's status, headers, and data as it comes. The data iterator
        must be run to its end or closed (`aclose`), which resets a stream not yet ended."""
        stream_id, stream = await self._start(method, headers, body)
        try:
            status, answer_headers = await stream.head
        except BaseException:
            self._forget(stream_id)
            raise
        return status, httpx.Headers(list(answer_headers)), self._data(stream_id, stream)

    async def post(self, body: bytes, headers: dict[str, str], limit: int) -> Answer:
        """POST `body`: the whole answer, as `Poster.post` gives it; an answer whose body passes
        `limit` bytes raises `PostFailed` (its stream reset: nothing more is read)."""
        stream_id, stream = await self._start("POST", headers, body)
        try:
            status, answer_headers = await stream.head
            content = b""
            while True:
                if stream.chunks:
                    chunk = stream.chunks.popleft()
                    self._acknowledge(len(chunk), stream_id)
                    content += chunk
                    if len(content) > limit:
                        raise PostFailed(f"POST: the answer's body passed {limit} bytes")
                elif stream.error is not None:
                    raise stream.error
                elif stream.ended:
                    return Answer(status, "", answer_headers, content)
                else:
                    self._flush()  # the window updates of what was taken
                    stream.wake.clear()
                    await stream.wake.wait()
        finally:
            self._forget(stream_id)

    def can_post_at_once(self, size: int) -> bool:
        """Whether a POST of `size` bytes can go out at once (`post_at_once`): the connection is
        open and takes new streams, a stream slot is free, and the body fits the send window
        and one frame."""
        opening = self._opening
        if opening is None or not opening.done() or opening.cancelled():
            return False
        if opening.exception() is not None or self._refusing is not None:
            return False
        h2c = self._h2
        if h2c.open_outbound_streams >= h2c.remote_settings.max_concurrent_streams:
            return False
        room = min(
            h2c.outbound_flow_control_window,
            h2c.remote_settings.initial_window_size,
            h2c.max_outbound_frame_size,
        )
        return size <= room

    def post_at_once(
        self,
        body: bytes,
        headers: dict[str, str],
        limit: int,
        then: Callable[[Answer | Exception], None],
    ) -> int:
        """POST `body` now, in the caller's step, when `can_post_at_once(len(body))`: no task
        waits for the answer; `then(answer)` is called, within the connection's own callback,
        once the stream ends (`then(error)` once it fails: reset, an answer whose body passes
        `limit` bytes, the connection broken, `abandon`). Returns the stream's id; raises
        `StreamBroken` (and sends nothing) when h2 refuses the request."""
        head = self._head("POST", headers, body)
        stream_id = self._h2.get_next_available_stream_id()
        stream = self._streams[stream_id] = _Stream(self._loop())
        stream.then, stream.limit = then, limit
        try:
            self._h2.send_headers(stream_id, head, end_stream=not body)
            if body:
                self._h2.send_data(stream_id, body, end_stream=True)
        except h2.exceptions.ProtocolError as exc:
            stream.then = None
            self._forget(stream_id)
            raise StreamBroken(f"could not send the request: {exc!r}") from exc
        self._flush()
        return stream_id

    def abandon(self, stream_id: int, error: Exception) -> None:
        """Give up a POST sent at once: its stream is reset and `then(error)` is called."""
        stream = self._streams.get(stream_id)
        if stream is not None and stream.then is not None:
            stream.fail(error)
            self._answered(stream_id, stream)

    async def _start(
        self, method: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, _Stream]:
        await self._open()
        while True:
            if self._refusing is not None:
                raise self._refusing
            limit = self._h2.remote_settings.max_concurrent_streams
            if self._h2.open_outbound_streams < limit:
                break
            self._slots.clear()
            await self._slots.wait()
        head = self._head(method, headers, body)
        stream_id = self._h2.get_next_available_stream_id()
        stream = self._streams[stream_id] = _Stream(self._loop())
        try:
            self._h2.send_headers(stream_id, head, end_stream=not body)
            if body:
                await self._send_body(stream_id, body)
            self._flush()  # the headers and a body that fits the window: one write
        except h2.exceptions.ProtocolError as exc:
            self._forget(stream_id)
            raise StreamBroken(f"could not send the request: {exc!r}") from exc
        except BaseException:
            self._forget(stream_id)
            raise
        return stream_id, stream

    def _head(self, method: str, headers: dict[str, str], body: bytes) -> list[tuple[bytes, bytes]]:
        """A request's head: `StreamBroken` when h2's checks refuse it."""
        head = [
            (b":method", method.encode()),
            (b":scheme", b"http"),
            (b":authority", self._authority),
            (b":path", self._path),
            *self._fixed,
            *((name.lower().encode(), value.strip().encode()) for name, value in headers.items()),
        ]
        if self._cookies.jar:
            request = httpx.Request(method, self._url)
            self._cookies.set_cookie_header(request)
            if "cookie" in request.headers:
                head.append((b"cookie", request.headers["cookie"].strip().encode()))
        self._check(head)
        if body:
            head.append((b"content-length", str(len(body)).encode()))
        return head

    def _check(self, head: list[tuple[bytes, bytes]]) -> None:
        """h2's own checks of an outgoing request head (`StreamBroken` if it fails them), run
        once per distinct head: a connection sends the same few heads again and again."""
        key = tuple(head)
        if key in self._checked:
            return
        try:
            for _ in h2.utilities.validate_outbound_headers(head, _REQUEST):
                pass
        except h2.exceptions.ProtocolError as exc:
            raise StreamBroken(f"could not send the request: {exc!r}") from exc
        if len(self._checked) >= _CHECKED_HEADS:
            self._checked.clear()
        self._checked.add(key)

    async def _send_body(self, stream_id: int, body: bytes) -> None:
        view = memoryview(body)
        while view:
            if self._broken is not None:
                raise self._broken
            window = min(
                self._h2.local_flow_control_window(stream_id), self._h2.max_outbound_frame_size
            )
            if window <= 0:
                self._flush()
                self._window.clear()
                await self._window.wait()
                continue
            piece, view = view[:window], view[window:]
            self._h2.send_data(stream_id, piece.tobytes(), end_stream=not view)

    async def _data(self, stream_id: int, stream: _Stream) -> AsyncGenerator[bytes, None]:
        try:
            while True:
                if stream.chunks:
                    chunk = stream.chunks.popleft()
                    self._acknowledge(len(chunk), stream_id)
                    self._flush()
                    yield chunk
                elif stream.error is not None:
                    raise stream.error
                elif stream.ended:
                    return
                else:
                    stream.wake.clear()
                    await stream.wake.wait()
        finally:
            self._forget(stream_id)

    async def follow(
        self,
        method: str,
        headers: dict[str, str],
        sink: Callable[[bytes], None],
        silence: float | None,
        timeout_error: Callable[[], Exception],
    ) -> tuple[int, bytes]:
        """Send a request whose answer streams (an SSE GET): on status 200 hand each piece of its
        data to `sink` as it arrives, within the connection's own callback (no task wakes up
        for it), until the server ends the stream; `timeout_error()` is raised once no data
        came for `silence` seconds (None: no deadline). Returns the status and, for another
        status, the start of the answer's body (at most 8 KiB, for the error's text)."""
        stream_id, stream = await self._start(method, headers, b"")
        try:
            status, _ = await stream.head
            if status != 200:
                body = b""
                while len(body) < 8192 and not stream.ended and stream.error is None:
                    if stream.chunks:
                        chunk = stream.chunks.popleft()
                        self._acknowledge(len(chunk), stream_id)
                        body += chunk
                    else:
                        self._flush()
                        stream.wake.clear()
                        await stream.wake.wait()
                if stream.error is not None:
                    raise stream.error
                return status, body
            loop = asyncio.get_running_loop()
            stream.last = loop.time()
            stream.sink = sink
            while stream.chunks:  # what came before the sink was given
                chunk = stream.chunks.popleft()
                self._acknowledge(len(chunk), stream_id)
                self._to_sink(stream_id, stream, chunk)
            self._flush()
            while True:
                if stream.error is not None:
                    raise stream.error
                if stream.ended:
                    return status, b""
                stream.wake.clear()
                if silence is None:
                    await stream.wake.wait()
                    continue
                left = stream.last + silence - loop.time()
                if left <= 0:
                    raise timeout_error()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(left):  # a timer per silence, not per chunk
                        await stream.wake.wait()
        finally:
            stream.sink = None
            self._forget(stream_id)

    async def aclose(self) -> None:
        """Say goodbye (GOAWAY) and close the socket; open streams fail."""
        if self._opening is not None and not self._opening.done():
            self._opening.cancel()
            with contextlib.suppress(BaseException):
                await self._opening
        self._break(StreamBroken(f"the HTTP/2 connection to {self._url} was closed"))
        if self._transport is not None:
            with contextlib.suppress(h2.exceptions.ProtocolError):
                self._h2.close_connection()
            self._flush()
            self._transport.close()
