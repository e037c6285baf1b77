"""The client's Streamable HTTP transport (see `client.connect_agent`).

Each message is one POST, sent one at a time in the order the connection wrote them. The
`initialize` answer names the connection (`Acp-Connection-Id`); the connection-scoped SSE stream
opens right after, a session's stream when the client first learns of the session and before the
first POST about it. Requests go through httpx, or on h2c through the connection's own
`h2conn.H2Connection`.

`EventParser` reads a server-sent event stream: it takes the stream's bytes as they come, in
pieces of any size, and gives the data of each whole event. Each event's data lines are joined
with newlines; comments (`: keepalive`) and other fields are skipped, and so is an event the
stream ends before its blank line (as the SSE standard says). A line, or an event's data, longer
than the client's message limit raises `PostFailed`: what is buffered never grows past the limit
by more than a piece.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from typing import Any, AsyncIterator
from urllib.parse import urlsplit

import httpx
import msgspec

from ..jsonrpc import INTERNAL_ERROR, Peek
from . import remote
from .guard import CONNECTION_ID_HEADER, EVENT_STREAM_TYPE, JSON_TYPE, SESSION_ID_HEADER
from .h2conn import H2Connection, Reply
from .remote import PostFailed, RefusedConnectionError, RemoteTransport, envelope

log = logging.getLogger("acp_runtime.http")


class EventParser:
    """Incremental SSE parsing: `feed(piece)` returns the data of the events it completed."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._line = bytearray()  # a line not ended yet
        self._data: list[bytearray] = []  # the data lines of an event not ended yet
        self._size = 0  # of `_data` joined (kept as it grows: not summed again per line)

    def feed(self, piece: bytes) -> list[bytes]:
        """The events `piece` completes (none, one or several), in order."""
        self._line += piece
        lines: list[bytearray] = []
        if b"\n" in piece:
            *lines, self._line = self._line.split(b"\n")
        if len(self._line) > self._limit + 8:  # "data: " and a CRLF beyond the message itself
            raise PostFailed(f"an SSE line over {self._limit} bytes")
        events: list[bytes] = []
        for line in lines:
            line = line.rstrip(b"\r")
            if not line and self._data:
                events.append(b"\n".join(self._data))
                self._data, self._size = [], 0
            elif line.startswith(b"data:"):
                value = line[6:] if line.startswith(b"data: ") else line[5:]
                self._data.append(value)
                self._size += len(value) + 1
                if self._size > self._limit:
                    raise PostFailed(f"an SSE event over {self._limit} bytes")
        return events


_GONE = frozenset({401, 403, 404, 410})
_BROKEN = (httpx.HTTPError, PostFailed, OSError)


class HttpTransport(RemoteTransport):
    def __init__(self, url: str, options: dict[str, Any]) -> None:
        super().__init__(url, options)
        self._timeout: float | None = options["read_timeout"]
        self._max_streams: int = options["max_session_streams"]
        self._limit: int = options["max_message_bytes"]
        scheme = urlsplit(url).scheme.lower()
        http2, client = options["http2"], options["client"]
        # HTTP/2 by ALPN: each SSE stream gets a client (an HTTP/2 connection) of its own, as on
        # one connection httpx would make a stream wait behind an idle one (see h2conn.py)
        self._h2 = client is None and http2 is not False and scheme != "http"
        self._owns_client = client is None
        # one jar for every client below (a CookieJar is shared, not copied)
        self.cookies = httpx.Cookies(options["cookies"]) if client is None else client.cookies
        self._new_client = functools.partial(
            remote.new_client,
            scheme,
            http2=http2 is not False,
            headers=options["headers"],
            cookies=self.cookies.jar,
            verify=options["verify"],
            timeout=httpx.Timeout(options["connect_timeout"], read=None),
        )
        self._h2conn: H2Connection | None = None
        if client is None and http2 is True and scheme == "http":  # h2c: one connection of ours
            headers = httpx.Headers(options["headers"])
            self._h2conn = H2Connection(url, headers, self.cookies, options["connect_timeout"])
        elif client is None:
            client = self._new_client()
        self._client: httpx.AsyncClient | None = client
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._sender = asyncio.get_running_loop().create_task(self._send_all())
        self._streams: dict[str | None, asyncio.Task[None]] = {}
        self._asked: dict[Any, str] = {}  # agent request id -> its session, to tag our answer
        self._room = asyncio.Event()  # set while the engine takes what comes (`flow`)
        self._room.set()

    def deliver(self, message: bytes) -> None:
        self._queue.put_nowait(message)

    def end_output(self) -> None:
        self._queue.put_nowait(None)

    def flow(self, reading: bool) -> None:
        (self._room.set if reading else self._room.clear)()

    async def aclose(self) -> None:
        self._queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self._sender), 5.0)
        tasks = [self._sender, *self._streams.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.connection_id is not None and not self.ended:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._exchange("DELETE", self._ids(None), b""), 5.0)
        self.end_input("the client closed the connection")
        self.feed_eof()  # (after a refusal too)
        if self._h2conn is not None:
            await self._h2conn.aclose()
        if self._owns_client and self._client is not None:
            await self._client.aclose()

    def _ids(self, session: str | None) -> dict[str, str]:
        ids = {CONNECTION_ID_HEADER: self.connection_id or ""}
        return ids if session is None else {**ids, SESSION_ID_HEADER: session}

    @contextlib.asynccontextmanager
    async def _open(
        self,
        method: str,
        headers: dict[str, str],
        body: bytes,
        client: httpx.AsyncClient | None = None,
    ) -> AsyncIterator[Reply]:
        """One request: on the connection's HTTP/2 connection where it has one, else httpx."""
        if self._h2conn is not None:
            async with self._h2conn.open(method, headers, body) as reply:
                yield reply
            return
        http = client or self._client
        assert http is not None  # (an h2c connection has no httpx client, and was taken above)
        async with http.stream(method, self.url, headers=headers, content=body or None) as answer:
            version = answer.http_version.lower()
            yield Reply(answer.status_code, answer.headers, answer.aiter_bytes(), version)

    async def _exchange(
        self, method: str, headers: dict[str, str], body: bytes
    ) -> tuple[Reply, bytes]:
        """A request's whole answer. One not answered within `read_timeout` seconds, or whose
        body passes the message limit, fails (`PostFailed`): later messages must not wait."""
        try:
            async with asyncio.timeout(self._timeout):
                async with self._open(method, headers, body) as reply:
                    content = b""
                    async for chunk in reply.chunks:
                        content += chunk
                        if len(content) > self._limit:
                            raise PostFailed(f"POST: the answer's body passed {self._limit} bytes")
        except TimeoutError:
            raise PostFailed(
                f"POST {self.url}: no answer within {self._timeout:g} s (read_timeout)"
            ) from None
        return reply, content

    # --- out --------------------------------------------------------------------------------------

    async def _send_all(self) -> None:
        while (data := await self._queue.get()) is not None:
            if self.ended:
                continue
            try:
                await self._post(data, envelope(data))
            except _BROKEN as exc:
                self.end_input(f"the request to {self.url} failed: {exc!r}")

    async def _post(self, data: bytes, message: Peek) -> None:
        if self.connection_id is not None:
            if message.kind == "response":
                session = self._asked.pop(message.id_key, None)
            else:
                session = message.session_id
            if session is not None:
                self._open_stream(session)
            headers = {"content-type": JSON_TYPE, **self._ids(session)}
            reply, content = await self._exchange("POST", headers, data)
            if reply.status == 200 and content:
                self._receive(content)
            elif reply.status not in (200, 202):
                # refused: its request fails with -32603 (data: status and body); 401, 403, 404
                # and 410 also close the connection, which the server does not know
                status, body = reply.status, remote.text_of(content)
                text = f"HTTP {status} for {message.method or message.kind}: {body}"
                if message.kind == "request":  # answered here
                    details = {"status": status, "body": body}
                    error = {"code": INTERNAL_ERROR, "message": text, "data": details}
                    answer = {"jsonrpc": "2.0", "id": message.id, "error": error}
                    self.feed(msgspec.json.encode(answer))
                else:
                    log.warning("the server refused a %s: %s", message.kind, text)
                if status in _GONE:
                    self.end_input(f"the server refused the connection ({text})")
            return
        # the first message, initialize (the server refuses any other): it opens the connection
        reply, content = await self._exchange("POST", {"content-type": JSON_TYPE}, data)
        connection_id = reply.headers.get(CONNECTION_ID_HEADER)
        if reply.status == 200 and connection_id:
            self.connection_id = connection_id
            self._open_stream(None)
            self._receive(content)
        elif reply.status == 200 and envelope(content).failed:
            self.feed(content)  # initialize failed: no connection
            self.end_input("the agent refused initialize")
        else:
            text = remote.text_of(content) or f"no {CONNECTION_ID_HEADER} in the answer"
            refusal = RefusedConnectionError(self.url, reply.status, text, reply.transport)
            self.ended, self.eof_reason = True, str(refusal)
            self.on_refused(refusal)

    # --- in ---------------------------------------------------------------------------------------

    def _receive(self, data: bytes) -> None:
        message = envelope(data)
        if message.result_session_id is not None:
            self._open_stream(message.result_session_id)
        if message.kind == "request" and message.session_id is not None:
            self._asked[message.id_key] = message.session_id
        self.feed(data)

    def _open_stream(self, session: str | None) -> None:
        task = self._streams.get(session)
        if task is not None and not task.done():
            return
        running = sum(1 for s, t in self._streams.items() if s is not None and not t.done())
        if session is not None and running >= self._max_streams:
            log.warning("not opening the stream of session %s: %d are open", session, running)
            return
        self._streams[session] = asyncio.get_running_loop().create_task(self._read_stream(session))

    async def _read_stream(self, session: str | None) -> None:
        """Read one SSE stream; the end of the connection stream is the end of input."""
        headers = {"accept": EVENT_STREAM_TYPE, **self._ids(session)}
        try:
            if self._h2:
                async with self._new_client() as client:
                    reason = await self._read_events(headers, client)
            else:
                reason = await self._read_events(headers)
        except _BROKEN as exc:
            reason = f"the stream from {self.url} broke: {exc}"
        if session is None:
            self.end_input(reason)
        else:
            log.debug("the stream of session %s ended: %s", session, reason)

    async def _read_events(self, headers: dict[str, str], client: Any = None) -> str:
        async with self._open("GET", headers, b"", client) as reply:
            if reply.status != 200:
                body = await anext(aiter(reply.chunks), b"")  # its start, for the reason
                reason = remote.text_of(body)
                return f"the server refused the stream: HTTP {reply.status}: {reason}"
            parser, chunks, seconds = EventParser(self._limit), aiter(reply.chunks), self._timeout
            while True:  # a keepalive comment is a chunk: a quiet but live server passes
                try:
                    async with asyncio.timeout(seconds):
                        chunk = await anext(chunks, None)
                except TimeoutError:
                    text = f"nothing came for {seconds} seconds, not even a keepalive"
                    raise PostFailed(text) from None
                if chunk is None:
                    break
                for event in parser.feed(chunk):
                    self._receive(event)
                await self._room.wait()  # the agent's requests: read on once some are answered
        return f"the server ended the connection stream of {self.url}"
