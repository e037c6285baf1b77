"""Serve an ASGI application (an `AcpApp`) with Hypercorn: HTTP/1.1, HTTP/2 (h2c with prior
knowledge or upgrade, and over TLS), and WebSocket, all on one port."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from typing import Any

from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config
from hypercorn.protocol import h2 as h2_protocol
from hypercorn.protocol import ws_stream
from wsproto.connection import Connection

from . import h2send
from .server import AcpApp
from .websocket import WEBSOCKET_COMPRESSION
from .wsfast import TextFrames


def _without_compression() -> None:
    """Make Hypercorn's WebSocket handshake negotiate no extension while an `AcpApp` accepts
    (`WEBSOCKET_COMPRESSION` is False then; other applications keep Hypercorn's behaviour).
    Hypercorn 0.18 always offers permessage-deflate and inflates a whole frame before checking
    its size against `websocket_max_message_size`: 1 MiB on the wire can become 1 GiB.
    The accepted connection parses plain text frames in one step (`wsfast.TextFrames`)."""
    handshake = ws_stream.Handshake
    if getattr(handshake.accept, "_acp_runtime", False):
        return
    accept = handshake.accept

    def accept_without_compression(self: Any, *args: Any, **kwargs: Any) -> Any:
        if WEBSOCKET_COMPRESSION.get():
            return accept(self, *args, **kwargs)
        self.extensions = None  # as if the client offered none
        status, headers, connection = accept(self, *args, **kwargs)
        if type(connection) is Connection:
            connection.__class__ = TextFrames  # plain text frames parsed in one step (wsfast)
        return status, headers, connection

    accept_without_compression._acp_runtime = True  # type: ignore[attr-defined]
    handshake.accept = accept_without_compression  # type: ignore[method-assign]


_without_compression()


def _trusting_own_headers() -> None:
    """Make h2 send an `AcpApp`'s response heads over HTTP/2 as they are: Hypercorn checks
    (`build_and_validate_headers`: no pseudo-header, stripped) the heads the app gives, whose
    names are the app's own lower-case constants, and adds its `date` and `server`; h2 then
    checked and rewrote every head again (about a tenth of the server's time per round trip).
    Requests stay checked as before (`validate_inbound_headers`); other applications keep h2's
    defaults."""
    protocol = h2_protocol.H2Protocol
    if getattr(protocol.__init__, "_acp_runtime", False):
        return
    init = protocol.__init__

    def init_trusting_acp_apps(self: Any, app: Any, *args: Any, **kwargs: Any) -> None:
        init(self, app, *args, **kwargs)
        if isinstance(getattr(app, "app", None), AcpApp):
            h2_config = self.connection.config
            h2_config.validate_outbound_headers = False
            h2_config.normalize_outbound_headers = False
            h2send.install(self)

    init_trusting_acp_apps._acp_runtime = True  # type: ignore[attr-defined]
    protocol.__init__ = init_trusting_acp_apps  # type: ignore[method-assign]


_trusting_own_headers()


def config(
    app: AcpApp,
    bind: str | socket.socket,
    *,
    certfile: str | None = None,
    keyfile: str | None = None,
) -> Config:
    """A Hypercorn configuration for `app` on `bind` ("HOST:PORT", or a listening socket)."""
    cfg = Config()
    if isinstance(bind, socket.socket):
        cfg.bind = [
            f"fd://{os.dup(bind.fileno())}"
        ]  # Hypercorn takes (and closes) the fd it is given
    else:
        cfg.bind = [bind]
    cfg.websocket_max_message_size = app.max_message_bytes
    cfg.websocket_ping_interval = app.websocket_ping_interval
    # `read_timeout` stays unset: an SSE reader sends nothing for as long as its stream is open,
    # and Hypercorn would close it. Slow headers meet `keep_alive_timeout`, slow bodies the
    # app's `body_timeout`, silent WebSockets its `idle_timeout` (pings keep live ones busy).
    # Keep idle connections longer than clients do (httpx: 5 s), so a client never sends on a
    # connection the server is closing (Hypercorn's default is 5 s too: a race under load).
    cfg.keep_alive_timeout = 75.0
    # No cap on the requests of one keep-alive connection (Hypercorn's default is 1,000): an ACP
    # connection POSTs every message, and past the cap an HTTP/2 connection gets GOAWAY with the
    # request Hypercorn just took still in flight, which is lost (tests/remote/
    # test_long_connection.py). HTTP/1.1 only reconnected; HTTP/2 broke the ACP connection.
    cfg.keep_alive_max_requests = sys.maxsize
    cfg.h2_max_inbound_frame_size = 1 << 20
    cfg.graceful_timeout = 1.0
    cfg.accesslog = None
    cfg.errorlog = "-"
    cfg.loglevel = "WARNING"
    if certfile is not None:
        cfg.certfile, cfg.keyfile = certfile, keyfile
    return cfg


async def serve(
    app: AcpApp,
    bind: str | socket.socket,
    *,
    shutdown: asyncio.Event | None = None,
    certfile: str | None = None,
    keyfile: str | None = None,
) -> None:
    """Serve `app` until `shutdown` is set (or forever), then close its connections."""
    trigger: Any = shutdown.wait if shutdown is not None else None
    try:
        # an ASGI 3 app; its scope and events are plain dicts where hypercorn has TypedDicts
        asgi_app: Any = app
        await hypercorn_serve(
            asgi_app,
            config(app, bind, certfile=certfile, keyfile=keyfile),
            shutdown_trigger=trigger,
        )
    finally:
        await app.close()


def listen_socket(listen: str) -> socket.socket:
    """A TCP socket listening on "HOST:PORT" ("[::1]:PORT" for IPv6; port 0 picks a free one)."""
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"listen address {listen!r} is not HOST:PORT")
    host = host.strip("[]") or "127.0.0.1"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, int(port)))
    sock.listen(1024)
    return sock


def url_of(sock: socket.socket, path: str = "/acp", scheme: str = "http") -> str:
    """The URL an app behind `sock` is reached at."""
    host, port = sock.getsockname()[:2]
    return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}{path}"


def run(
    handler: Any,
    listen: str,
    *,
    on_listening: Any = None,
    certfile: str | None = None,
    keyfile: str | None = None,
    **options: Any,
) -> None:
    """Serve `handler` at `http://LISTEN/acp` (and `ws://LISTEN/acp`; `https://` and `wss://` with
    `certfile` and `keyfile`, PEM files) until interrupted; `on_listening(url)` is called once
    the port is bound (useful with port 0). `options` go to `AcpApp`."""
    app = AcpApp(handler, **options)
    sock = listen_socket(listen)
    try:
        if on_listening is not None:
            scheme = "https" if certfile is not None else "http"
            on_listening(url_of(sock, app.path, scheme))
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve(app, sock, certfile=certfile, keyfile=keyfile))
    finally:
        sock.close()
