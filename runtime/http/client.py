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
  for an answer fail at once with `ConnectionClosedError`. A server refusing the connection
  (401 for a wrong token, say) raises `RefusedConnectionError` (its status, what it said, the
  transport): over WebSocket from `connect_agent`, over HTTP from the first call (`initialize`).
  A later request whose POST is refused fails with a -32603 error whose data holds the HTTP
  status and body; 401, 403, 404 and 410 (and network errors) mean the connection is gone and
  close it.

Reconnecting is a new connection: `reattach_session(conn, session_id, cwd)` resumes the session
there (`session/resume`, or `session/load` if the agent offers only that).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, overload
from urllib.parse import urlsplit

import httpx

from ..jsonrpc.errors import CapabilityError
from ..jsonrpc.framing import DEFAULT_MAX_LINE_BYTES
from ..jsonrpc.serving import DEFAULT_MAX_IN_FLIGHT
from ..protocol.client import ClientSideConnection
from .streamable import HttpTransport
from .wsclient import WebSocketTransport

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager
    from ssl import SSLContext

    from typing_extensions import Unpack

    import acp_schema

    from ..jsonrpc.package import ClientPackage, HandlerT, ProxyT
    from ..protocol.connection import ClientRoutes, ConnectionOptions

    ClientHandlerArg = (
        acp_schema.ClientHandler
        | Callable[[ClientSideConnection[acp_schema.AgentProxy]], acp_schema.ClientHandler]
        | None  # a client that serves nothing (every request the agent sends: -32601)
    )

    class RemoteOptions(ConnectionOptions, total=False):
        """`connect_agent`'s options (see its docstring; the defaults are `CONNECT_DEFAULTS`), then
        the connection's, passed on (its `max_line_bytes` and `max_in_flight` are
        `max_message_bytes` and `max_peer_requests` unless given)."""

        headers: dict[str, str] | None
        cookies: httpx.Cookies | dict[str, str] | None
        http2: bool | None
        verify: SSLContext | str | bool
        connect_timeout: float
        max_message_bytes: int
        read_timeout: float | None
        max_session_streams: int
        max_peer_requests: int
        client: httpx.AsyncClient | None


CONNECT_DEFAULTS: dict[str, Any] = {
    "headers": None,
    "cookies": None,
    "http2": None,
    "verify": True,
    "connect_timeout": 30.0,
    "max_message_bytes": DEFAULT_MAX_LINE_BYTES,
    "read_timeout": 60.0,  # seconds an SSE stream may bring nothing (servers: a keepalive in 15)
    "max_session_streams": 64,  # session streams a connection reads at once
    "max_peer_requests": DEFAULT_MAX_IN_FLIGHT,  # the connection's `max_in_flight`
    "client": None,
}
"""`connect_agent`'s own options and their defaults."""


@overload
def connect_agent(
    url: str, handler: ClientHandlerArg, *, schema: None = None, **options: Unpack[RemoteOptions]
) -> AbstractAsyncContextManager[ClientSideConnection[acp_schema.AgentProxy]]: ...


# Several versions: the package driving the connection is the one negotiated, known at run time
# only: typed as `ClientVersions.spawn` and `.connect` type it, never as one route's package.
@overload
def connect_agent(
    url: str,
    handler: ClientRoutes,  # several protocol versions, each route with its package
    *,
    schema: None = None,
    **options: Unpack[RemoteOptions],
) -> AbstractAsyncContextManager[ClientSideConnection[Any]]: ...


@overload
def connect_agent(
    url: str,
    handler: HandlerT | Callable[[ClientSideConnection[ProxyT]], HandlerT],
    *,
    schema: ClientPackage[ProxyT, HandlerT],
    **options: Unpack[RemoteOptions],
) -> AbstractAsyncContextManager[ClientSideConnection[ProxyT]]: ...
@contextlib.asynccontextmanager
async def connect_agent(
    url: str,
    handler: object,
    *,
    schema: ClientPackage[Any, Any] | None = None,
    **options: Unpack[RemoteOptions],
) -> AsyncIterator[ClientSideConnection[Any]]:
    """Connect to a remote agent at `url` (`http(s)://` Streamable HTTP, `ws(s)://` WebSocket) and
    yield a `ClientSideConnection`; on exit the connection is closed (`DELETE` over HTTP).

    `headers` go on every request (authentication, for one). `cookies` seeds the cookie jar
    (another connection's `conn.cookies`). `http2`: None speaks HTTP/2 where TLS negotiates it
    and HTTP/1.1 on `http://`; True also forces HTTP/2 on `http://` (h2c, prior knowledge);
    False is HTTP/1.1 only. Other options go to `ClientSideConnection` (its `max_line_bytes` and
    `max_in_flight` are `max_message_bytes` and `max_peer_requests` unless given).

    Over HTTP one `httpx.AsyncClient` carries the connection's requests (on HTTP/2 over TLS each
    SSE stream has a client of its own); on h2c every request goes on one HTTP/2 connection of
    the connection's own (`h2conn`). Every client shares the process's TLS context
    (`acp_runtime.http.remote`), and `http://` loads none. `client`: an `httpx.AsyncClient` of
    yours to carry every request instead (share one across many connections to share its pool);
    it is not closed here, and `headers`, `cookies`, `http2` and `verify` are then its own
    settings. Give it `http2=False` (its default): on HTTP/2 an idle stream would hold up others.

    Against a hostile or dead server: an SSE stream that brings nothing for `read_timeout`
    seconds (its `: keepalive` comments count) is broken, and the connection closes when it is
    the connection stream; a POST not answered within `read_timeout` seconds closes the
    connection; at most `max_session_streams` session streams are open at once; an SSE line or
    event, a POST's answer or a WebSocket message longer than `max_message_bytes` breaks its
    stream (or the connection). While the agent has `max_peer_requests` requests in flight with
    us, or the WebSocket's pongs and answers wait unread beyond its write buffer, nothing more
    is read from it (backpressure: memory stays bounded).
    """
    scheme = urlsplit(url).scheme.lower()
    rest: dict[str, Any] = dict(options)  # the connection's options, once ours are taken
    settings = {name: rest.pop(name, value) for name, value in CONNECT_DEFAULTS.items()}
    rest.setdefault("max_line_bytes", settings["max_message_bytes"])
    rest.setdefault("max_in_flight", settings["max_peer_requests"])
    transport: HttpTransport | WebSocketTransport
    if scheme in ("http", "https"):
        transport = HttpTransport(url, settings)
    elif scheme in ("ws", "wss"):
        transport = WebSocketTransport(url, settings)
    else:
        raise ValueError(f"connect_agent: {url!r} is neither http(s):// nor ws(s)://")
    try:
        await transport.open()
        # over the transport of whole messages (no writer)
        conn = _client_connection(handler, transport, None, schema=schema, **rest)
        conn.cookies = transport.cookies  # type: ignore[attr-defined]
        conn.describe_eof = transport.describe_eof
        closing: list[asyncio.Task[None]] = []  # a refusal fails every pending call with it
        transport.on_refused = lambda error: closing.append(
            asyncio.get_running_loop().create_task(conn.close(error))
        )
        try:
            yield conn
        finally:
            await asyncio.gather(*closing, return_exceptions=True)
            await conn.close()
    finally:
        await transport.aclose()


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
