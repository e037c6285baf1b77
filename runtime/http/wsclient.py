"""The client's WebSocket transport (see `client.connect_agent`): one socket, one text frame per
message, both ways.

It drives websockets' Sans-I/O `ClientProtocol` (its documented integration API) from an asyncio
protocol of its own: each text message is handed on as its last frame arrives, within the
callback that read it; binary messages are dropped (ACP carries none); pings are answered by
websockets. Memory stays bounded against a hostile server: while what we write waits unread
beyond the socket's write buffer limit (pongs to a ping flood, answers nobody reads), or while
the engine pauses its input (the agent has `max_peer_requests` requests in flight with us), the
socket is not read.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from typing import Any

import httpx
from websockets.client import ClientProtocol
from websockets.exceptions import InvalidStatus, InvalidURI
from websockets.frames import CloseCode, Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

from ..jsonrpc.errors import ConnectionClosedError
from . import remote
from .remote import RefusedConnectionError, RemoteTransport, SocketProtocol

_CLOSE_TIMEOUT = 5.0  # seconds the server has to close the socket after the closing handshake
PING_INTERVAL = 20.0
"""Seconds between the client's pings; a server that sends nothing, not even the pong, for one
interval after a ping is dead: the socket is dropped."""


class WebSocketTransport(RemoteTransport, SocketProtocol):
    def __init__(self, url: str, options: dict[str, Any]) -> None:
        super().__init__(url, options)
        self.cookies = httpx.Cookies(options["cookies"])
        self._options = options
        self._http_url = "http" + url[2:]  # ws://... http://..., wss://... https://...
        try:
            self._uri = parse_uri(url)
        except InvalidURI as exc:
            raise ValueError(f"connect_agent: {exc}") from None
        self._ws = ClientProtocol(self._uri, max_size=options["max_message_bytes"])
        self._handshake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._parts: list[Any] | None = None  # the frames so far of a fragmented text message
        # why the socket is not read: "write" (what we wrote waits unread), "input" (the engine
        # paused it: the agent has its requests in flight)
        self._holds: set[str] = set()
        self._abort: asyncio.TimerHandle | None = None
        self._silent = False  # nothing came since the last ping
        self._ticker: asyncio.TimerHandle | None = None

    async def open(self) -> None:
        request = self._ws.connect()
        own = self._options["headers"] or {}
        for name, value in remote.request_headers(own, self.cookies, self._http_url).items():
            request.headers[name] = value
        self._ws.send_request(request)
        context: ssl.SSLContext | None = None
        if self._uri.secure:  # a WebSocket handshake is HTTP/1.1: offer nothing else by ALPN
            context = remote.tls_context("wss", self._options["verify"], False)
            context.set_alpn_protocols(["http/1.1"])
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(self._options["connect_timeout"]):
            await loop.create_connection(lambda: self, self._uri.host, self._uri.port, ssl=context)
            await asyncio.shield(self._handshake)
        error = self._ws.handshake_exc
        if error is None and self._ws.state is State.OPEN:
            self._ticker = loop.call_later(PING_INTERVAL, self._tick)
            return
        if isinstance(error, InvalidStatus):
            answer = error.response
            reason = remote.text_of(answer.body or b"") or answer.reason_phrase
            raise RefusedConnectionError(self.url, answer.status_code, reason, "websocket")
        raise ConnectionClosedError(f"the WebSocket handshake with {self.url} failed: {error}")

    # --- asyncio.Protocol -------------------------------------------------------------------------

    def _tick(self) -> None:
        """Ping the server; drop the socket when nothing came since the last ping."""
        if self._transport is None or self._ws.state is not State.OPEN:
            return
        if self._silent:
            self.end_input(f"the WebSocket {self.url}: nothing came within {PING_INTERVAL:g} s")
            self._transport.abort()
            return
        self._silent = True
        self._ws.send_ping(b"acp")
        self._flush()
        self._ticker = asyncio.get_running_loop().call_later(PING_INTERVAL, self._tick)

    def data_received(self, data: bytes) -> None:
        self._silent = False
        self._ws.receive_data(data)
        events = self._ws.events_received()
        self._flush()
        for event in events:
            if isinstance(event, Frame):
                self._frame(event)
            elif isinstance(event, Response) and self._ws.handshake_exc is None:
                headers = list(event.headers.raw_items())
                remote.keep_cookies(self.cookies, self._http_url, 101, headers)
        if self._ws.state is not State.CONNECTING and not self._handshake.done():
            self._handshake.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:  # (an EOF closes the socket)
        self._ws.receive_eof()
        self._transport = None
        for timer in (self._abort, self._ticker):
            if timer is not None:
                timer.cancel()
        if not self._handshake.done():
            self._handshake.set_result(None)
        self._closed.set_result(None)
        if exc is not None:
            self.end_input(f"the WebSocket {self.url} broke: {exc!r}")
        else:  # (what each side's close frame said, or that none came)
            self.end_input(f"the WebSocket {self.url} closed: {self._ws.close_exc}")

    def pause_writing(self) -> None:
        self._hold("write", True)

    def resume_writing(self) -> None:
        self._hold("write", False)

    # --- in ---------------------------------------------------------------------------------------

    def _frame(self, frame: Frame) -> None:
        if frame.opcode is Opcode.TEXT:
            self._parts = [frame.data]
        elif frame.opcode is Opcode.CONT and self._parts is not None:
            self._parts.append(frame.data)
        else:  # binary messages (and their continuations), control frames websockets handled
            return
        if not frame.fin:
            return
        data, self._parts = b"".join(self._parts), None
        try:
            data.decode()
        except UnicodeDecodeError:
            self._ws.fail(CloseCode.INVALID_DATA, "invalid UTF-8 in a text message")
            self._flush()
            return
        if not self.ended:
            self.feed(data)

    def flow(self, reading: bool) -> None:
        self._hold("input", not reading)

    def _hold(self, why: str, held: bool) -> None:
        """Read the socket while what we wrote drains and the engine takes what comes."""
        was_reading = not self._holds
        (self._holds.add if held else self._holds.discard)(why)
        if was_reading == bool(self._holds) and self._transport is not None:  # it changed
            (self._transport.pause_reading if self._holds else self._transport.resume_reading)()

    # --- out --------------------------------------------------------------------------------------

    def deliver(self, message: bytes) -> None:
        if self._ws.state is not State.OPEN:
            return  # closing: the end of input fails what waits
        self._ws.send_text(message)  # a text frame, sent without decoding
        self._flush()

    def end_output(self) -> None:
        if self._ws.state is State.OPEN:
            self._ws.send_close(CloseCode.NORMAL_CLOSURE)
            self._flush()

    def _flush(self) -> None:
        transport = self._transport
        if transport is None:
            return
        for data in self._ws.data_to_send():
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                transport.write_eof()
            else:
                transport.close()
        if self._ws.close_expected() and self._abort is None:  # the server closes the socket
            self._abort = asyncio.get_running_loop().call_later(_CLOSE_TIMEOUT, transport.abort)

    async def aclose(self) -> None:
        self.end_output()
        if self._transport is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._closed), _CLOSE_TIMEOUT)
        if self._transport is not None:
            self._transport.abort()
        self.end_input("the client closed the connection")
