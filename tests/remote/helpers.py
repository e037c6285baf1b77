"""Servers and peers for the remote transport tests (loopback only)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any, AsyncIterator

from acp_runtime.http import AcpApp, serve


def listening_socket() -> socket.socket:
    """A TCP socket listening on a free loopback port (connections queue until the server runs)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


@contextlib.asynccontextmanager
async def served(app: AcpApp) -> AsyncIterator[str]:
    """Serve `app` with Hypercorn in this event loop; yields its base URL `http://127.0.0.1:PORT`."""
    sock = listening_socket()
    stop = asyncio.Event()
    task = asyncio.create_task(serve(app, sock, shutdown=stop))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stop.set()
        await task
        sock.close()


def ws(url: str) -> str:
    return "ws" + url[4:]
