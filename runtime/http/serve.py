"""Serve an ASGI application (an `AcpApp`) with Hypercorn: HTTP/1.1, HTTP/2 (h2c with prior
knowledge or upgrade, and over TLS), and WebSocket, all on one port."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from typing import TYPE_CHECKING, Any, Callable, overload

from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config

from . import wsguard
from .server import AcpApp

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..jsonrpc.package import AgentPackage, HandlerT, ProxyT
    from .connections import RemoteAgentConnection
    from .server import AppOptions, RemoteHandlerArg

    class RunOptions(AppOptions, total=False):
        """`run`'s options: `serve`'s, then the `AcpApp`'s."""

        on_listening: Callable[[str], object] | None
        certfile: str | None
        keyfile: str | None


def config(
    app: AcpApp,
    bind: str | socket.socket,
    *,
    certfile: str | None = None,
    keyfile: str | None = None,
) -> Config:
    """A Hypercorn configuration for `app` on `bind` ("HOST:PORT", or a listening socket)."""
    cfg = Config()
    # Hypercorn takes (and closes) the fd it is given
    cfg.bind = [f"fd://{os.dup(bind.fileno())}" if isinstance(bind, socket.socket) else bind]
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
    on_listening: Callable[[str], object] | None = None,
) -> None:
    """Serve `app` on `bind` ("HOST:PORT", port 0 for a free one, or a listening socket) until
    `shutdown` is set (or forever), then close its connections. Once listening it logs
    "acp_runtime.http: listening on URL" to stderr and calls `on_listening(url)`. Refuses to
    start (`RuntimeError`) when the WebSocket guard does not fit the installed Hypercorn
    (`wsguard.py`)."""
    if wsguard.problem is not None:  # never a server without the WebSocket guard
        raise RuntimeError(wsguard.problem)
    sock = bind if isinstance(bind, socket.socket) else listen_socket(bind)
    trigger: Any = shutdown.wait if shutdown is not None else None
    try:
        url = url_of(sock, app.path, "https" if certfile is not None else "http")
        print(f"acp_runtime.http: listening on {url}", file=sys.stderr, flush=True)
        if on_listening is not None:
            on_listening(url)
        cfg = config(app, sock, certfile=certfile, keyfile=keyfile)
        # an ASGI 3 app; its scope and events are plain dicts where hypercorn has TypedDicts
        await hypercorn_serve(app, cfg, shutdown_trigger=trigger)  # type: ignore[arg-type]
    finally:
        if sock is not bind:
            sock.close()
        await app.close()


def listen_socket(listen: str) -> socket.socket:
    """A TCP socket listening on "HOST:PORT" ("[::1]:PORT" for IPv6; port 0 picks a free one)."""
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"listen address {listen!r} is not HOST:PORT")
    host = host.strip("[]") or "127.0.0.1"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    dual = family == socket.AF_INET6  # (IPv4 too on "::", as the system's default has it)
    return socket.create_server((host, int(port)), family=family, backlog=1024, dualstack_ipv6=dual)


def url_of(sock: socket.socket, path: str = "/acp", scheme: str = "http") -> str:
    """The URL an app behind `sock` is reached at."""
    host, port = sock.getsockname()[:2]
    return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}{path}"


@overload
def run(
    handler: RemoteHandlerArg, listen: str, *, schema: None = None, **options: Unpack[RunOptions]
) -> None: ...
@overload
def run(
    handler: HandlerT | Callable[[RemoteAgentConnection[ProxyT]], HandlerT],
    listen: str,
    *,
    schema: AgentPackage[ProxyT, HandlerT],
    **options: Unpack[RunOptions],
) -> None: ...
def run(handler: Any, listen: str, **options: Any) -> None:
    """Serve `handler` at `http://LISTEN/acp` (and `ws://LISTEN/acp`; `https://` and `wss://` with
    `certfile` and `keyfile`, PEM files) until interrupted. Once the port is bound it logs
    "acp_runtime.http: listening on URL" to stderr and calls `on_listening(url)` (useful with
    port 0). Other `options` go to `AcpApp`."""
    serving = {name: options.pop(name, None) for name in ("on_listening", "certfile", "keyfile")}
    app = AcpApp(handler, **options)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(app, listen, **serving))
