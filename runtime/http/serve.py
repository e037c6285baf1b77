"""Serve an ASGI application (an `AcpApp`) with Hypercorn: HTTP/1.1, HTTP/2 (h2c with prior
knowledge or upgrade, and over TLS), and WebSocket, all on one port."""

from __future__ import annotations

import asyncio
import os
import socket
from typing import Any

from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config

from .server import AcpApp


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
        cfg.bind = [f"fd://{os.dup(bind.fileno())}"]  # Hypercorn takes (and closes) the fd it is given
    else:
        cfg.bind = [bind]
    cfg.websocket_max_message_size = app.max_message_bytes
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
        await hypercorn_serve(app, config(app, bind, certfile=certfile, keyfile=keyfile), shutdown_trigger=trigger)
    finally:
        await app.close()


def run(handler: Any, listen: str, **options: Any) -> None:
    """Serve `handler` at `http://LISTEN/acp` (and `ws://LISTEN/acp`) until interrupted."""
    asyncio.run(serve(AcpApp(handler, **options), listen))
