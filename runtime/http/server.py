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

This module is the HTTP front (admission, the methods, the body read within its limits); an
`AcpApp` is the `Registry` of its connections (`connections.py`, with their mailboxes), an SSE
stream and the WebSocket endpoint are there too, the refusals in `guard.py`.

Who may call is settled first (`guard.py`, docs/runtime.md "Security"): `403` a `Host` or a
browser `Origin` the app does not take, `401` a request its `authenticate` hook refuses; a
connection id used by another principal than the one that opened it is `404`, as an unknown one.

Bad requests are answered without touching any connection: `405` other methods, `404` other
paths and unknown connection ids, `400` missing `Acp-Connection-Id` or `Acp-Session-Id`, or an
`Acp-Session-Id` that contradicts the message, `415` a POST that is not `application/json`, `406`
a GET that does not accept `text/event-stream`, `400` with a JSON-RPC -32700 / -32600 body for a
body that is not JSON / not a JSON object or is a JSON-RPC batch (ACP has none), `413` (-32600,
naming the limit) for a body over `max_message_bytes`, `400` -32600 an `initialize` whose id is
no integer or string (or a message nested deeper than the decoder goes: -32700 when its id cannot
be read), `408` a body slower than `body_timeout`, `400` and the connection closed for a request
with both Content-Length and Transfer-Encoding (RFC 9112: a request smuggled behind it), `503`
over `max_connections` or `max_total_buffered_bytes`. No answer quotes the request. Well-formed
JSON objects that are not valid ACP messages are answered by the connection on its streams,
exactly as over stdio.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, Callable, Collection, overload

import msgspec

from ..jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, peek
from . import guard
from .connections import Registry, RemoteAgentConnection, RemoteConnection
from .guard import TEXT_TYPE, Headers, Receive, Refused, Scope, Send, admit, respond
from .wsguard import guarded

if TYPE_CHECKING:
    from typing_extensions import Unpack

    import acp_schema

    from ..jsonrpc.package import AgentPackage, HandlerT, ProxyT
    from ..protocol.connection import AgentRoutes, ConnectionOptions

    RemoteHandlerArg = (
        acp_schema.AgentHandler
        | Callable[[RemoteAgentConnection[acp_schema.ClientProxy]], acp_schema.AgentHandler]
        | AgentRoutes  # several protocol versions, each route with its package
    )

    class AppOptions(ConnectionOptions, total=False):
        """The keyword options of an `AcpApp` (see its docstring), beside the connections'."""

        path: str
        affinity_cookie: str | None
        allowed_hosts: Collection[str] | None
        allowed_origins: Collection[str] | None
        authenticate: guard.Authenticate | None
        max_message_bytes: int
        max_buffered_bytes: int
        max_total_buffered_bytes: int
        max_connections: int
        body_timeout: float
        keepalive: float
        idle_timeout: float | None
        first_message_timeout: float | None
        websocket_ping_interval: float | None


class AcpApp(Registry):
    """An ASGI application serving an agent handler at `path` over Streamable HTTP and WebSocket.

    `handler` is what `AgentSideConnection` takes; give a class or factory to get one handler per
    connection (state shared by connections, such as stored sessions for `session/load`, is the
    application's); a factory is given the `RemoteAgentConnection`. `affinity_cookie`
    ("name=value") is set on every new connection, for a load balancer to route the client back
    here. `idle_timeout` closes an HTTP connection that has had no request and no open stream,
    and a WebSocket that has carried no message either way, for that many seconds (None: never);
    `first_message_timeout` does so sooner for a connection no request has named yet (HTTP: its
    id came back in no request; WebSocket: no message came). Other keyword options go to every
    `AgentSideConnection` (`schema=`, `observer=`, ...).

    Mounted in an ASGI framework (`app.mount("/agent", AcpApp(...))` in Starlette or FastAPI),
    `path` is below the mount's `root_path`: the agent is at `/agent/acp`.

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

    Its settings are the class attributes below and the `Registry`'s (`AppOptions`), each a
    keyword option.
    """

    path: str = "/acp"
    affinity_cookie: str | None = None
    allowed_hosts: Collection[str] | None = None
    allowed_origins: Collection[str] | None = None
    authenticate: guard.Authenticate | None = None
    max_message_bytes: int = 4 * 1024 * 1024
    body_timeout: float = 30.0
    keepalive: float = 15.0
    websocket_ping_interval: float | None = 20.0

    @overload
    def __init__(
        self, handler: RemoteHandlerArg, *, schema: None = None, **options: Unpack[AppOptions]
    ) -> None: ...
    @overload
    def __init__(
        self,
        handler: HandlerT | Callable[[RemoteAgentConnection[ProxyT]], HandlerT],
        *,
        schema: AgentPackage[ProxyT, HandlerT],
        **options: Unpack[AppOptions],
    ) -> None: ...
    def __init__(self, handler: object, **options: Any) -> None:
        super().__init__()
        self.handler = handler
        settings = Registry.__annotations__.keys() | AcpApp.__annotations__.keys()
        for name in options.keys() & settings:  # the app's own options
            setattr(self, name, options.pop(name))
        self.options = {"max_line_bytes": self.max_message_bytes, **options}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        while kind == "lifespan":  # startup, then shutdown (which closes every connection)
            event = await receive()
            if event["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return
        if kind == "websocket":
            await serve_websocket(self, scope, receive, send)
        elif kind == "http":
            await self._http(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope["method"]
        headers = Headers(scope)
        body = b""
        try:
            if "content-length" in headers and "transfer-encoding" in headers:
                # a request smuggled behind it would be read by another framing (RFC 9112, 6.1)
                text = "bad request: Content-Length with Transfer-Encoding"
                raise Refused(400, text, headers=[(b"connection", b"close")])
            try:
                principal = await guard.admit(self, scope, headers)
            except Refused:
                # Read the whole body before answering, refused or not: Hypercorn's HTTP/2 drops
                # the connection when data comes for a stream it already answered.
                with contextlib.suppress(Refused):  # (too slow: the refusal is still the answer)
                    await self._read_body(receive, keep=False)
                raise
            if method != "GET":
                body = await self._read_body(receive, keep=method == "POST")
            if method == "POST":
                await self._post(headers, body, principal, send)
            elif method == "GET":
                if guard.EVENT_STREAM_TYPE not in (headers.get("accept") or "").lower():
                    raise Refused(406, f"Accept must include {guard.EVENT_STREAM_TYPE}")
                connection = self.lookup(headers, principal)
                session = headers.get(guard.SESSION_ID_HEADER)
                await connection.stream(session, self.keepalive, receive, send)
            elif method == "DELETE":
                await self.lookup(headers, principal).close()
                await respond(send, 202, [])
            else:
                raise Refused(405, "method not allowed", headers=[(b"allow", b"GET, POST, DELETE")])
        except Refused as exc:
            await respond(send, exc.status, exc.headers, exc.body)
        finally:
            self.buffered -= len(body)

    async def _read_body(self, receive: Receive, keep: bool) -> bytes:
        """The request body as it arrives, counted in `buffered` (a body not `keep`-t is read and
        dropped); `Refused` 413 once it passes `max_message_bytes`, 503 once the server's buffers
        pass `max_total_buffered_bytes` (read to its end, dropped), 408 when it takes over
        `body_timeout` seconds."""
        data = bytearray()
        refused: Refused | None = None
        try:
            async with asyncio.timeout(self.body_timeout):
                while (event := await receive())["type"] != "http.disconnect":
                    if keep and refused is None:
                        chunk = event.get("body", b"")
                        data += chunk
                        self.buffered += len(chunk)
                        refused = self._refuse_body(len(data))
                        if refused is not None:
                            self.buffered -= len(data)
                            data.clear()
                    if not event.get("more_body", False):
                        break
        except TimeoutError:
            self.buffered -= len(data)
            raise Refused(408, f"the request body took over {self.body_timeout} seconds") from None
        if refused is not None:
            raise refused
        return bytes(data)

    def _refuse_body(self, size: int) -> Refused | None:
        """Why a body of `size` bytes so far is refused (None: it is not)."""
        if size > self.max_message_bytes:
            text = f"Message exceeds the limit of {self.max_message_bytes} bytes"
            return Refused(413, text, INVALID_REQUEST, {"limit": self.max_message_bytes})
        if self.buffered > self.max_total_buffered_bytes:
            text = "Server busy: its buffers are full, try again later"
            return Refused(503, text, INTERNAL_ERROR, {"limit": self.max_total_buffered_bytes})
        return None

    def identity_headers(
        self, connection: RemoteConnection, tls: bool
    ) -> list[tuple[bytes, bytes]]:
        headers = [(guard.CONNECTION_ID_HEADER.lower().encode(), connection.id.encode())]
        if self.affinity_cookie:
            secure = "; Secure" if tls else ""
            cookie = f"{self.affinity_cookie}; Path=/; HttpOnly; SameSite=Lax{secure}"
            headers.append((b"set-cookie", cookie.encode()))
        return headers

    # --- POST -------------------------------------------------------------------------------------

    async def _post(self, headers: Headers, body: bytes, principal: Any, send: Send) -> None:
        content_type = (headers.get("content-type") or "").split(";", 1)[0].strip().lower()
        if content_type != guard.JSON_TYPE:
            raise Refused(415, f"Content-Type must be {guard.JSON_TYPE}")
        try:
            message = peek(body)
        except msgspec.DecodeError as exc:
            raise Refused(400, "Parse error", PARSE_ERROR, {"message": str(exc)}) from None
        invalid = "Invalid request: "
        if message.kind == "too_deep":
            text = "the message is nested deeper than the JSON decoder can take"
            if message.id_key is None:
                raise Refused(400, "Parse error", PARSE_ERROR, {"message": text})
            raise Refused(400, invalid + text, INVALID_REQUEST, request_id=message.id)
        if message.kind == "batch":
            text = "a message is a JSON object, ACP has no JSON-RPC batches"
            raise Refused(400, invalid + text, INVALID_REQUEST)
        if message.kind == "invalid" and not body.lstrip().startswith(b"{"):
            raise Refused(400, invalid + "a message is a JSON object", INVALID_REQUEST)
        connection_id = headers.get(guard.CONNECTION_ID_HEADER)
        if message.kind == "invalid" and connection_id is None:
            why = f" ({message.problem})" if message.problem else ""
            raise Refused(400, f"{invalid}not a JSON-RPC message{why}", INVALID_REQUEST)
        if message.kind == "request" and message.method == "initialize":
            if connection_id is not None:
                text = "initialize opens a new connection: send it without Acp-Connection-Id"
                raise Refused(400, text)
            if message.id_key is None:
                text = "the id of initialize must be an integer or a string"
                raise Refused(400, invalid + text, INVALID_REQUEST)
            connection = self.open("http", principal)
            answer = await connection.initialize(body, message)
            if answer is None:
                text = "Internal error: the connection closed before answering initialize"
                raise Refused(500, text, INTERNAL_ERROR)
            fields = [(b"content-type", guard.JSON_TYPE.encode())]
            if peek(answer).failed:  # no connection came of it: none is kept for nobody
                await connection.close()
            else:
                fields += self.identity_headers(connection, headers.tls)
            await respond(send, 200, fields, answer)
            return
        connection = self.lookup(headers, principal, " (only initialize may come without one)")
        connection.receive(body, message, headers.get(guard.SESSION_ID_HEADER))
        await respond(send, 202, [])


async def serve_websocket(app: AcpApp, scope: Scope, receive: Receive, send: Send) -> None:
    """One WebSocket of `app` (`GET` with `Upgrade: websocket`, an ASGI `websocket` scope): admitted
    as a request is, a connection of its own, text frames both ways (one message each, in order),
    binary frames ignored, as the RFD says; it ends with the socket, or when the connection closes
    (idle, over its limits, a message too big). A refused handshake is answered with its HTTP
    status where the server can (`refuse_websocket`). Under Hypercorn the socket is accepted
    guarded (`wsguard.py`): no permessage-deflate, and nothing more is read of a socket closed for
    size (1009)."""
    event = await receive()
    if event["type"] != "websocket.connect":
        return
    headers = Headers(scope)
    try:
        principal = await admit(app, scope, headers)
        connection = app.open("websocket", principal)
    except Refused as exc:
        await refuse_websocket(scope, send, exc)
        return
    with guarded(lambda: app.spawn(connection.close())):
        identity = app.identity_headers(connection, headers.tls)
        await send({"type": "websocket.accept", "headers": identity})
    connection.touch()
    sides = (_pump(connection, send), _read(connection, receive))
    tasks = [asyncio.ensure_future(side) for side in sides]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        await connection.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _read(connection: RemoteConnection, receive: Receive) -> None:
    """Each text frame's message to the agent connection (binary frames are ignored), until the
    socket closes."""
    while True:
        event = await receive()
        if event["type"] == "websocket.disconnect":
            return
        text = event.get("text")
        if event["type"] == "websocket.receive" and text is not None:
            connection.receive_frame(text.encode())


async def _pump(connection: RemoteConnection, send: Send) -> None:
    """The agent's messages to the socket, in order, each counted unread until sent; a close
    once the connection ended."""
    box = connection.connection_stream
    while True:
        await box.wait()
        while box.items:
            await send({"type": "websocket.send", "text": box.items[0].decode()})
            box.sent(1)
        connection.touch()
        if box.finished:
            with contextlib.suppress(Exception):
                await send({"type": "websocket.close", "code": 1000})
            return


async def refuse_websocket(scope: Scope, send: Send, refused: Refused) -> None:
    """Refuse a WebSocket handshake with the HTTP status (where the server offers the ASGI
    `websocket.http.response` extension; else a close, which the server answers 403)."""
    if "websocket.http.response" in (scope.get("extensions") or {}):
        body = refused.text.encode()
        # a length, so the refusal is not chunked: websockets 13 cannot read a chunked one
        start = [(b"content-type", TEXT_TYPE), (b"content-length", str(len(body)).encode())]
        status = refused.status
        await send({"type": "websocket.http.response.start", "status": status, "headers": start})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008})
