"""The client's Streamable HTTP transport (see `client.connect_agent`).

Each message is one POST, sent one at a time in the order the connection wrote them. The
`initialize` answer names the connection (`Acp-Connection-Id`); the connection-scoped SSE stream
opens right after, a session's stream when the client first learns of the session and before the
first POST about it. Requests go through httpx; on h2c its transport is the connection's own
`h2conn.H2Connection`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..jsonrpc import Peek
from ..jsonrpc.transport import MessageTransport
from .events import EventParser, OversizedEventError
from .h2conn import H2Connection
from .messages import CONNECTION_ID_HEADER, EVENT_STREAM_TYPE, JSON_TYPE, SESSION_ID_HEADER
from .pool import new_client
from .remote import PostFailed, RefusedConnectionError, RemoteTransport, envelope, text_of

log = logging.getLogger("acp_runtime.http")

_GONE = frozenset({401, 403, 404, 410})
_BROKEN = (httpx.HTTPError, PostFailed, OversizedEventError, OSError)


class HttpTransport(RemoteTransport):
    def __init__(self, url: str, reader: MessageTransport, options: dict[str, Any]) -> None:
        super().__init__(url, reader, options["max_peer_requests"])
        self._read_timeout: float | None = options["read_timeout"]
        self._max_streams: int = options["max_session_streams"]
        self._limit: int = options["max_message_bytes"]
        # an SSE stream that brings nothing for `read_timeout` seconds is broken (httpx's read
        # timeout: it runs while a read waits, not while the reader holds back)
        self._stream_timeout = httpx.Timeout(options["connect_timeout"], read=self._read_timeout)
        scheme = urlsplit(url).scheme.lower()
        http2, client = options["http2"], options["client"]
        # HTTP/2 by ALPN: each SSE stream gets a client (an HTTP/2 connection) of its own, as on
        # one connection httpx would make a stream wait behind an idle one (see h2conn.py)
        self._h2 = client is None and http2 is not False and scheme != "http"
        self._h2c = client is None and http2 is True and scheme == "http"
        self._owns_client = client is None
        if client is None:
            self.cookies = httpx.Cookies(options["cookies"])  # one jar for every client below
            self._new_client = functools.partial(
                new_client,
                scheme,
                http2=http2 is not False,
                headers=options["headers"],
                cookies=self.cookies.jar,  # a CookieJar is shared, not copied
                verify=options["verify"],
                timeout=httpx.Timeout(options["connect_timeout"], read=None),
            )
            # h2c: every request on one HTTP/2 connection of ours
            client = self._new_client(transport=H2Connection() if self._h2c else None)
        else:
            self.cookies = client.cookies
        self._client: httpx.AsyncClient = client
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._sender: asyncio.Task[None] | None = None
        self._streams: dict[str | None, asyncio.Task[None]] = {}
        self._asked: dict[Any, str] = {}  # agent request id -> its session, to tag our answer
        self._room = asyncio.Event()  # set while the agent's requests in flight are under the cap

    async def open(self) -> None:
        self._sender = asyncio.get_running_loop().create_task(self._send_all())

    def send_nowait(self, message: bytes) -> None:
        self._queue.put_nowait(message)

    def end_output(self) -> None:
        self._queue.put_nowait(None)

    async def close(self) -> None:
        self._queue.put_nowait(None)
        if self._sender is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._sender), 5.0)
            self._sender.cancel()
            with contextlib.suppress(BaseException):
                await self._sender
        for task in self._streams.values():
            task.cancel()
        await asyncio.gather(*self._streams.values(), return_exceptions=True)
        if self.connection_id is not None and not self.ended:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._exchange("DELETE", self._ids(None), b""), 5.0)
        self.end_input("the client closed the connection")
        self.reader.feed_eof()  # (after a refusal too)
        if self._owns_client:
            await self._client.aclose()

    def _ids(self, session: str | None) -> dict[str, str]:
        ids = {CONNECTION_ID_HEADER: self.connection_id or ""}
        if session is not None:
            ids[SESSION_ID_HEADER] = session
        return ids

    async def _exchange(
        self, method: str, headers: dict[str, str], body: bytes
    ) -> tuple[httpx.Response, bytes]:
        """A request's whole answer. One not answered within `read_timeout` seconds, or whose
        body passes the message limit, fails (`PostFailed`): later messages must not wait."""
        try:
            async with asyncio.timeout(self._read_timeout):
                async with self._client.stream(
                    method, self.url, headers=headers, content=body or None
                ) as reply:
                    content = b""
                    async for chunk in reply.aiter_bytes():
                        content += chunk
                        if len(content) > self._limit:
                            raise PostFailed(f"POST: the answer's body passed {self._limit} bytes")
        except TimeoutError:
            raise PostFailed(
                f"POST {self.url}: no answer within {self._read_timeout:g} s (read_timeout)"
            ) from None
        return reply, content

    # --- out --------------------------------------------------------------------------------------

    async def _send_all(self) -> None:
        while (data := await self._queue.get()) is not None:
            if self.ended:
                continue
            message = envelope(data)
            self.count_out(message)
            if not self.full:
                self._room.set()
            try:
                await self._post(data, message)
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
            if reply.status_code == 200 and content:
                self._receive(content)
            elif reply.status_code not in (200, 202):
                self._refused(message, reply.status_code, content)
            return
        if message.kind != "request" or message.method != "initialize":
            log.warning("dropped a %s sent before initialize opened the connection", message.kind)
            return
        reply, content = await self._exchange("POST", {"content-type": JSON_TYPE}, data)
        connection_id = reply.headers.get(CONNECTION_ID_HEADER)
        if reply.status_code == 200 and connection_id:
            self.connection_id = connection_id
            self._open_stream(None)
            self._receive(content)
        elif reply.status_code == 200 and envelope(content).failed:
            self.reader.feed(content)  # initialize failed: no connection
            self.end_input("the agent refused initialize")
        else:
            text = text_of(content) or f"no {CONNECTION_ID_HEADER} in the answer"
            version = "h2c" if self._h2c else reply.http_version.lower()
            refusal = RefusedConnectionError(self.url, reply.status_code, text, version)
            self.ended, self.eof_reason = True, str(refusal)
            self.on_refused(refusal)

    def _refused(self, message: Peek, status: int, content: bytes) -> None:
        """A POST the server did not accept: its request fails with -32603 (data: status and
        body); 401, 403, 404 and 410 also close the connection, which the server does not know."""
        body = text_of(content)
        text = f"HTTP {status} for {message.method or message.kind}: {body}"
        if message.kind == "request":
            self.fail_request(message, text, {"status": status, "body": body})
        else:
            log.warning("the server refused a %s: %s", message.kind, text)
        if status in _GONE:
            self.end_input(f"the server refused the connection ({text})")

    # --- in ---------------------------------------------------------------------------------------

    def _receive(self, data: bytes) -> None:
        message = envelope(data)
        if message.result_session_id is not None:
            self._open_stream(message.result_session_id)
        if message.kind == "request" and message.session_id is not None:
            self._asked[message.id_key] = message.session_id
        self.count_in(message)
        self.reader.feed(data)

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
                reason = await self._read_events(headers, self._client)
        except httpx.ReadTimeout:
            silence = f"nothing came for {self._read_timeout} seconds, not even a keepalive"
            reason = f"the stream from {self.url} broke: {silence}"
        except _BROKEN as exc:
            reason = f"the stream from {self.url} broke: {exc}"
        if session is None:
            self.end_input(reason)
        else:
            log.debug("the stream of session %s ended: %s", session, reason)

    async def _read_events(self, headers: dict[str, str], client: httpx.AsyncClient) -> str:
        timeout = self._stream_timeout
        async with client.stream("GET", self.url, headers=headers, timeout=timeout) as reply:
            if reply.status_code != 200:
                body = b""
                async for chunk in reply.aiter_bytes():
                    body += chunk
                    if len(body) >= 8192:
                        break
                return f"the server refused the stream: HTTP {reply.status_code}: {text_of(body)}"
            parser = EventParser(self._limit)
            async for chunk in reply.aiter_bytes():
                for event in parser.feed(chunk):
                    while self.full:  # the agent's requests: read on once some are answered
                        self._room.clear()
                        await self._room.wait()
                    self._receive(event)
            if (last := parser.end()) is not None:
                self._receive(last)
        return f"the server ended the connection stream of {self.url}"
