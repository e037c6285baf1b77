"""What the client's two remote transports share (`streamable.HttpTransport`,
`wsclient.WebSocketTransport`): the refusal error, the end of input, and the bound on the
requests the agent has in flight with us.
"""

from __future__ import annotations

import contextlib
import http
from typing import Any, Callable

import httpx
import msgspec

from ..jsonrpc import INTERNAL_ERROR, Peek, peek
from ..jsonrpc.errors import ConnectionClosedError
from ..jsonrpc.transport import MessageTransport

DEFAULT_MAX_PEER_REQUESTS = 1024
"""Requests of the agent's a connection handles at once: past it, reading stops until some are
answered (a server flooding requests meets backpressure, never a growing pile of handlers)."""


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


def cookie_header(cookies: httpx.Cookies, url: str) -> str | None:
    """The `Cookie` header of a request to `url` (None: no cookie for it)."""
    if not cookies.jar:
        return None
    request = httpx.Request("GET", url)
    cookies.set_cookie_header(request)
    cookie: str | None = request.headers.get("cookie")
    return cookie


def keep_cookies(cookies: httpx.Cookies, url: str, status: int, headers: Any) -> None:
    """Keep the cookies an answer from `url` sets."""
    request = httpx.Request("GET", url)
    cookies.extract_cookies(httpx.Response(status, headers=headers, request=request))


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


class RemoteTransport:
    """What both transports share; each adds `open`, `send_nowait`, `end_output` and `close`."""

    cookies: httpx.Cookies
    connection_id: str | None = None

    def __init__(self, url: str, reader: MessageTransport, max_peer_requests: int) -> None:
        self.url = url
        self.reader = reader
        self.eof_reason = "the server closed the connection"
        self.ended = False
        self.on_refused: Callable[[RefusedConnectionError], None] = lambda error: None
        self._max_peer_requests = max_peer_requests
        self._peer_requests: dict[Any, int] = {}  # id -> how many in flight (a multiset)
        self._in_flight = 0

    async def describe_eof(self) -> str:
        return self.eof_reason

    def end_input(self, reason: str) -> None:
        if not self.ended:
            self.ended = True
            self.eof_reason = reason
            self.reader.feed_eof()

    def fail_request(self, message: Peek, text: str, data: Any) -> None:
        """Answer one of our requests locally with -32603: its POST was refused."""
        error = {"code": INTERNAL_ERROR, "message": text, "data": data}
        self.reader.feed(msgspec.json.encode({"jsonrpc": "2.0", "id": message.id, "error": error}))

    # --- the agent's requests in flight ----------------------------------------------------------

    def count_in(self, message: Peek) -> None:
        """A message from the agent: a request is in flight until our answer to it goes out."""
        if message.kind == "request":
            key = message.id_key
            self._peer_requests[key] = self._peer_requests.get(key, 0) + 1
            self._in_flight += 1

    def count_out(self, message: Peek) -> None:
        """A message of ours: an answer ends the request it answers."""
        if message.kind == "response":
            key = message.id_key
            left = self._peer_requests.get(key, 0) - 1
            if left >= 0:
                self._in_flight -= 1
                if left:
                    self._peer_requests[key] = left
                else:
                    del self._peer_requests[key]

    @property
    def full(self) -> bool:
        """Whether the agent has as many requests in flight as we take: stop reading."""
        return self._in_flight >= self._max_peer_requests
