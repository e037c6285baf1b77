"""The agent side of ACP's Streamable HTTP and WebSocket transport: one ASGI application at `/acp`.

    app = AcpApp(MyAgent)                # any agent handler (class or factory: one per connection)
    await serve(app, "127.0.0.1:8000")   # Hypercorn: HTTP/1.1, h2c, HTTP/2 over TLS, WebSocket

What `rfds/streamable-http-websocket-transport.mdx` asks, and how each piece maps onto a
`Connection` with the guarantees of stdio:

- `POST` carries one client message. `initialize` without `Acp-Connection-Id` creates a
  connection and is answered `200` with the agent's JSON answer and the `Acp-Connection-Id`
  header (and the affinity cookie, when configured); every other message is answered `202` and
  fed, in arrival order, to that connection's `AgentSideConnection` as one line.
- `GET` with `Accept: text/event-stream` opens an SSE stream: `Acp-Connection-Id` alone is the
  connection-scoped stream, with `Acp-Session-Id` the session-scoped one. Each agent message is
  put in exactly one stream's mailbox, in the order the connection wrote it: a message naming a
  session (`params.sessionId`) goes to that session's stream; a response goes where the request
  it answers asked for it (its session's stream, or the connection stream for requests that set
  a session up: `rules.SESSION_CREATED_BY | SESSION_OPENED_BY`); everything else to the
  connection stream. A mailbox keeps its messages until a stream takes them, so nothing is lost
  between a POST and the GET that reads its answer. One reader per stream at a time (`409`).
- `GET` with `Upgrade: websocket` (an ASGI `websocket` scope) is a connection of its own: text
  frames both ways, one message each, in order; binary frames are ignored, as the RFD says.
- `DELETE` closes the connection (its running handlers are cancelled) and ends its streams.

Who may call is settled first (`guard.py`, docs/runtime.md "Security"): `403` a `Host` or a
browser `Origin` the app does not take, `401` a request its `authenticate` hook refuses; a
connection id used by another principal than the one that opened it is `404`, as an unknown one.

Bad requests are answered without touching any connection: `405` other methods, `404` other
paths and unknown connection ids, `400` missing `Acp-Connection-Id` or `Acp-Session-Id`, or an
`Acp-Session-Id` that contradicts the message, `415` a POST that is not `application/json`, `406`
a GET that does not accept `text/event-stream`, `400` with a JSON-RPC -32700 / -32600 body for a
body that is not JSON / not a JSON object or is a JSON-RPC batch (ACP has none), `413` (-32600,
naming the limit) for
a body over `max_message_bytes`, `400` -32600 an `initialize` whose id is no integer or string
(or a message nested deeper than the decoder goes: -32700 when its id cannot be read), `408` a body
slower than `body_timeout`, `503` over `max_connections` or `max_total_buffered_bytes`. No answer
quotes the request. Well-formed JSON objects that are not valid ACP messages are answered by the
connection on its streams, exactly as over stdio.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import inspect
import logging
import uuid
from typing import Any, Awaitable, Callable, Collection, Sequence

import msgspec

from .. import rules
from ..agent import AgentSideConnection
from ..framing import DEFAULT_MAX_LINE_BYTES
from ..jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR
from ..transport import MessageTransport
from .guard import Authenticate, foreign, request_info
from .messages import (
    CONNECTION_ID_HEADER,
    EVENT_STREAM_TYPE,
    JSON_TYPE,
    SESSION_ID_HEADER,
    SESSION_SETUP,
    Peek,
    peek,
)

log = logging.getLogger("acp_runtime.http")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
"""Default limit of one message (a POST body, a WebSocket message); stdio keeps its own."""

DEFAULT_MAX_BUFFERED_BYTES = 16 * 1024 * 1024
"""Default limit of what one connection's mailboxes may hold for streams nobody reads."""

DEFAULT_MAX_TOTAL_BUFFERED_BYTES = 256 * 1024 * 1024
"""Default limit of what the whole server may hold: unread mailboxes and bodies being read."""

DEFAULT_MAX_CONNECTIONS = 256
"""Default limit of open ACP connections (HTTP and WebSocket together)."""

MAX_SESSION_STREAMS = 1024
"""Session streams one connection may open (a GET opens one for any session id, as the RFD's
reconnect flow opens it before `session/load`)."""

WEBSOCKET_COMPRESSION: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "acp_websocket_compression", default=True
)
"""False while an `AcpApp` accepts a WebSocket: the server must not negotiate permessage-deflate
(`serve` makes Hypercorn honour it). A compressed frame is inflated whole before its size is
checked: 1 MiB on the wire can become 1 GiB in memory."""


class RemoteAgentConnection(AgentSideConnection[Any]):
    """The `AgentSideConnection` of a remote client: `principal` is what `AcpApp(authenticate=)`
    returned for the request that opened it (None without the hook), set before the handler is
    built, so a handler factory can read it."""

    def __init__(
        self, handler: Any, reader: Any, writer: Any, *, principal: Any = None, **options: Any
    ) -> None:
        self.principal = principal
        super().__init__(handler, reader, writer, **options)


class Mailbox:
    """The messages waiting for one outbound stream, in order."""

    def __init__(self, owner: RemoteConnection) -> None:
        self._owner = owner
        self.items: collections.deque[bytes] = collections.deque()
        self.finished = False
        self.leased = False
        self._wake = asyncio.Event()

    def push(self, data: bytes) -> None:
        self.items.append(data)
        self._owner.count(len(data))
        self._wake.set()

    def take(self) -> list[bytes]:
        """Everything waiting, removed from the mailbox."""
        items = list(self.items)
        self.items.clear()
        self._owner.count(-sum(map(len, items)))
        return items

    def finish(self) -> None:
        self.finished = True
        self._wake.set()

    async def wait(self) -> None:
        """Until a message waits or the mailbox is finished."""
        while not self.items and not self.finished:
            self._wake.clear()
            await self._wake.wait()


class RemoteConnection:
    """One ACP connection served over HTTP or a WebSocket: an `AgentSideConnection` whose input is
    fed from POSTs or frames and whose output is sorted into mailboxes."""

    def __init__(self, app: AcpApp, transport: str, principal: Any = None) -> None:
        self.app = app
        self.transport = transport
        self.principal = principal
        self.id = uuid.uuid4().hex
        self.buffered = 0
        self._counted = True  # its bytes are in app.buffered (until it ends)
        self.connection_stream = Mailbox(self)
        self.session_streams: dict[str, Mailbox] = {}
        self.everything = Mailbox(self)  # the WebSocket's single stream
        # client request id -> session stream of its answer
        self._answer_to: dict[Any, str | None] = {}
        self._asked: dict[Any, str | None] = {}  # agent request id -> the session it is about
        self._waiters: dict[Any, asyncio.Future[bytes]] = {}
        self._idle: asyncio.TimerHandle | None = None
        limit = app.options.get("max_line_bytes", DEFAULT_MAX_LINE_BYTES)
        self.messages = MessageTransport(self._route, self._ended, limit)
        self.conn = RemoteAgentConnection(
            app.handler, self.messages, None, principal=principal, **app.options
        )

    def count(self, delta: int) -> None:
        """Bytes added to (or taken from) this connection's mailboxes."""
        self.buffered += delta
        if self._counted:
            self.app.buffered += delta

    # --- in ---------------------------------------------------------------------------------------

    def receive(self, body: bytes, message: Peek, session_header: str | None = None) -> None:
        """Hand one client message to the agent connection, remembering where its answer goes.

        The answer to a request about a session goes to that session's stream, except for
        session/new and session/fork (the client learns the id from the answer itself) and for
        session/load and session/resume sent without `Acp-Session-Id`: those are answered on the
        connection stream, as the RFD draws them. Sent with the header, which says the client
        reads that session's stream, their answer follows the replayed history on it, so the
        client has seen the whole history when the call returns (across two streams nothing
        orders the answer after the history)."""
        key = message.id_key
        if message.kind == "request" and key is not None:
            if message.method in rules.SESSION_CREATED_BY:
                self._answer_to[key] = None
            elif message.method in rules.SESSION_OPENED_BY:
                self._answer_to[key] = session_header
            else:
                self._answer_to[key] = message.session_id
        elif message.kind == "response" and key is not None:
            self._asked.pop(key, None)
        self.messages.feed(body)
        self.touch()

    def asked_about(self, message: Peek) -> str | None:
        """The session of the agent request a client response answers (None: none, or unknown)."""
        key = message.id_key
        return self._asked.get(key) if key is not None else None

    async def initialize(self, body: bytes, message: Peek) -> bytes | None:
        """Feed the initialize request; its answer (None if the connection closed first)."""
        key = message.id_key
        waiter: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._waiters[key] = waiter
        self.receive(body, message)
        try:
            return await waiter
        except ConnectionResetError:
            return None
        finally:
            self._waiters.pop(key, None)

    # --- out --------------------------------------------------------------------------------------

    def _route(self, line: bytes) -> None:
        message = peek(line)
        key = message.id_key
        if message.kind == "response":
            waiter = self._waiters.pop(key, None) if key is not None else None
            if waiter is None and key is None and len(self._waiters) == 1:
                # an error answer with a null id while initialize is the only message this
                # connection has had (its params could not be decoded): it answers initialize
                waiter = self._waiters.popitem()[1]
            if waiter is not None and not waiter.done():
                waiter.set_result(line)
                return
            session = self._answer_to.pop(key, None) if key is not None else None
        else:
            session = message.session_id
            if message.kind == "request" and key is not None:
                self._asked[key] = session
        self.mailbox(session).push(line)
        if self.buffered > self.app.max_buffered_bytes:
            log.warning(
                "connection %s: over %d bytes wait unread: closing it",
                self.id,
                self.app.max_buffered_bytes,
            )
            self.app.spawn(self.close())
        elif self.app.buffered > self.app.max_total_buffered_bytes:
            self.app.shed()

    def mailbox(self, session: str | None) -> Mailbox:
        """The mailbox for a session's messages (the connection's when None), made on first use."""
        if self.transport == "websocket":
            return self.everything
        if session is None:
            return self.connection_stream
        box = self.session_streams.get(session)
        if box is None:
            box = self.session_streams[session] = Mailbox(self)
        return box

    def _ended(self) -> None:
        """The agent connection closed its output: end every stream, forget the connection."""
        for box in (self.connection_stream, self.everything, *self.session_streams.values()):
            box.finish()
        for waiter in self._waiters.values():
            if not waiter.done():
                waiter.set_exception(ConnectionResetError("the connection closed before answering"))
        if self._idle is not None:
            self._idle.cancel()
        if self._counted:  # what is left unread is no longer the server's to hold
            self._counted = False
            self.app.buffered -= self.buffered
        self.app.connections.pop(self.id, None)

    # --- life -------------------------------------------------------------------------------------

    def touch(self) -> None:
        """Activity: restart the idle clock, unless an SSE stream is open (a reader is there).
        A WebSocket's clock runs from the last message either way."""
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        if self.conn.closed or self.app.idle_timeout is None:
            return
        if self.transport == "http" and any(
            box.leased for box in (self.connection_stream, *self.session_streams.values())
        ):
            return
        loop = asyncio.get_running_loop()
        self._idle = loop.call_later(
            self.app.idle_timeout, lambda: self.app.spawn(self._idle_out())
        )

    async def _idle_out(self) -> None:
        log.info(
            "connection %s: no message and no open stream for %ss: closing it",
            self.id,
            self.app.idle_timeout,
        )
        await self.close()

    async def close(self) -> None:
        await self.conn.close()
        self._ended()


class _Refused(Exception):
    """A request answered with an error before it reached a connection."""

    def __init__(self, status: int, text: str, code: int | None = None, data: Any = None) -> None:
        super().__init__(text)
        self.status, self.text, self.code, self.data = status, text, code, data

    async def answer(self, send: Send) -> None:
        if self.code is None:
            await _plain(send, self.status, self.text)
        else:
            await _json_error(send, self.status, self.code, self.text, self.data)


class AcpApp:
    """An ASGI application serving an agent handler at `path` over Streamable HTTP and WebSocket.

    `handler` is what `AgentSideConnection` takes; give a class or factory to get one handler per
    connection (state shared by connections, such as stored sessions for `session/load`, is the
    application's). `affinity_cookie` ("name=value") is set on every new connection, for a load
    balancer to route the client back here. `idle_timeout` closes an HTTP connection that has had
    no request and no open stream, and a WebSocket that has carried no message either way, for
    that many seconds (None: never). Other keyword options go to every `AgentSideConnection`
    (`schema=`, `observer=`, ...).

    Who may connect (docs/runtime.md, "Security"): `allowed_hosts` and `allowed_origins` (see
    `guard.py`; by default loopback only when reached over loopback, and no page of another
    origin) answer others 403; `authenticate(request) -> principal | None` runs on every request
    and handshake (None: 401), and a connection answers only the principal that opened it (others
    get 404, as for an unknown id); the handler reads it as `conn.principal`.

    Bounds, each answered with a clear status and the server serving the rest:
    `max_message_bytes` (413 / WebSocket close 1009), `max_buffered_bytes` per connection and
    `max_total_buffered_bytes` for the server (the connections holding the most unread bytes are
    closed; a body that would pass it is answered 503), `max_connections` (503), `body_timeout`
    seconds for a request body to arrive (408).
    """

    def __init__(
        self,
        handler: Any,
        *,
        path: str = "/acp",
        affinity_cookie: str | None = None,
        allowed_hosts: Collection[str] | None = None,
        allowed_origins: Collection[str] | None = None,
        authenticate: Authenticate | None = None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        max_buffered_bytes: int = DEFAULT_MAX_BUFFERED_BYTES,
        max_total_buffered_bytes: int = DEFAULT_MAX_TOTAL_BUFFERED_BYTES,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        body_timeout: float = 30.0,
        keepalive: float = 15.0,
        idle_timeout: float | None = 300.0,
        websocket_ping_interval: float | None = 20.0,
        **options: Any,
    ) -> None:
        self.handler = handler
        self.path = path
        self.affinity_cookie = affinity_cookie
        self.allowed_hosts = allowed_hosts
        self.allowed_origins = allowed_origins
        self.authenticate = authenticate
        self.max_message_bytes = max_message_bytes
        self.max_buffered_bytes = max_buffered_bytes
        self.max_total_buffered_bytes = max_total_buffered_bytes
        self.max_connections = max_connections
        self.body_timeout = body_timeout
        self.keepalive = keepalive
        self.idle_timeout = idle_timeout
        self.websocket_ping_interval = websocket_ping_interval
        self.options = {"max_line_bytes": max_message_bytes, **options}
        self.connections: dict[str, RemoteConnection] = {}
        self.buffered = 0  # unread mailbox bytes of every connection, and bodies being read
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Any) -> None:
        """Run `work` as a task kept alive until it ends."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def shed(self) -> None:
        """Over `max_total_buffered_bytes`: close the connections holding the most unread bytes
        until the rest fit."""
        excess = self.buffered - self.max_total_buffered_bytes
        for connection in sorted(self.connections.values(), key=lambda c: -c.buffered):
            if excess <= 0 or connection.buffered == 0:
                break
            log.warning(
                "the server holds over %d unread bytes: closing connection %s (%d of them)",
                self.max_total_buffered_bytes,
                connection.id,
                connection.buffered,
            )
            excess -= connection.buffered
            connection.count(-connection.buffered)  # counted out now; closing frees it
            connection.buffered = 0
            self.spawn(connection.close())

    async def close(self) -> None:
        """Close every connection (their streams end)."""
        await asyncio.gather(
            *(c.close() for c in list(self.connections.values())), return_exceptions=True
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)
        elif kind == "http":
            await self._http(scope, receive, send)

    async def _admit(self, scope: Scope, headers: _Headers) -> Any:
        """The request's principal (None without `authenticate`), or `_Refused` 403 / 401."""
        reason = foreign(scope, headers, self.allowed_hosts, self.allowed_origins)
        if reason is not None:
            raise _Refused(403, f"forbidden: {reason}")
        if self.authenticate is None:
            return None
        try:
            principal = self.authenticate(request_info(scope, headers))
            if inspect.isawaitable(principal):
                principal = await principal
        except Exception:  # a broken hook lets no one in
            log.exception("the authenticate hook failed")
            raise _Refused(500, "Internal error: the authentication hook failed") from None
        if principal is None:
            raise _Refused(401, "unauthorized: this agent needs credentials")
        return principal

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope["method"]
        headers = _Headers(scope)
        refused: _Refused | None = None
        principal: Any = None
        try:
            principal = await self._admit(scope, headers)
        except _Refused as exc:
            refused = exc
        # Read the whole body before answering: Hypercorn's HTTP/2 drops the connection when
        # data comes for a stream it already answered (a refused request's body is dropped).
        body = b""
        if method != "GET":
            try:
                body = await self._read_body(receive, keep=refused is None and method == "POST")
            except _Refused as exc:
                refused = refused or exc
        try:
            if refused is not None:
                await refused.answer(send)
            elif scope.get("path") != self.path:
                await _plain(send, 404, f"not found: ACP is served at {self.path}")
            elif method == "POST":
                await self._post(headers, body, principal, send)
            elif method == "GET":
                await self._get(headers, principal, receive, send)
            elif method == "DELETE":
                await self._delete(headers, principal, send)
            else:
                await _plain(send, 405, "method not allowed", [(b"allow", b"GET, POST, DELETE")])
        finally:
            self.buffered -= len(body)

    async def _read_body(self, receive: Receive, keep: bool) -> bytes:
        """The request body as it arrives, counted in `buffered`; `_Refused` 413 once it passes
        `max_message_bytes` (the rest is read and dropped), 503 once the server's buffers would
        pass `max_total_buffered_bytes`, 408 when it takes over `body_timeout` seconds. A body not
        `keep`-t is read and dropped."""
        body = bytearray()
        size = 0
        refused: _Refused | None = None
        try:
            async with asyncio.timeout(self.body_timeout):
                while True:
                    event = await receive()
                    if event["type"] == "http.disconnect":
                        break
                    chunk = event.get("body", b"")
                    size += len(chunk)
                    if keep and refused is None:
                        if size > self.max_message_bytes:
                            text = f"Message exceeds the limit of {self.max_message_bytes} bytes"
                            refused = _Refused(
                                413, text, INVALID_REQUEST, {"limit": self.max_message_bytes}
                            )
                        elif self.buffered + len(chunk) > self.max_total_buffered_bytes:
                            text = "Server busy: its buffers are full, try again later"
                            limit = {"limit": self.max_total_buffered_bytes}
                            refused = _Refused(503, text, INTERNAL_ERROR, limit)
                        else:
                            body += chunk
                            self.buffered += len(chunk)
                        if refused is not None:
                            self.buffered -= len(body)
                            body = bytearray()
                    if not event.get("more_body", False):
                        break
        except TimeoutError:
            self.buffered -= len(body)
            raise _Refused(408, f"the request body took over {self.body_timeout} seconds") from None
        if refused is not None:
            raise refused
        return bytes(body) if keep else b""

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def _new_connection(self, transport: str, principal: Any) -> RemoteConnection:
        if len(self.connections) >= self.max_connections:
            raise _Refused(
                503,
                f"Server busy: it serves its limit of {self.max_connections} connections",
                INTERNAL_ERROR,
                {"limit": self.max_connections},
            )
        connection = RemoteConnection(self, transport, principal)
        self.connections[connection.id] = connection
        return connection

    def _lookup(self, connection_id: str, principal: Any) -> RemoteConnection | None:
        """The connection of an id, if the request comes from the principal that opened it."""
        connection = self.connections.get(connection_id)
        if connection is None or connection.principal != principal:
            return None
        return connection

    def _identity_headers(
        self, connection: RemoteConnection, tls: bool
    ) -> list[tuple[bytes, bytes]]:
        headers = [(CONNECTION_ID_HEADER.lower().encode(), connection.id.encode())]
        if self.affinity_cookie:
            secure = "; Secure" if tls else ""
            cookie = f"{self.affinity_cookie}; Path=/; HttpOnly; SameSite=Lax{secure}"
            headers.append((b"set-cookie", cookie.encode()))
        return headers

    # --- POST -------------------------------------------------------------------------------------

    async def _post(self, headers: _Headers, body: bytes, principal: Any, send: Send) -> None:
        content_type = (headers.get("content-type") or "").split(";", 1)[0].strip().lower()
        if content_type != JSON_TYPE:
            await _plain(send, 415, f"Content-Type must be {JSON_TYPE}")
            return
        try:
            message = peek(body)
        except msgspec.DecodeError as exc:
            await _json_error(send, 400, PARSE_ERROR, "Parse error", {"message": str(exc)})
            return
        if message.kind == "too_deep":
            text = "the message is nested deeper than the JSON decoder can take"
            if message.id_key is not None:
                await _json_error(
                    send, 400, INVALID_REQUEST, f"Invalid request: {text}", None, message.id
                )
            else:
                await _json_error(send, 400, PARSE_ERROR, "Parse error", {"message": text})
            return
        if message.kind == "batch":
            text = "Invalid request: a message is a JSON object, ACP has no JSON-RPC batches"
            await _json_error(send, 400, INVALID_REQUEST, text)
            return
        if message.kind == "invalid" and not body.lstrip().startswith(b"{"):
            text = "Invalid request: a message is a JSON object"
            await _json_error(send, 400, INVALID_REQUEST, text)
            return
        connection_id = headers.get(CONNECTION_ID_HEADER)
        if message.kind == "invalid" and connection_id is None:
            why = f" ({message.problem})" if message.problem else ""
            await _json_error(
                send, 400, INVALID_REQUEST, f"Invalid request: not a JSON-RPC message{why}"
            )
            return
        if message.kind == "request" and message.method == "initialize":
            if connection_id is not None:
                await _plain(
                    send,
                    400,
                    "initialize opens a new connection: send it without Acp-Connection-Id",
                )
            elif message.id_key is None:
                text = "Invalid request: the id of initialize must be an integer or a string"
                await _json_error(send, 400, INVALID_REQUEST, text)
            else:
                await self._initialize(body, message, principal, headers.tls, send)
            return
        if connection_id is None:
            await _plain(
                send, 400, "missing Acp-Connection-Id (only initialize may come without one)"
            )
            return
        connection = self._lookup(connection_id, principal)
        if connection is None:
            await _plain(send, 404, "unknown Acp-Connection-Id")
            return
        problem = _session_header_problem(message, headers.get(SESSION_ID_HEADER), connection)
        if problem is not None:
            await _plain(send, 400, problem)
            return
        connection.receive(body, message, headers.get(SESSION_ID_HEADER))
        await send({"type": "http.response.start", "status": 202, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def _initialize(
        self, body: bytes, message: Peek, principal: Any, tls: bool, send: Send
    ) -> None:
        try:
            connection = self._new_connection("http", principal)
        except _Refused as exc:
            await exc.answer(send)
            return
        answer = await connection.initialize(body, message)
        if answer is None:
            await _json_error(
                send,
                500,
                INTERNAL_ERROR,
                "Internal error: the connection closed before answering initialize",
            )
            return
        headers = [(b"content-type", JSON_TYPE.encode())]
        if peek(answer).failed:  # no connection came of it: none is kept for nobody
            await connection.close()
        else:
            headers += self._identity_headers(connection, tls)
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    # --- GET --------------------------------------------------------------------------------------

    async def _get(self, headers: _Headers, principal: Any, receive: Receive, send: Send) -> None:
        if (headers.get("upgrade") or "").lower() == "websocket":
            await _plain(send, 426, "this server takes WebSocket upgrades over HTTP/1.1")
            return
        if EVENT_STREAM_TYPE not in (headers.get("accept") or "").lower():
            await _plain(send, 406, f"Accept must include {EVENT_STREAM_TYPE}")
            return
        connection = await self._known(headers, principal, send)
        if connection is None:
            return
        session = headers.get(SESSION_ID_HEADER)
        if session is not None and session not in connection.session_streams:
            if len(connection.session_streams) >= MAX_SESSION_STREAMS:
                await _plain(
                    send, 400, f"over {MAX_SESSION_STREAMS} session streams on a connection"
                )
                return
        box = connection.mailbox(session)
        if box.leased:
            await _plain(send, 409, "this stream already has a reader")
            return
        box.leased = True
        connection.touch()
        try:
            await self._stream(box, receive, send)
        finally:
            box.leased = False
            connection.touch()

    async def _stream(self, box: Mailbox, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", EVENT_STREAM_TYPE.encode()), (b"cache-control", b"no-cache")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            while not gone.done():
                waiting = asyncio.ensure_future(box.wait())
                done, _ = await asyncio.wait(
                    {waiting, gone}, timeout=self.keepalive, return_when=asyncio.FIRST_COMPLETED
                )
                if waiting not in done:
                    waiting.cancel()
                    if not done:
                        await send(
                            {
                                "type": "http.response.body",
                                "body": b": keepalive\n\n",
                                "more_body": True,
                            }
                        )
                    continue
                items = box.take()
                if items:
                    frames = b"".join(b"data: " + item + b"\n\n" for item in items)
                    await send({"type": "http.response.body", "body": frames, "more_body": True})
                if box.finished:
                    break
            if not gone.done():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            gone.cancel()

    # --- DELETE -----------------------------------------------------------------------------------

    async def _delete(self, headers: _Headers, principal: Any, send: Send) -> None:
        connection = await self._known(headers, principal, send)
        if connection is None:
            return
        await connection.close()
        await send({"type": "http.response.start", "status": 202, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def _known(
        self, headers: _Headers, principal: Any, send: Send
    ) -> RemoteConnection | None:
        connection_id = headers.get(CONNECTION_ID_HEADER)
        if connection_id is None:
            await _plain(send, 400, "missing Acp-Connection-Id")
            return None
        connection = self._lookup(connection_id, principal)
        if connection is None:
            await _plain(send, 404, "unknown Acp-Connection-Id")
        return connection

    # --- WebSocket --------------------------------------------------------------------------------

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        event = await receive()
        if event["type"] != "websocket.connect":
            return
        headers = _Headers(scope)
        try:
            if scope.get("path") != self.path:
                raise _Refused(404, f"not found: ACP is served at {self.path}")
            principal = await self._admit(scope, headers)
            connection = self._new_connection("websocket", principal)
        except _Refused as exc:
            await _refuse_websocket(scope, send, exc)
            return
        token = WEBSOCKET_COMPRESSION.set(False)
        try:
            accept = {
                "type": "websocket.accept",
                "headers": self._identity_headers(connection, headers.tls),
            }
            await send(accept)
        finally:
            WEBSOCKET_COMPRESSION.reset(token)
        connection.touch()
        pump = asyncio.ensure_future(self._pump(connection, send))
        try:
            while True:
                event = await receive()
                if event["type"] == "websocket.disconnect":
                    break
                text = event.get("text")
                if event["type"] == "websocket.receive" and text is not None:  # binary: ignored
                    data = text.encode()
                    try:
                        message = peek(data)
                    except msgspec.DecodeError:
                        message = Peek("invalid")
                    connection.receive(data, message)
        finally:
            await connection.close()
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump

    async def _pump(self, connection: RemoteConnection, send: Send) -> None:
        box = connection.everything
        while True:
            await box.wait()
            for item in box.take():
                await send({"type": "websocket.send", "text": item.decode()})
            connection.touch()
            if box.finished:
                with contextlib.suppress(Exception):
                    await send({"type": "websocket.close", "code": 1000})
                return


def _session_header_problem(
    message: Peek, header: str | None, connection: RemoteConnection
) -> str | None:
    """Why a POST's Acp-Session-Id does not fit its message (None: it fits).

    A request or notification naming a session must carry it (RFD), except one that opens the
    session on this connection (`session/load`, `session/resume`: the official Python SDK sends
    those without it); a client response must name the session of the request it answers, and
    may leave it out (the official Python SDK does). The reasons quote no value of the request."""
    if message.kind == "response":
        asked = connection.asked_about(message)
        if header is not None and asked is not None and header != asked:
            return "mismatched Acp-Session-Id: it is not the session of the request this answers"
        return None
    if message.session_id is None:
        return None
    if header is None:
        if message.method in SESSION_SETUP:
            return None
        return "missing Acp-Session-Id: the message is about a session"
    if header != message.session_id:
        return "mismatched Acp-Session-Id: it is not the message's params.sessionId"
    return None


class _Headers(dict[str, str]):
    """A request's headers by lower-case name (a repeated header: its last value), and whether
    it came over TLS."""

    def __init__(self, scope: Scope) -> None:
        raw: list[tuple[bytes, bytes]] = scope["headers"]
        super().__init__((k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in raw)
        self.tls = scope.get("scheme") in ("https", "wss")

    def get(self, name: str, default: Any = None) -> Any:
        return super().get(name.lower(), default)


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _refuse_websocket(scope: Scope, send: Send, refused: _Refused) -> None:
    """Refuse a WebSocket handshake with the HTTP status (where the server offers the ASGI
    `websocket.http.response` extension; else a close, which the server answers 403)."""
    if "websocket.http.response" in (scope.get("extensions") or {}):
        start = [(b"content-type", b"text/plain; charset=utf-8")]
        await send(
            {"type": "websocket.http.response.start", "status": refused.status, "headers": start}
        )
        await send({"type": "websocket.http.response.body", "body": refused.text.encode()})
    else:
        await send({"type": "websocket.close", "code": 1008})


async def _plain(
    send: Send, status: int, text: str, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    start = [(b"content-type", b"text/plain; charset=utf-8"), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": text.encode()})


async def _json_error(
    send: Send, status: int, code: int, text: str, data: Any = None, request_id: Any = None
) -> None:
    error: dict[str, Any] = {"code": code, "message": text}
    if data is not None:
        error["data"] = data
    body = msgspec.json.encode({"jsonrpc": "2.0", "id": request_id, "error": error})
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", JSON_TYPE.encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
