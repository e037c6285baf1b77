"""The server's open ACP connections: `RemoteConnection` (one connection: an `AgentSideConnection`
fed from POSTs or WebSocket frames, its output sorted into the `Mailbox` of each outbound stream)
and `Registry` (the connections an `AcpApp` holds: opening them within `max_connections`, finding
one by id for its principal, counting the unread bytes they hold and shedding the biggest holders
over `max_total_buffered_bytes`, closing them all).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import uuid
from typing import Any, Awaitable, Callable

from ..jsonrpc import INTERNAL_ERROR
from ..jsonrpc.framing import DEFAULT_MAX_LINE_BYTES
from ..jsonrpc.transport import MessageTransport
from ..protocol import rules
from ..protocol.agent import AgentSideConnection
from .messages import Peek, peek
from .replies import Refused, Send

log = logging.getLogger("acp_runtime.http")


def event(data: bytes) -> bytes:
    """One message as an SSE event."""
    return b"data: " + data + b"\n\n"


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
    """The messages waiting for one outbound stream, in order.

    While an SSE stream reads it, `sender` is the stream's ASGI `send`: a message the agent sends
    and waits for then goes to the reader at once, in the agent's task (`RemoteConnection`'s
    `_write`), when nothing waits here before it and no other send to the reader is under way
    (`busy`); `last` is the loop time the reader was last sent something."""

    def __init__(self, owner: RemoteConnection) -> None:
        self._owner = owner
        self.items: collections.deque[bytes] = collections.deque()
        self.finished = False
        self.leased = False
        self._wake = asyncio.Event()
        self.sender: Send | None = None
        self.busy = False
        self.last = 0.0
        self._free: asyncio.Future[None] | None = None

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

    def poke(self) -> None:
        """Wake the reader without a message (its client left, or a keepalive is due)."""
        self._wake.set()

    async def wait(self) -> None:
        """Until a message waits or the mailbox is finished."""
        while not self.items and not self.finished:
            self._wake.clear()
            await self._wake.wait()

    async def wait_or_poke(self) -> None:
        """Until a message waits, the mailbox is finished, or the reader is poked."""
        if not self.items and not self.finished:
            self._wake.clear()
            await self._wake.wait()

    async def until_free(self) -> None:
        """Until no send to the reader is under way."""
        while self.busy:
            self._free = asyncio.get_running_loop().create_future()
            try:
                await self._free
            finally:
                self._free = None

    def freed(self) -> None:
        """A send to the reader is over: wake whoever waits for it (`until_free`)."""
        self.busy = False
        free = self._free
        if free is not None and not free.done():
            free.set_result(None)


class RemoteConnection:
    """One ACP connection served over HTTP or a WebSocket: an `AgentSideConnection` whose input is
    fed from POSTs or frames and whose output is sorted into mailboxes."""

    def __init__(self, registry: Registry, transport: str, principal: Any = None) -> None:
        self.registry = registry
        self.transport = transport
        self.principal = principal
        self.id = uuid.uuid4().hex
        self.buffered = 0
        self._counted = True  # its bytes are in registry.buffered (until it ends)
        self.connection_stream = Mailbox(self)
        self.session_streams: dict[str, Mailbox] = {}
        self.everything = Mailbox(self)  # the WebSocket's single stream
        # client request id -> session stream of its answer
        self._answer_to: dict[Any, str | None] = {}
        self._asked: dict[Any, str | None] = {}  # agent request id -> the session it is about
        self._waiters: dict[Any, asyncio.Future[bytes]] = {}
        self._idle: asyncio.TimerHandle | None = None
        self._active = 0.0  # loop time of the last activity (`touch`)
        # once: `get_running_loop()` costs a getpid() system call (3.11), and `touch` runs twice
        # per round trip
        self._loop = asyncio.get_running_loop()
        # a WebSocket's `send` (`attach_socket`), and whether its pump holds messages it took from
        # `everything` but has not handed to the socket yet
        self._socket_send: Send | None = None
        self._socket_text: Callable[[bytes], Awaitable[None]] | None = None
        self.flushing = False
        limit = registry.options.get("max_line_bytes", DEFAULT_MAX_LINE_BYTES)
        write = self._write if transport == "websocket" else self._write_event
        self.messages = MessageTransport(self._route, self._ended, limit, write)
        self.conn = RemoteAgentConnection(
            registry.handler, self.messages, None, principal=principal, **registry.options
        )

    def count(self, delta: int) -> None:
        """Bytes added to (or taken from) this connection's mailboxes."""
        self.buffered += delta
        if self._counted:
            self.registry.buffered += delta

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

    def receive_frame(self, data: bytes) -> None:
        """Hand one WebSocket message to the agent connection: a socket has one stream, so
        nothing is read of the message to route its answer (the connection decodes it)."""
        self.messages.feed(data)
        self.touch()

    def attach_socket(
        self, send: Send, write_text: Callable[[bytes], Awaitable[None]] | None = None
    ) -> None:
        """The accepted WebSocket's ASGI `send`: from now on a message the agent sends and waits
        for goes to it at once, in the agent's task, when nothing waits in `everything` before
        it (else it waits its turn there, for the socket's pump). `write_text(data)`, if given,
        sends a text message given as UTF-8 bytes, in place of `send`."""
        self._socket_send = send
        self._socket_text = write_text

    async def _write(self, data: bytes) -> None:
        send = self._socket_send
        if send is None or self.flushing or self.everything.items:
            self._route(data)  # after what waits, in order
            return
        size = len(data)
        self.count(size)  # unread until the socket has it: a client that reads nothing is cut off
        try:
            self._check_limits()
            if self._socket_text is not None:
                await self._socket_text(data)
            else:
                await send({"type": "websocket.send", "text": data.decode()})
        except Exception as exc:  # the server's socket is closing: as a write to a closed pipe
            raise ConnectionResetError(f"the WebSocket is closed: {exc!r}") from exc
        finally:
            self.count(-size)
        self.touch()

    async def _write_event(self, data: bytes) -> None:
        """HTTP: a message the agent sends and waits for goes to its stream's reader at once, in
        the agent's task, as an SSE event, when the reader is there and idle and nothing waits
        in the mailbox before it; else it waits its turn there, for the stream's loop (`sse.py`).
        The stream's task need not wake up for it."""
        box = self._destination(data)
        if box is None:
            return
        send = box.sender
        if send is None or box.busy or box.items:
            box.push(data)
            self._check_limits()
            return
        size = len(data)
        self.count(size)  # unread until the stream has it
        box.busy = True
        try:
            self._check_limits()
            await send({"type": "http.response.body", "body": event(data), "more_body": True})
            box.last = self._loop.time()
        except Exception:  # the stream is ending: the message waits for the next reader
            log.debug("connection %s: an SSE stream refused a message", self.id, exc_info=True)
            box.sender = None
            box.items.appendleft(data)
            self.count(size)
            box.poke()
        finally:
            self.count(-size)
            box.freed()

    def _route(self, line: bytes) -> None:
        if self.transport == "websocket":  # one stream: nothing to read of the message
            self.everything.push(line)
            self._check_limits()
            return
        box = self._destination(line)
        if box is not None:
            box.push(line)
            self._check_limits()

    def _destination(self, line: bytes) -> Mailbox | None:
        """The mailbox of an agent message over HTTP (None: it answers `initialize`, and was
        handed to the POST waiting for it)."""
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
                return None
            session = self._answer_to.pop(key, None) if key is not None else None
        else:
            session = message.session_id
            if message.kind == "request" and key is not None:
                self._asked[key] = session
        return self.mailbox(session)

    def _check_limits(self) -> None:
        if self.buffered > self.registry.max_buffered_bytes:
            self._over_limit()
        elif self.registry.buffered > self.registry.max_total_buffered_bytes:
            self.registry.shed()

    def _over_limit(self) -> None:
        log.warning(
            "connection %s: over %d bytes wait unread: closing it",
            self.id,
            self.registry.max_buffered_bytes,
        )
        self.registry.spawn(self.close())

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
            self._idle = None
        if self._counted:  # what is left unread is no longer the server's to hold
            self._counted = False
            self.registry.buffered -= self.buffered
        self.registry.connections.pop(self.id, None)

    # --- life -------------------------------------------------------------------------------------

    def touch(self) -> None:
        """Activity: restart the idle clock, unless an SSE stream is open (a reader is there).
        A WebSocket's clock runs from the last message either way.

        The clock is one timer per connection, not one per message: a touch notes the time, and
        the timer, when it goes off early (there was activity since it was set), is set again
        for what is left."""
        if self.conn.closed or self.registry.idle_timeout is None:
            return
        loop = self._loop
        self._active = loop.time()
        if self._idle is None:
            self._idle = loop.call_at(self._active + self.registry.idle_timeout, self._idle_check)

    def _reading(self) -> bool:
        """Whether an SSE stream of this HTTP connection has a reader."""
        return self.transport == "http" and any(
            box.leased for box in (self.connection_stream, *self.session_streams.values())
        )

    def _idle_check(self) -> None:
        self._idle = None
        timeout = self.registry.idle_timeout
        if self.conn.closed or timeout is None:
            return
        loop = self._loop
        if self._reading():  # no clock while a stream is read: look again a timeout later
            self._active = loop.time()
        due = self._active + timeout
        if due > loop.time():
            self._idle = loop.call_at(due, self._idle_check)
            return
        self.registry.spawn(self._idle_out())

    async def _idle_out(self) -> None:
        log.info(
            "connection %s: no message and no open stream for %ss: closing it",
            self.id,
            self.registry.idle_timeout,
        )
        await self.close()

    async def close(self) -> None:
        await self.conn.close()
        self._ended()


class Registry:
    """The connections of one `AcpApp`, what they are built from (`handler`, the
    `AgentSideConnection` `options`) and the bounds they live within: `max_connections` open at
    once, `max_buffered_bytes` unread in one connection's mailboxes, `max_total_buffered_bytes`
    in the whole server's (`buffered` counts those and the request bodies being read), and
    `idle_timeout`."""

    def __init__(
        self,
        handler: Any,
        options: dict[str, Any],
        *,
        max_connections: int,
        max_buffered_bytes: int,
        max_total_buffered_bytes: int,
        idle_timeout: float | None,
    ) -> None:
        self.handler = handler
        self.options = options
        self.max_connections = max_connections
        self.max_buffered_bytes = max_buffered_bytes
        self.max_total_buffered_bytes = max_total_buffered_bytes
        self.idle_timeout = idle_timeout
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

    def open(self, transport: str, principal: Any) -> RemoteConnection:
        if len(self.connections) >= self.max_connections:
            raise Refused(
                503,
                f"Server busy: it serves its limit of {self.max_connections} connections",
                INTERNAL_ERROR,
                {"limit": self.max_connections},
            )
        connection = RemoteConnection(self, transport, principal)
        self.connections[connection.id] = connection
        return connection

    def lookup(self, connection_id: str, principal: Any) -> RemoteConnection | None:
        """The connection of an id, if the request comes from the principal that opened it."""
        connection = self.connections.get(connection_id)
        if connection is None or connection.principal != principal:
            return None
        return connection
