"""What the client's two remote transports share (`streamable.HttpTransport`,
`wsclient.WebSocketTransport`): the refusal error, the end of input, the connection's messages in
(`RemoteTransport`, a `MessageTransport`: the engine pausing them, at its `max_in_flight` of the
agent's requests in flight, stops the transport reading the server), cookies, and how their
`httpx.AsyncClient`s are made.

An `httpx.AsyncClient` builds a new `ssl.SSLContext` each time it is made (loading the CA bundle:
about 28 ms and 0.8 MiB), even for `http://`, unless it is given one. `connect_agent` gives it one
from here instead:

- `http://` never negotiates TLS: every client shares one bare context, which loads nothing and
  is never used for a handshake;
- `https://` with `verify=True` (the CA bundle) or `verify=False` shares one context per process
  and per ALPN list (httpcore sets the context's ALPN protocols before each handshake, so clients
  that offer HTTP/2 and clients that do not each keep their own);
- a context the caller passes as `verify` is used as it is.

Its sockets set TCP_NODELAY: h11 writes a request's head and body in two writes, and with Nagle's
algorithm the body waits for the peer's delayed ACK of the head (on loopback here: 71 POSTs/s
against Hypercorn without it, 162/s with it).
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import socket
import ssl
from typing import Any, Callable, Mapping

import httpx
import msgspec

from ..jsonrpc import Peek, peek
from ..jsonrpc.errors import ConnectionClosedError
from ..jsonrpc.transport import MessageTransport


def envelope(data: bytes) -> Peek:
    """What routing reads of a message (`Peek("invalid")` for bytes that are not JSON: the
    connection answers those)."""
    try:
        return peek(data)
    except msgspec.DecodeError:
        return Peek("invalid")


def text_of(body: bytes | bytearray) -> str:
    """The start of an answer's body, as text, for an error message."""
    return body[:8192].decode("utf-8", "replace")


def request_headers(headers: Mapping[str, str], cookies: httpx.Cookies, url: str) -> dict[str, str]:
    """The headers of a request to `url`: `headers` (by lower-case name) and the `Cookie` header
    of the jar's cookies for it."""
    fields = {name.lower(): value for name, value in headers.items()}
    if cookies.jar:
        request = httpx.Request("GET", url)
        cookies.set_cookie_header(request)
        if "cookie" in request.headers:
            fields["cookie"] = request.headers["cookie"]
    return fields


def keep_cookies(cookies: httpx.Cookies, url: str, status: int, headers: Any) -> None:
    """Keep the cookies an answer from `url` sets."""
    request = httpx.Request("GET", url)
    cookies.extract_cookies(httpx.Response(status, headers=headers, request=request))


_CONTEXTS: dict[tuple[str, bool, bool], ssl.SSLContext] = {}


def tls_context(scheme: str, verify: Any, http2: bool) -> ssl.SSLContext:
    """The TLS context for a URL of `scheme` (an `httpx.AsyncClient`'s `verify`): a shared one
    where one fits, else `verify` itself, or a context of the CA bundle it names."""
    if isinstance(verify, ssl.SSLContext):
        return verify
    if scheme.lower() in ("http", "ws"):
        key = ("plain", False, False)
    elif verify is True or verify is False:
        key = ("tls", verify, http2)
    else:  # a path to a CA bundle (httpx's deprecated form): read as httpx reads it
        return httpx.create_ssl_context(verify=verify)
    if key not in _CONTEXTS:
        plain = key[0] == "plain"
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT) if plain else None
        _CONTEXTS[key] = context or httpx.create_ssl_context(verify=verify)
    return _CONTEXTS[key]


def new_client(scheme: str, *, http2: bool, verify: Any, **options: Any) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` for URLs of `scheme`: the process's shared TLS context, TCP_NODELAY,
    no cap on its pool (on HTTP/1.1 each open SSE stream keeps a TCP connection of it); other
    options (headers, cookies, timeout) go to the client."""
    transport = httpx.AsyncHTTPTransport(
        verify=tls_context(scheme, verify, http2),
        http2=http2,
        limits=httpx.Limits(max_connections=None, max_keepalive_connections=None),
        socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
    )
    return httpx.AsyncClient(transport=transport, **options)


class RefusedConnectionError(ConnectionClosedError):
    """The server refused the connection: `status` is the HTTP status it answered (401 for a wrong
    token, say), `reason` what it said (the start of its answer's body, else the status's reason
    phrase), `transport` one of "http/1.1", "http/2", "h2c" and "websocket".

    Over WebSocket `connect_agent` raises it (the handshake is refused); over Streamable HTTP the
    first call does (`initialize`: its POST is the connection's first request), and every call
    pending then fails with it. It is a `ConnectionClosedError`: the connection is gone."""

    def __init__(self, url: str, status: int, reason: str, transport: str) -> None:
        with contextlib.suppress(ValueError):
            reason = reason or http.HTTPStatus(status).phrase
        super().__init__(f"{url} refused the connection ({transport}): HTTP {status}: {reason}")
        self.url, self.status, self.reason, self.transport = url, status, reason, transport


class PostFailed(Exception):
    """A request could not be sent or its answer not read (the connection broke, a bound)."""


class SocketProtocol(asyncio.Protocol):
    """The asyncio protocol of a socket a sans-I/O library is driven over (the h2c connection, the
    WebSocket): once connected, what the library has to send so far goes out (`_flush`)."""

    _transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._flush()

    def _flush(self) -> None: ...


class RemoteTransport(MessageTransport):
    """The connection's transport of whole messages, fed by a remote transport (each adds `open`,
    `deliver`, `end_output`, `flow` and `aclose`): each message the connection sends goes to
    `deliver`; `flow(False)` when the engine pauses it (the agent has the connection's
    `max_in_flight` requests in flight), `flow(True)` when it reads on."""

    cookies: httpx.Cookies
    connection_id: str | None = None

    def __init__(self, url: str, options: dict[str, Any]) -> None:
        super().__init__(self.deliver, self.end_output, options["max_message_bytes"])
        self.url = url
        self.eof_reason = "the server closed the connection"
        self.ended = False
        self.on_refused: Callable[[RefusedConnectionError], None] = lambda error: None

    async def open(self) -> None:
        """Open the connection (over HTTP its first request, initialize, does)."""

    def deliver(self, message: bytes) -> None: ...

    def end_output(self) -> None: ...

    def flow(self, reading: bool) -> None: ...

    def pause_reading(self) -> None:
        super().pause_reading()
        self.flow(False)

    def resume_reading(self) -> None:
        super().resume_reading()
        self.flow(True)

    async def describe_eof(self) -> str:
        return self.eof_reason

    def end_input(self, reason: str) -> None:
        if not self.ended:
            self.ended = True
            self.eof_reason = reason
            self.feed_eof()
