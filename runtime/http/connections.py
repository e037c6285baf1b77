"""The server's open ACP connections: `RemoteConnection` (one connection: an `AgentSideConnection`
fed from POSTs or WebSocket frames, its output sorted into the `Mailbox` of each outbound stream,
a mailbox read as an SSE stream) and `Registry` (what an `AcpApp` is to its connections: opening
them within `max_connections`, finding one by id for its principal, counting the unread bytes
they hold and shedding the biggest holders over `max_total_buffered_bytes`, closing them all).

An SSE stream (a `GET` with `Accept: text/event-stream`) sends each message of its mailbox as one
`data:` event, in order (what came meanwhile in one body chunk), a keepalive comment in silences,
and ends when the connection ends. A message leaves the mailbox only once sent: a stream that
ends first leaves it for the next reader.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import uuid
from typing import TYPE_CHECKING, Any, TypeVar

from ..jsonrpc import INTERNAL_ERROR, Peek, peek
from ..jsonrpc.transport import MessageTransport
from ..protocol import rules
from ..protocol.agent import AgentSideConnection
from .guard import CONNECTION_ID_HEADER, EVENT_STREAM_TYPE, Headers, Receive, Refused, Send

if TYPE_CHECKING:
    from ..jsonrpc.package import ClientProxyT
else:  # at run time: a plain type variable (type checkers see its default, acp_schema's proxy)
    ClientProxyT = TypeVar("ClientProxyT")

log = logging.getLogger("acp_runtime.http")

MAX_SESSION_STREAMS = 1024
"""Session streams one connection may open (a GET opens one for any session id, as the RFD's
reconnect flow opens it before `session/load`)."""

SESSION_SETUP = rules.SESSION_CREATED_BY | rules.SESSION_OPENED_BY
"""Requests that set a session up on a connection: a client may send them without
`Acp-Session-Id` (it may not read that session's stream yet)."""

SSE_HEADERS = [(b"content-type", EVENT_STREAM_TYPE.encode()), (b"cache-control", b"no-cache")]


class RemoteAgentConnection(AgentSideConnection[ClientProxyT]):
    """The `AgentSideConnection` of a remote client: `principal` is what `AcpApp(authenticate=)`
    returned for the request that opened it (None without the hook), set before the handler is
    built, so a handler factory can read it."""

    def __init__(
        self, handler: Any, reader: Any, writer: Any, *, principal: Any = None, **options: Any
    ) -> None:
        self.principal = principal
        super().__init__(handler, reader, writer, **options)


def event(data: bytes) -> bytes:
    """One message as an SSE event."""
    return b"data: " + data + b"\n\n"


async def disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


class Mailbox:
    """The messages waiting for one outbound stream, in order: counted as unread (in its
    connection's `buffered`) until its reader has sent them (`sent`)."""

    def __init__(self, owner: RemoteConnection) -> None:
        self.owner = owner
        self.items: collections.deque[bytes] = collections.deque()
        self.finished = False
        self.leased = False
        self.wake = asyncio.Event()

    def push(self, data: bytes) -> None:
        self.items.append(data)
        self.owner.count(len(data))
        self.wake.set()

    def sent(self, count: int) -> None:
        """The first `count` messages went to the reader: they leave the mailbox."""
        for _ in range(count):
            self.owner.count(-len(self.items.popleft()))

    def finish(self) -> None:
        self.finished = True
        self.wake.set()

    async def wait(self) -> None:
        """Until a message waits, the mailbox is finished, or the reader is woken (`wake`)."""
        if not self.items and not self.finished:
            self.wake.clear()
            await self.wake.wait()

    async def stream(self, keepalive: float, receive: Receive, send: Send) -> None:
        """Send what comes as SSE events, a comment after `keepalive` seconds of silence, until
        the mailbox is finished (the connection ended) or the client goes away; `Refused` 409 when
        it has a reader already. Its connection's idle clock stops meanwhile."""
        if self.leased:
            raise Refused(409, "this stream already has a reader")
        self.leased = True
        self.owner.touch()
        gone = asyncio.ensure_future(disconnected(receive))
        gone.add_done_callback(lambda _: self.wake.set())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
            while True:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(keepalive):  # (no task per wait, as wait_for has)
                        await self.wait()
                if gone.done():
                    return
                items = list(self.items)
                body = b"".join(map(event, items)) if items else b": keepalive\n\n"
                if items or not self.finished:
                    await send({"type": "http.response.body", "body": body, "more_body": True})
                    self.sent(len(items))
                if self.finished and not self.items:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    return
        finally:
            gone.cancel()
            self.leased = False
            self.owner.touch()


class RemoteConnection:
    """One ACP connection served over HTTP or a WebSocket: an `AgentSideConnection` whose input is
    fed from POSTs or frames and whose output is sorted into mailboxes (a WebSocket's: all in its
    `connection_stream`).

    Until it is `settled` (HTTP: a request named its id; WebSocket: a first message came) its
    idle clock is the registry's `first_message_timeout`, not `idle_timeout`: a connection whose
    id never reached anyone (its initialize stream reset) or a socket that sends nothing holds
    its slot that long only."""

    def __init__(self, registry: Registry, transport: str, principal: Any = None) -> None:
        self.registry = registry
        self.transport = transport
        self.principal = principal
        self.id = uuid.uuid4().hex
        self.buffered = 0
        self.settled = False
        self.connection_stream = Mailbox(self)
        self.session_streams: dict[str, Mailbox] = {}
        self.answer_to: dict[Any, str | None] = {}  # client request id -> session of its answer
        self.asked: dict[Any, str | None] = {}  # agent request id -> the session it is about
        self.opening: asyncio.Future[bytes] | None = None  # the answer to initialize, awaited
        self.idle: asyncio.TimerHandle | None = None
        self.active = 0.0  # loop time of the last activity (`touch`)
        self.loop = asyncio.get_running_loop()
        limit = registry.options["max_line_bytes"]
        self.messages = MessageTransport(self.route, self.ended, limit)
        self.conn = RemoteAgentConnection(
            registry.handler, self.messages, None, principal=principal, **registry.options
        )

    def count(self, delta: int) -> None:
        """Bytes added to (or taken from) this connection's mailboxes."""
        self.buffered += delta
        if self.id in self.registry.connections:  # (the server's to hold until the connection ends)
            self.registry.buffered += delta

    # --- in ---------------------------------------------------------------------------------------

    def receive(self, body: bytes, message: Peek, session_header: str | None = None) -> None:
        """Hand one client message to the agent connection, remembering where its answer goes;
        `Refused` 400 when its `Acp-Session-Id` does not fit it (`check_session_header`).

        The answer to a request about a session goes to that session's stream, except for
        session/new and session/fork (the client learns the id from the answer itself) and for
        session/load and session/resume sent without `Acp-Session-Id`: those are answered on the
        connection stream, as the RFD draws them. Sent with the header, which says the client
        reads that session's stream, their answer follows the replayed history on it, so the
        client has seen the whole history when the call returns (across two streams nothing
        orders the answer after the history)."""
        self.check_session_header(message, session_header)
        key = message.id_key
        if message.kind == "request" and key is not None:
            if message.method in rules.SESSION_CREATED_BY:
                self.answer_to[key] = None
            elif message.method in rules.SESSION_OPENED_BY:
                self.answer_to[key] = session_header
            else:
                self.answer_to[key] = message.session_id
        elif message.kind == "response" and key is not None:
            self.asked.pop(key, None)
        self.messages.feed(body)
        self.touch()

    def check_session_header(self, message: Peek, header: str | None) -> None:
        """`Refused` 400 when a POST's Acp-Session-Id does not fit its message.

        A request or notification naming a session must carry it (RFD), except one that opens
        the session on this connection (`session/load`, `session/resume`: the official Python SDK
        sends those without it); a client response must name the session of the request it
        answers, and may leave it out (the official Python SDK does). The reasons quote no value
        of the request."""
        mismatched = "mismatched Acp-Session-Id: "
        if message.kind == "response":
            asked = self.asked.get(message.id_key)
            if header is not None and asked is not None and header != asked:
                raise Refused(400, mismatched + "not the session of the request it answers")
        elif message.session_id is None:
            return
        elif header is None and message.method not in SESSION_SETUP:
            raise Refused(400, "missing Acp-Session-Id: the message is about a session")
        elif header is not None and header != message.session_id:
            raise Refused(400, mismatched + "it is not the message's params.sessionId")

    def receive_frame(self, data: bytes) -> None:
        """Hand one WebSocket message to the agent connection: a socket has one stream, so
        nothing is read of the message to route its answer (the connection decodes it)."""
        self.settled = True
        self.messages.feed(data)
        self.touch()

    async def initialize(self, body: bytes, message: Peek) -> bytes | None:
        """Feed the initialize request; its answer (None if the connection closed first)."""
        opening: asyncio.Future[bytes] = self.loop.create_future()  # (maybe set in `receive`)
        self.opening = opening
        self.receive(body, message)
        try:
            return await opening
        except ConnectionResetError:
            return None

    # --- out --------------------------------------------------------------------------------------

    def route(self, line: bytes) -> None:
        box = self.connection_stream if self.transport == "websocket" else self.destination(line)
        if box is None:
            return
        box.push(line)
        if self.buffered > self.registry.max_buffered_bytes:
            limit = self.registry.max_buffered_bytes
            log.warning("connection %s: over %d bytes wait unread: closing it", self.id, limit)
            self.registry.spawn(self.close())
        elif self.registry.buffered > self.registry.max_total_buffered_bytes:
            self.registry.shed()

    def destination(self, line: bytes) -> Mailbox | None:
        """The mailbox of an agent message over HTTP (None: it answers `initialize`, and was
        handed to the POST waiting for it)."""
        message = peek(line)
        key = message.id_key
        if message.kind == "response":
            waiter = self.opening
            # the first answer is initialize's, the connection's only request until its answer
            # names it (an error answer with a null id too: its params were not decoded)
            if waiter is not None:
                self.opening = None
                if not waiter.done():
                    waiter.set_result(line)
                    return None
            session = self.answer_to.pop(key, None) if key is not None else None
        else:
            session = message.session_id
            if message.kind == "request" and key is not None:
                self.asked[key] = session
        return self.mailbox(session)

    def mailbox(self, session: str | None) -> Mailbox:
        """The mailbox for a session's messages (the connection's when None), made on first use."""
        if session is None:
            return self.connection_stream
        box = self.session_streams.get(session)
        if box is None:
            box = self.session_streams[session] = Mailbox(self)
        return box

    async def stream(
        self, session: str | None, keepalive: float, receive: Receive, send: Send
    ) -> None:
        """Read the mailbox of `session` (the connection's when None) as an SSE stream; `Refused`
        409 when it has a reader, 400 past `MAX_SESSION_STREAMS`."""
        if session is not None and session not in self.session_streams:
            if len(self.session_streams) >= MAX_SESSION_STREAMS:
                raise Refused(400, f"over {MAX_SESSION_STREAMS} session streams on a connection")
        await self.mailbox(session).stream(keepalive, receive, send)

    def ended(self) -> None:
        """The agent connection closed its output: end every stream, forget the connection."""
        for box in (self.connection_stream, *self.session_streams.values()):
            box.finish()
        if self.opening is not None and not self.opening.done():
            self.opening.set_exception(ConnectionResetError("closed before answering initialize"))
        if self.idle is not None:
            self.idle.cancel()
        # forgotten: what is left unread is no longer the server's to hold
        if self.registry.connections.pop(self.id, None) is not None:
            self.registry.buffered -= self.buffered

    # --- life -------------------------------------------------------------------------------------

    def timeout(self) -> float | None:
        """The idle clock in force (None: none): before the connection is settled, the shorter of
        the two."""
        idle, first = self.registry.idle_timeout, self.registry.first_message_timeout
        if self.settled or first is None:
            return idle
        return first if idle is None else min(idle, first)

    def touch(self) -> None:
        """Activity: restart the idle clock (it does not run while an SSE stream is read).

        The clock is one timer per connection, not one per message: a touch notes the time, and
        the timer, when it goes off early (there was activity since it was set), is set again
        for what is left."""
        self.active = self.loop.time()
        if self.idle is None:  # (else the timer, going off, reads the time noted)
            self.idle_check()

    def idle_check(self) -> None:
        """Close the connection if its idle clock ran out, else set the timer for what is left."""
        self.idle = None
        boxes = (self.connection_stream, *self.session_streams.values())
        if any(box.leased for box in boxes):  # no clock while an SSE stream is read: look later
            self.active = self.loop.time()
        timeout = self.timeout()
        if self.conn.closed or timeout is None:
            return
        if self.active + timeout > self.loop.time():
            self.idle = self.loop.call_at(self.active + timeout, self.idle_check)
            return
        log.info("connection %s: no message and no open stream for %ss: closing", self.id, timeout)
        self.registry.spawn(self.close())

    async def close(self) -> None:
        await self.conn.close()
        self.ended()


class Registry:
    """The connections of one `AcpApp` (which sets the attributes below), what they are built
    from (`handler`, the `AgentSideConnection` `options`) and the bounds they live within:
    `max_connections` open at once, `max_buffered_bytes` unread in one connection's mailboxes,
    `max_total_buffered_bytes` in the whole server's (`buffered` counts those and the request
    bodies being read), `idle_timeout` and `first_message_timeout`."""

    handler: Any
    options: dict[str, Any]
    max_connections: int = 256
    max_buffered_bytes: int = 16 * 1024 * 1024
    max_total_buffered_bytes: int = 256 * 1024 * 1024
    idle_timeout: float | None = 300.0
    first_message_timeout: float | None = 10.0

    def __init__(self) -> None:
        self.connections: dict[str, RemoteConnection] = {}
        self.buffered = 0  # unread mailbox bytes of every connection, and bodies being read
        self.tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Any) -> None:
        """Run `work` as a task kept alive until it ends."""
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def shed(self) -> None:
        """Over `max_total_buffered_bytes`: close the connections holding the most unread bytes
        until the rest fit."""
        excess = self.buffered - self.max_total_buffered_bytes
        for connection in sorted(self.connections.values(), key=lambda c: -c.buffered):
            if excess <= 0 or connection.buffered == 0:
                break
            limit = self.max_total_buffered_bytes
            log.warning("over %d bytes unread: closing connection %s", limit, connection.id)
            excess -= connection.buffered
            connection.count(-connection.buffered)  # counted out now; closing frees it
            self.spawn(connection.close())

    async def close(self) -> None:
        """Close every connection (their streams end)."""
        closing = [connection.close() for connection in list(self.connections.values())]
        await asyncio.gather(*closing, return_exceptions=True)

    def open(self, transport: str, principal: Any) -> RemoteConnection:
        if len(self.connections) >= self.max_connections:
            text = f"Server busy: it serves its limit of {self.max_connections} connections"
            raise Refused(503, text, INTERNAL_ERROR, {"limit": self.max_connections})
        connection = RemoteConnection(self, transport, principal)
        self.connections[connection.id] = connection
        return connection

    def lookup(self, headers: Headers, principal: Any, missing: str = "") -> RemoteConnection:
        """The connection a request names, if it comes from the principal that opened it (naming it
        settles it: its client has the id); else `Refused` 400 (no id) / 404 (unknown to it)."""
        connection_id = headers.get(CONNECTION_ID_HEADER)
        if connection_id is None:
            raise Refused(400, f"missing Acp-Connection-Id{missing}")
        connection = self.connections.get(connection_id)
        if connection is None or connection.principal != principal:
            raise Refused(404, "unknown Acp-Connection-Id")
        connection.settled = True
        return connection
