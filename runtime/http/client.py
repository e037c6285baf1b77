"""The client side of ACP's remote transport: `connect_agent(url, handler)`.

    async with connect_agent("http://host:8000/acp", MyClient()) as conn:   # Streamable HTTP
    async with connect_agent("ws://host:8000/acp", MyClient()) as conn:     # WebSocket
        await conn.agent.initialize(...)

It yields the same `ClientSideConnection` as `spawn_agent`, so everything above the transport
(typed proxies, ordering, cancellation, protocol rules) is the same. Per the RFD:

- Streamable HTTP: each message is one `POST`, sent one at a time in the order the connection
  wrote them (so `session/cancel` never overtakes the prompt it cancels). `initialize` is answered
  in the POST's body with `Acp-Connection-Id`, which every later request carries. The
  connection-scoped SSE stream opens right after; a session's stream opens when the client first
  learns of the session (a result with a `sessionId`, a message naming it) and before the first
  POST about it. Every POST about a session carries `Acp-Session-Id`, answers to the agent's
  session requests (permission prompts) included.
- WebSocket: one socket, one text frame per message, both ways.
- Cookies the server sets are kept for the connection and sent back on every request (the
  WebSocket handshake included): `conn.cookies`. Pass them to the next `connect_agent` (a
  reconnect) to land on the same server behind a load balancer with cookie affinity.
- The end of the connection-scoped stream or of the socket is the end of input: calls waiting
  for an answer fail at once with `ConnectionClosedError`. A request whose POST is refused fails
  with a -32603 error whose data holds the HTTP status and body; 401, 403, 404 and 410 (and
  network errors) mean the connection is gone and close it.

Reconnecting is a new connection: `reattach_session(conn, session_id, cwd)` resumes the session
there (`session/resume`, or `session/load` if the agent offers only that).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, TypedDict, overload
from urllib.parse import urlsplit, urlunsplit

import httpx
import msgspec
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as websocket_connect
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import Protocol, State
from websockets.streams import StreamReader

try:  # as websockets.frames: its C masking where built, else its Python one
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover
    from websockets.utils import apply_mask

from ..jsonrpc import INTERNAL_ERROR
from ..jsonrpc.errors import CapabilityError
from ..jsonrpc.framing import DEFAULT_MAX_LINE_BYTES
from ..jsonrpc.transport import MessageTransport
from ..protocol.client import ClientSideConnection
from .events import EventParser, OversizedEventError
from .h2conn import H2Connection
from .messages import (
    CONNECTION_ID_HEADER,
    EVENT_STREAM_TYPE,
    JSON_TYPE,
    SESSION_ID_HEADER,
    Peek,
    peek,
)
from .pool import new_client
from .poster import Answer, Poster, PostFailed, usable

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager
    from ssl import SSLContext

    from typing_extensions import Unpack

    import acp_schema

    from ..jsonrpc.package import ClientPackage, HandlerT, ProxyT
    from ..jsonrpc.tracing import Tracer
    from ..protocol.negotiation import ClientRoutes

    ClientHandlerArg = (
        acp_schema.ClientHandler
        | Callable[[ClientSideConnection[acp_schema.AgentProxy]], acp_schema.ClientHandler]
        | None  # a client that serves nothing (every request the agent sends: -32601)
    )

    class RemoteOptions(TypedDict, total=False):
        """The connection options `connect_agent` passes on (its own `max_message_bytes` is the
        connection's `max_line_bytes`)."""

        protocol_versions: tuple[int, ...]
        lenient: bool
        enforce_protocol: bool
        observer: Callable[[str, bytes, Any], None] | None
        tracer: Tracer | None
        timeout: float | None


log = logging.getLogger("acp_runtime.http")

_GONE = frozenset({401, 403, 404, 410})
_ERROR_BODY_LIMIT = 8192

DEFAULT_READ_TIMEOUT = 60.0
"""Seconds an SSE stream may bring nothing (servers send a keepalive every 15 s)."""

DEFAULT_MAX_SESSION_STREAMS = 64
"""Session streams a connection reads at once."""


class SilentServerError(Exception):
    """An SSE stream brought nothing, not even a keepalive, for its read deadline."""


@overload
def connect_agent(
    url: str,
    handler: ClientHandlerArg,
    *,
    headers: dict[str, str] | None = None,
    cookies: httpx.Cookies | dict[str, str] | None = None,
    http2: bool | None = None,
    verify: SSLContext | str | bool = True,
    connect_timeout: float = 30.0,
    max_message_bytes: int = DEFAULT_MAX_LINE_BYTES,
    read_timeout: float | None = DEFAULT_READ_TIMEOUT,
    max_session_streams: int = DEFAULT_MAX_SESSION_STREAMS,
    client: httpx.AsyncClient | None = None,
    schema: None = None,
    **options: Unpack[RemoteOptions],
) -> AbstractAsyncContextManager[ClientSideConnection[acp_schema.AgentProxy]]: ...


# Several versions: the package driving the connection is the one negotiated, known at run time
# only: typed as `ClientVersions.spawn` and `.connect` type it, never as one route's package.
@overload
def connect_agent(
    url: str,
    handler: ClientRoutes,  # several protocol versions, each route with its package
    *,
    headers: dict[str, str] | None = None,
    cookies: httpx.Cookies | dict[str, str] | None = None,
    http2: bool | None = None,
    verify: SSLContext | str | bool = True,
    connect_timeout: float = 30.0,
    max_message_bytes: int = DEFAULT_MAX_LINE_BYTES,
    read_timeout: float | None = DEFAULT_READ_TIMEOUT,
    max_session_streams: int = DEFAULT_MAX_SESSION_STREAMS,
    client: httpx.AsyncClient | None = None,
    schema: None = None,
    **options: Unpack[RemoteOptions],
) -> AbstractAsyncContextManager[ClientSideConnection[Any]]: ...


@overload
def connect_agent(
    url: str,
    handler: HandlerT | Callable[[ClientSideConnection[ProxyT]], HandlerT],
    *,
    headers: dict[str, str] | None = None,
    cookies: httpx.Cookies | dict[str, str] | None = None,
    http2: bool | None = None,
    verify: SSLContext | str | bool = True,
    connect_timeout: float = 30.0,
    max_message_bytes: int = DEFAULT_MAX_LINE_BYTES,
    read_timeout: float | None = DEFAULT_READ_TIMEOUT,
    max_session_streams: int = DEFAULT_MAX_SESSION_STREAMS,
    client: httpx.AsyncClient | None = None,
    schema: ClientPackage[ProxyT, HandlerT],
    **options: Unpack[RemoteOptions],
) -> AbstractAsyncContextManager[ClientSideConnection[ProxyT]]: ...
@contextlib.asynccontextmanager
async def connect_agent(
    url: str,
    handler: object,
    *,
    headers: dict[str, str] | None = None,
    cookies: httpx.Cookies | dict[str, str] | None = None,
    http2: bool | None = None,
    verify: SSLContext | str | bool = True,
    connect_timeout: float = 30.0,
    max_message_bytes: int = DEFAULT_MAX_LINE_BYTES,
    read_timeout: float | None = DEFAULT_READ_TIMEOUT,
    max_session_streams: int = DEFAULT_MAX_SESSION_STREAMS,
    client: httpx.AsyncClient | None = None,
    schema: ClientPackage[Any, Any] | None = None,
    **options: Unpack[RemoteOptions],
) -> AsyncIterator[ClientSideConnection[Any]]:
    """Connect to a remote agent at `url` (`http(s)://` Streamable HTTP, `ws(s)://` WebSocket) and
    yield a `ClientSideConnection`; on exit the connection is closed (`DELETE` over HTTP).

    `headers` go on every request (authentication, for one). `cookies` seeds the cookie jar
    (another connection's `conn.cookies`). `http2`: None speaks HTTP/2 where TLS negotiates it
    and HTTP/1.1 on `http://`; True also forces HTTP/2 on `http://` (h2c, prior knowledge);
    False is HTTP/1.1 only. Other options go to `ClientSideConnection`.

    Over HTTP, one `httpx.AsyncClient` (one connection pool) carries the connection's POSTs and,
    on HTTP/1.1, its SSE streams; on HTTP/2 over TLS each stream has a client of its own (see
    `_read_stream`). On `http://` over HTTP/1.1 with no proxy in the environment, the POSTs
    instead go on a keep-alive connection of their own, each in one write (`poster.Poster`); on
    h2c every request goes on one HTTP/2 connection of the connection's own (`h2conn`).
    Every client shares the process's TLS context (`acp_runtime.http.pool`), and `http://` loads
    none. `client`: an `httpx.AsyncClient` of yours to carry every request of the
    connection instead (share one across many connections to share its pool); it is not closed
    here, and `headers`, `cookies`, `http2` and `verify` are then its own settings. Give it
    `http2=False` (its default): on HTTP/2 an idle stream would hold up the others.

    Against a hostile or dead server (HTTP): an SSE stream that brings nothing for `read_timeout`
    seconds (its `: keepalive` comments count) is broken, and the connection closes when it is
    the connection stream; a POST not answered within `read_timeout` seconds closes the
    connection; at most `max_session_streams` session streams are open at once (a
    server naming more sessions cannot make the client open more connections); an SSE line or
    event longer than `max_message_bytes` breaks its stream.
    """
    scheme = urlsplit(url).scheme.lower()
    transport: _Transport
    # the connection's messages: fed whole by the transport, each one sent handed to it
    reader = MessageTransport(
        lambda message: transport.send_nowait(message),
        lambda: transport.end_output(),
        max_message_bytes,
    )
    if scheme in ("http", "https"):
        transport = _HttpTransport(
            url, reader, headers, cookies, http2, verify, connect_timeout, client
        )
        transport.limits(read_timeout, max_session_streams, max_message_bytes)
    elif scheme in ("ws", "wss"):
        transport = _WebSocketTransport(
            url, reader, headers, cookies, verify, connect_timeout, max_message_bytes
        )
    else:
        raise ValueError(f"connect_agent: {url!r} is neither http(s):// nor ws(s)://")
    try:
        await transport.open()
        conn = _client_connection(  # over the transport of whole messages (no writer)
            handler, reader, None, schema=schema, max_line_bytes=max_message_bytes, **options
        )
        conn.cookies = transport.cookies  # type: ignore[attr-defined]
        conn.transport = transport  # type: ignore[attr-defined]
        conn.describe_eof = transport.describe_eof
        try:
            yield conn
        finally:
            await conn.close()
    finally:
        await transport.close()


async def reattach_session(
    conn: ClientSideConnection, session_id: str, cwd: str, **params: Any
) -> Any:
    """Take up an existing session on a new connection: `session/resume` where the agent offers
    it, else `session/load` (which replays the history as updates). Returns the agent's answer."""
    request = {"sessionId": session_id, "cwd": cwd, "mcpServers": [], **params}
    try:
        return await conn.request("session/resume", request)
    except CapabilityError:
        return await conn.request("session/load", request)


# The connection as a plain constructor: `connect_agent`'s overloads have already typed what the
# caller passed (handler and schema together), which the implementation only passes on.
_client_connection: Callable[..., ClientSideConnection[Any]] = ClientSideConnection


class _Transport:
    """What `connect_agent` needs of a transport."""

    cookies: httpx.Cookies
    connection_id: str | None = None

    def __init__(self, reader: MessageTransport) -> None:
        self._reader = reader
        self._eof_reason = "the server closed the connection"
        self._ended = False

    async def open(self) -> None:
        raise NotImplementedError

    def send_nowait(self, message: bytes) -> None:
        raise NotImplementedError

    def end_output(self) -> None:
        """The connection closed its output: send what is queued, then end."""
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    async def describe_eof(self) -> str:
        return self._eof_reason

    def _end_input(self, reason: str) -> None:
        if not self._ended:
            self._ended = True
            self._eof_reason = reason
            self._reader.feed_eof()

    def _fail_request(self, message: Peek, text: str, data: Any) -> None:
        """Answer one of our requests locally with -32603: its POST was refused."""
        error = {"code": INTERNAL_ERROR, "message": text, "data": data}
        self._reader.feed(msgspec.json.encode({"jsonrpc": "2.0", "id": message.id, "error": error}))


class _HttpTransport(_Transport):
    def __init__(
        self,
        url: str,
        reader: MessageTransport,
        headers: dict[str, str] | None,
        cookies: Any,
        http2: bool | None,
        verify: Any,
        connect_timeout: float,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(reader)
        self.url = url
        scheme = urlsplit(url).scheme.lower()
        prior_knowledge = http2 is True and scheme == "http"
        # HTTP/2 may be spoken (offered by ALPN, or h2c): then each stream needs its own client
        self._h2 = client is None and (prior_knowledge or (http2 is not False and scheme != "http"))
        self._owns_client = client is None
        if client is None:
            self.cookies = httpx.Cookies(cookies)  # one jar for every client below
            self._new_client = functools.partial(
                new_client,
                scheme,
                http1=not prior_knowledge,
                http2=http2 is not False,
                headers=headers,
                cookies=self.cookies.jar,  # a CookieJar is shared, not copied
                verify=verify,
                timeout=httpx.Timeout(connect_timeout, read=None),
            )
            client = self._new_client()
        else:
            self.cookies = client.cookies
        self._client = client
        self._poster: Poster | None = None
        if self._owns_client and usable(url, http2):  # our POSTs skip httpx (see poster.py)
            self._poster = Poster(url, httpx.Headers(headers), self.cookies, connect_timeout)
        # h2c: every request on one HTTP/2 connection of our own (see h2conn.py)
        self._h2conn: H2Connection | None = None
        if self._owns_client and prior_knowledge:
            self._h2 = False
            self._h2conn = H2Connection(url, httpx.Headers(headers), self.cookies, connect_timeout)
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._sender: asyncio.Task[None] | None = None
        self._sending = False  # the sender task holds a message
        # h2c: the POST sent at once (`_post_at_once`), until it is answered, and its deadline
        self._at_once: asyncio.Future[None] | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._streams: dict[str | None, asyncio.Task[None]] = {}
        self._asked: dict[Any, str] = {}  # agent request id -> its session, to tag our answer
        self._stream_end: dict[str | None, str] = {}  # why a stream was refused
        self.limits(DEFAULT_READ_TIMEOUT, DEFAULT_MAX_SESSION_STREAMS, DEFAULT_MAX_LINE_BYTES)

    def limits(
        self, read_timeout: float | None, max_session_streams: int, max_message_bytes: int
    ) -> None:
        """The bounds a hostile server meets (see `connect_agent`)."""
        self._read_timeout = read_timeout
        self._max_session_streams = max_session_streams
        self._max_event_bytes = max_message_bytes

    def _may_open(self, session: str | None) -> bool:
        """Whether a stream for `session` may be opened now: the connection stream always; a
        session stream while fewer than `max_session_streams` are open."""
        if session is None:
            return True
        running = sum(1 for s, task in self._streams.items() if s is not None and not task.done())
        if running < self._max_session_streams:
            return True
        log.warning(
            "not opening the stream of session %s: %d session streams are open (the limit)",
            session,
            running,
        )
        return False

    async def open(self) -> None:
        self._sender = asyncio.get_running_loop().create_task(self._send_all())

    def send_nowait(self, message: bytes) -> None:
        if not self._post_at_once(message):
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
        for task in list(self._streams.values()):
            task.cancel()
        await asyncio.gather(*self._streams.values(), return_exceptions=True)
        if self.connection_id is not None and not self._ended:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._delete(), 5.0)
        self._end_input("the client closed the connection")
        if self._poster is not None:
            await self._poster.aclose()
        if self._h2conn is not None:
            await self._h2conn.aclose()
        if self._owns_client:
            await self._client.aclose()

    async def _delete(self) -> None:
        if self._h2conn is None:
            await self._client.delete(self.url, headers=self._ids(None))
            return
        _, _, data = await self._h2conn.request("DELETE", self._ids(None))
        async with contextlib.aclosing(data):
            async for _ in data:
                pass

    def _ids(self, session: str | None) -> dict[str, str]:
        ids = {CONNECTION_ID_HEADER: self.connection_id or ""}
        if session is not None:
            ids[SESSION_ID_HEADER] = session
        return ids

    # --- out --------------------------------------------------------------------------------------

    async def _send_all(self) -> None:
        while True:
            data = await self._queue.get()
            self._sending = True
            try:
                if self._at_once is not None:  # after the POST sent at once before this one
                    await asyncio.shield(self._at_once)
                if data is None:
                    return
                if self._ended:
                    continue
                try:
                    await self._post(data, peek(data))
                except (httpx.HTTPError, PostFailed) as exc:
                    self._end_input(f"the request to {self.url} failed: {exc!r}")
            finally:
                self._sending = False

    def _post_at_once(self, data: bytes) -> bool:
        """h2c: POST `data` now, in the caller's step, when nothing is sent or waits before it
        and the HTTP/2 connection can take it at once (`H2Connection.post_at_once`); its answer
        is handled within the connection's callback (`_answered`). The sender task does not
        wake up for it, nor for its answer. False: it goes through the queue."""
        conn = self._h2conn
        if (
            conn is None
            or self._sending
            or self._at_once is not None
            or self.connection_id is None
            or self._ended
            or not self._queue.empty()
            or not conn.can_post_at_once(len(data))
        ):
            return False
        message = peek(data)
        headers = self._route(message)
        loop = asyncio.get_running_loop()
        self._at_once = loop.create_future()
        then = functools.partial(self._answered, message)
        try:
            stream_id = conn.post_at_once(data, headers, self._max_event_bytes, then)
        except PostFailed as exc:
            self._answered(message, exc)
            return True
        if self._read_timeout is not None:
            error = PostFailed(
                f"POST {self.url}: no answer within {self._read_timeout:g} s (read_timeout)"
            )
            self._deadline = loop.call_later(self._read_timeout, conn.abandon, stream_id, error)
        return True

    def _answered(self, message: Peek, outcome: Answer | Exception) -> None:
        """The answer to a POST sent at once (or why it failed), as `_post` takes it."""
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        at_once, self._at_once = self._at_once, None
        if at_once is not None and not at_once.done():
            at_once.set_result(None)
        if isinstance(outcome, Exception):
            self._end_input(f"the request to {self.url} failed: {outcome!r}")
        elif outcome.status_code == 200 and outcome.content:
            self._receive(outcome.content)
        elif outcome.status_code not in (200, 202):
            self._refused(message, outcome, None)

    def _route(self, message: Peek) -> dict[str, str]:
        """The headers of a POST on the open connection, its session's stream opened first."""
        if message.kind == "response":
            session = self._asked.pop(message.id_key, None)
        else:
            session = message.session_id
        if session is not None:
            self._open_stream(session)
        return {"content-type": JSON_TYPE, **self._ids(session)}

    async def _post(self, data: bytes, message: Peek) -> None:
        headers = {"content-type": JSON_TYPE}
        if self.connection_id is None:
            if message.kind != "request" or message.method != "initialize":
                log.warning(
                    "dropped a %s sent before initialize opened the connection", message.kind
                )
                return
            response = await self._send(data, headers)
            connection_id = response.headers.get(CONNECTION_ID_HEADER)
            if response.status_code == 200 and not connection_id and _is_error(response.content):
                self._reader.feed(response.content)  # initialize failed: no connection
                self._end_input("the agent refused initialize")
                return
            if response.status_code != 200 or not connection_id:
                self._refused(message, response, f"no {CONNECTION_ID_HEADER} in the answer")
                return
            self.connection_id = connection_id
            self._open_stream(None)
            self._receive(response.content)
            return
        response = await self._send(data, self._route(message))
        if response.status_code == 200 and response.content:
            self._receive(response.content)
        elif response.status_code not in (200, 202):
            self._refused(message, response, None)

    async def _send(self, data: bytes, headers: dict[str, str]) -> httpx.Response | Answer:
        """POST one message: on the connection's own HTTP/2 connection or `Poster` where it has
        one, else with httpx. A server that has not answered within `read_timeout` seconds fails
        the POST (`PostFailed`): later messages must not wait behind it forever."""
        try:
            async with asyncio.timeout(self._read_timeout):
                if self._h2conn is not None:
                    return await self._h2conn.post(data, headers, self._max_event_bytes)
                if self._poster is not None:
                    return await self._poster.post(data, headers, self._max_event_bytes)
                return await self._client.post(self.url, content=data, headers=headers)
        except TimeoutError:
            if self._poster is not None:
                await self._poster.aclose()  # cut off mid-answer: never reused
            raise PostFailed(
                f"POST {self.url}: no answer within {self._read_timeout:g} s (read_timeout)"
            ) from None

    def _refused(self, message: Peek, response: httpx.Response | Answer, why: str | None) -> None:
        """A POST the server did not accept: its request fails with -32603 (data: status and
        body); 401, 403, 404 and 410 also close the connection, which the server does not know."""
        body = response.content[:_ERROR_BODY_LIMIT].decode("utf-8", "replace")
        what = message.method or message.kind
        text = f"HTTP {response.status_code} for {what}: {why or body or response.reason_phrase}"
        if message.kind == "request":
            self._fail_request(message, text, {"status": response.status_code, "body": body})
        else:
            log.warning("the server refused a %s: %s", message.kind, text)
        if response.status_code in _GONE:
            self._end_input(f"the server refused the connection ({text})")

    # --- in ---------------------------------------------------------------------------------------

    def _receive(self, data: bytes) -> None:
        try:
            message = peek(data)
        except msgspec.DecodeError:
            message = Peek("invalid")
        if message.result_session_id is not None:
            self._open_stream(message.result_session_id)
        if message.kind == "request" and message.session_id is not None:
            self._asked[message.id_key] = message.session_id
        self._reader.feed(data)

    def _open_stream(self, session: str | None) -> None:
        task = self._streams.get(session)
        if (task is None or task.done()) and self._may_open(session):
            self._streams[session] = asyncio.get_running_loop().create_task(
                self._read_stream(session)
            )

    async def _read_stream(self, session: str | None) -> None:
        """Read one SSE stream. On HTTP/1.1 it takes a TCP connection of the connection's pool. On
        h2c it is a stream of the connection's `H2Connection`. On HTTP/2 over TLS each stream has
        an HTTP client (so an HTTP/2 connection) of its own: httpcore 1.0.9 reads a connection
        under one lock, and a second idle streaming response waiting on that lock keeps other
        answers on the connection from their readers (see h2conn.py)."""
        headers = {"accept": EVENT_STREAM_TYPE, **self._ids(session)}
        reason = f"the server ended the connection stream of {self.url}"
        try:
            if self._h2conn is not None:
                await self._read_h2_events(self._h2conn, headers, session)
            elif self._h2:
                async with self._new_client() as client:
                    await self._read_events(client, headers, session)
            else:
                await self._read_events(self._client, headers, session)
        except (httpx.HTTPError, PostFailed, SilentServerError, OversizedEventError) as exc:
            reason = f"the stream from {self.url} broke: {exc}"
        else:
            reason = self._stream_end.pop(session, reason)
        if session is None:
            self._end_input(reason)
        else:
            log.debug("the stream of session %s ended: %s", session, reason)

    async def _read_events(
        self, client: httpx.AsyncClient, headers: dict[str, str], session: str | None
    ) -> None:
        async with client.stream("GET", self.url, headers=headers) as response:
            if response.status_code != 200:
                body = (await response.aread())[:_ERROR_BODY_LIMIT].decode("utf-8", "replace")
                self._stream_end[session] = (
                    f"the server refused the stream: HTTP {response.status_code}: {body}"
                )
                return
            chunks = _alive_within(response.aiter_bytes(), self._read_timeout)
            async for event in _sse_events(chunks, self._max_event_bytes):
                self._receive(event)

    async def _read_h2_events(
        self, conn: H2Connection, headers: dict[str, str], session: str | None
    ) -> None:
        """The stream's events are parsed and handed on as its data arrives, within the HTTP/2
        connection's callback (`H2Connection.follow`): no task wakes up per event."""
        parser = EventParser(self._max_event_bytes)
        receive = self._receive

        def sink(data: bytes) -> None:
            for event in parser.feed(data):
                receive(event)

        seconds = self._read_timeout

        def silent() -> Exception:
            return SilentServerError(f"nothing came for {seconds} seconds, not even a keepalive")

        status, body = await conn.follow("GET", headers, sink, seconds, silent)
        if status != 200:
            text = body[:_ERROR_BODY_LIMIT].decode("utf-8", "replace")
            self._stream_end[session] = f"the server refused the stream: HTTP {status}: {text}"
            return
        if (last := parser.end()) is not None:
            receive(last)


def _is_error(body: bytes) -> bool:
    """Whether a body is a JSON-RPC error response."""
    try:
        return isinstance(msgspec.json.decode(body, type=_ErrorAnswer).error, dict)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return False


class _ErrorAnswer(msgspec.Struct):
    error: Any = None


async def _alive_within(
    chunks: AsyncIterator[bytes], seconds: float | None
) -> AsyncIterator[bytes]:
    """The chunks of a response; `SilentServerError` when none comes for `seconds` (None: no
    deadline). A keepalive comment is a chunk: a quiet but live server passes."""
    iterator = chunks.__aiter__()
    while True:
        try:
            async with asyncio.timeout(seconds):  # a timer, where wait_for made a task per chunk
                chunk = await iterator.__anext__()
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise SilentServerError(
                f"nothing came for {seconds} seconds, not even a keepalive"
            ) from None
        yield chunk


async def _sse_events(
    chunks: AsyncIterator[bytes], limit: int = DEFAULT_MAX_LINE_BYTES
) -> AsyncIterator[bytes]:
    """The data of each server-sent event of `chunks` (see `events.EventParser`); an event
    unfinished at the end of the stream is the last."""
    parser = EventParser(limit)
    async for chunk in chunks:
        for event in parser.feed(chunk):
            yield event
    if (last := parser.end()) is not None:
        yield last


_AT_EOF = StreamReader.at_eof.__code__
_PARSE = Protocol.parse.__code__


def _at_frame_start(parser: Any) -> bool:
    """Whether websockets' frame parser (`Protocol.parse`, run by the client's handshake parser)
    waits for the first byte of a frame: the generators it waits in, innermost last, end with
    `Protocol.parse` waiting in `StreamReader.at_eof`."""
    outer, inner = None, parser
    while inner is not None and inner.gi_code is not _AT_EOF:
        outer, inner = inner, inner.gi_yieldfrom
    return inner is not None and outer is not None and outer.gi_code is _PARSE


def _text_frames(data: bytes, max_size: int | None) -> list[bytes] | None:
    """The messages of `data` when it is whole server frames, each a FIN text frame with no RSV
    bit, unmasked, within `max_size`, its payload valid UTF-8; else None."""
    messages: list[bytes] = []
    pos, end = 0, len(data)
    while pos < end:
        if end - pos < 2 or data[pos] != 0x81 or data[pos + 1] & 0x80:
            return None
        size = data[pos + 1]
        pos += 2
        if size == 126:
            if end - pos < 2:
                return None
            size = int.from_bytes(data[pos : pos + 2], "big")
            pos += 2
        elif size == 127:
            if end - pos < 8:
                return None
            size = int.from_bytes(data[pos : pos + 8], "big")
            pos += 8
        if (max_size is not None and size > max_size) or end - pos < size:
            return None
        payload = data[pos : pos + size]
        pos += size
        try:
            payload.decode()
        except UnicodeDecodeError:
            return None
        messages.append(payload)
    return messages


class _Socket(ClientConnection):
    """websockets' client connection, whose text messages go to `on_text` as their last frame
    arrives, within the connection's own callback (no message queue, no task woken per
    message); binary messages are dropped (ACP carries none). websockets' protocol has already
    checked each frame, answered pings and bounded the message's size (`max_size`); the UTF-8 of
    a text message is checked here, and a bad one fails the connection (1007), as websockets
    fails it."""

    on_text: Callable[[bytes], None] | None = None
    _parts: list[bytes] | None = None  # the frames so far of a fragmented text message
    _binary = False  # the frames of a fragmented binary message are being dropped

    def data_received(self, data: bytes) -> None:
        """A chunk of whole, plain text frames (`_text_frames`) that comes while websockets'
        parser waits at a frame's start with nothing buffered goes to `on_text` message by
        message at once; any other chunk to websockets, as before."""
        on_text = self.on_text
        protocol = self.protocol
        if (
            on_text is not None
            and self.response is not None
            and protocol.state is State.OPEN
            and protocol.current_size is None
            and self._parts is None
            and not self._binary
            and not protocol.reader.buffer
            and not protocol.extensions
            and _at_frame_start(protocol.parser)
        ):
            messages = _text_frames(data, protocol.max_message_size)
            if messages is not None:
                for message in messages:
                    on_text(message)
                return
        super().data_received(data)

    def process_event(self, event: Any) -> None:
        on_text = self.on_text
        if on_text is None or self.response is None or not isinstance(event, Frame):
            super().process_event(event)
            return
        opcode = event.opcode
        if opcode is Opcode.TEXT:
            if event.fin:
                self._deliver(on_text, bytes(event.data))
            else:
                self._parts = [bytes(event.data)]
        elif opcode is Opcode.CONT:
            if self._parts is not None:
                self._parts.append(bytes(event.data))
                if event.fin:
                    parts, self._parts = self._parts, None
                    self._deliver(on_text, b"".join(parts))
            elif event.fin:
                self._binary = False
        elif opcode is Opcode.BINARY:
            self._binary = not event.fin
        elif opcode is Opcode.PONG:
            self.acknowledge_pings(bytes(event.data))

    def _deliver(self, on_text: Callable[[bytes], None], data: bytes) -> None:
        try:
            data.decode()
        except UnicodeDecodeError:
            self.protocol.fail(CloseCode.INVALID_DATA, "invalid UTF-8 in a text message")
            self.send_data()
            return
        on_text(data)


def _masked_text(data: bytes) -> bytes:
    """A client's text frame of `data` (FIN, masked with a fresh random key), as websockets'
    `Frame(TEXT, data).serialize(mask=True)` writes it."""
    size = len(data)
    if size < 126:
        head = bytes((0x81, 0x80 | size))
    elif size < 65536:
        head = bytes((0x81, 0xFE)) + size.to_bytes(2, "big")
    else:
        head = bytes((0x81, 0xFF)) + size.to_bytes(8, "big")
    mask = secrets.token_bytes(4)
    return head + mask + apply_mask(data, mask)


class _WebSocketTransport(_Transport):
    """Text frames both ways. Received messages are fed as they arrive (`_Socket`); a message
    sent while nothing waits to be sent goes out at once, within `send_nowait`, unless the
    socket's write buffer is over its high-water mark; otherwise it waits its turn in a queue
    the sending task empties with websockets' `send` (which waits for the buffer to drain)."""

    def __init__(
        self,
        url: str,
        reader: MessageTransport,
        headers: dict[str, str] | None,
        cookies: Any,
        verify: Any,
        connect_timeout: float,
        max_message_bytes: int,
    ) -> None:
        super().__init__(reader)
        self.url = url
        self.cookies = httpx.Cookies(cookies)
        self._headers = dict(headers or {})
        self._verify = verify
        self._connect_timeout = connect_timeout
        self._max = max_message_bytes
        self._socket: Any = None
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._queued = 0  # messages in the queue or being sent by the task
        self._tasks: list[asyncio.Task[None]] = []

    async def open(self) -> None:
        headers = dict(self._headers)
        jar = "; ".join(f"{cookie.name}={cookie.value}" for cookie in self.cookies.jar)
        if jar:
            headers["Cookie"] = jar
        ssl: Any = None
        if urlsplit(self.url).scheme.lower() == "wss" and self._verify is not True:
            ssl = httpx.create_ssl_context(verify=self._verify)
            # a context the caller also gives httpx may offer h2 by ALPN (httpcore sets it on
            # each connect): a WebSocket handshake is HTTP/1.1
            ssl.set_alpn_protocols(["http/1.1"])
        self._socket = await websocket_connect(
            self.url,
            additional_headers=headers,
            max_size=self._max,
            open_timeout=self._connect_timeout,
            compression=None,
            create_connection=_Socket,
            **({"ssl": ssl} if ssl is not None else {}),
        )
        # take messages from the start: one that arrived before `_receive_all` ran went to
        # websockets' own queue, which nothing reads (issue 35's hang)
        self._socket.on_text = self._reader.feed
        response = self._socket.response
        self.connection_id = response.headers.get(CONNECTION_ID_HEADER)
        parts = urlsplit(self.url)
        http_url = urlunsplit(("https" if parts.scheme.lower() == "wss" else "http", *parts[1:]))
        as_http = httpx.Response(
            response.status_code,
            headers=list(response.headers.raw_items()),
            request=httpx.Request("GET", http_url),
        )
        self.cookies.extract_cookies(as_http)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._receive_all()), loop.create_task(self._send_all())]

    def send_nowait(self, message: bytes) -> None:
        socket = self._socket
        if (
            self._queued == 0
            and socket is not None
            and socket.protocol.state is State.OPEN
            and socket.transport.get_write_buffer_size() <= socket.write_limit_high
        ):
            protocol = socket.protocol
            if (
                protocol.writes
                or protocol.extensions
                or protocol.debug
                or protocol.expect_continuation_frame
            ):
                protocol.send_text(message)  # a text frame, sent without decoding
                socket.send_data()
            else:  # the frame websockets would write (`Frame.serialize`), in one step
                socket.transport.write(_masked_text(message))
            return
        self._queued += 1
        self._queue.put_nowait(message)

    def end_output(self) -> None:
        self._queue.put_nowait(None)

    async def _send_all(self) -> None:
        try:
            while (data := await self._queue.get()) is not None:
                try:
                    await self._socket.send(data, text=True)  # a text frame, sent without decoding
                finally:
                    self._queued -= 1
        except websockets.ConnectionClosed:
            pass
        with contextlib.suppress(Exception):
            await self._socket.close()

    async def _receive_all(self) -> None:
        """Feed each text message as it arrives (`_Socket`), and end the input with the socket."""
        reason = f"the server closed the WebSocket {self.url}"
        socket = self._socket
        socket.on_text = self._reader.feed
        try:
            await socket.wait_closed()
            closed = socket.protocol.close_exc
            if not isinstance(closed, websockets.ConnectionClosedOK):  # as `async for` ends
                reason = f"the WebSocket {self.url} closed: {closed}"
        except Exception as exc:  # a broken socket
            reason = f"the WebSocket {self.url} broke: {exc!r}"
        self._end_input(reason)

    async def close(self) -> None:
        self._queue.put_nowait(None)
        if self._tasks:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._tasks[1]), 5.0)
        if self._socket is not None:
            with contextlib.suppress(Exception):
                await self._socket.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._end_input("the client closed the connection")
