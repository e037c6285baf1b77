"""The WebSocket endpoint of an `AcpApp` (`GET` with `Upgrade: websocket`, an ASGI `websocket`
scope): a connection of its own, admitted as an HTTP request is; text frames both ways, one
message each, in order; binary frames are ignored, as the RFD says. A refused handshake is answered
with its HTTP status where the server can (`refuse_websocket`). Under Hypercorn the socket is
accepted guarded (`wsguard.py`): no permessage-deflate, and nothing more is read of a socket
closed for size (1009).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from .connections import RemoteConnection
from .guard import TEXT_TYPE, Headers, Receive, Refused, Scope, Send, admit
from .wsguard import guarded

if TYPE_CHECKING:
    from .server import AcpApp


async def serve_websocket(app: AcpApp, scope: Scope, receive: Receive, send: Send) -> None:
    """One WebSocket of `app`: admitted as a request is, a connection of its own, text frames both
    ways (one message each, in order), binary frames ignored; it ends with the socket, or when
    the connection closes (idle, over its limits, a message too big)."""
    event = await receive()
    if event["type"] != "websocket.connect":
        return
    headers = Headers(scope)
    try:
        path = app.local_path(scope)
        if path is not None:
            raise Refused(404, f"not found: ACP is served at {path}")
        principal = await admit(app, scope, headers)
        connection = app.open("websocket", principal)
    except Refused as exc:
        await refuse_websocket(scope, send, exc)
        return
    with guarded(lambda: app.spawn(connection.close())):
        identity = app.identity_headers(connection, headers.tls)
        await send({"type": "websocket.accept", "headers": identity})
    connection.touch()
    sides = (_pump(connection, send), _read(connection, receive))
    tasks = [asyncio.ensure_future(side) for side in sides]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        await connection.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _read(connection: RemoteConnection, receive: Receive) -> None:
    """Each text frame's message to the agent connection (binary frames are ignored), until the
    socket closes."""
    while True:
        event = await receive()
        if event["type"] == "websocket.disconnect":
            return
        text = event.get("text")
        if event["type"] == "websocket.receive" and text is not None:
            connection.receive_frame(text.encode())


async def _pump(connection: RemoteConnection, send: Send) -> None:
    """The agent's messages to the socket, in order, each counted unread until sent; a close
    once the connection ended."""
    box = connection.connection_stream
    while True:
        await box.wait()
        while box.items:
            await send({"type": "websocket.send", "text": box.items[0].decode()})
            box.sent(1)
        connection.touch()
        if box.finished:
            with contextlib.suppress(Exception):
                await send({"type": "websocket.close", "code": 1000})
            return


async def refuse_websocket(scope: Scope, send: Send, refused: Refused) -> None:
    """Refuse a WebSocket handshake with the HTTP status (where the server offers the ASGI
    `websocket.http.response` extension; else a close, which the server answers 403)."""
    if "websocket.http.response" in (scope.get("extensions") or {}):
        body = refused.text.encode()
        # a length, so the refusal is not chunked: websockets 13 cannot read a chunked one
        start = [(b"content-type", TEXT_TYPE), (b"content-length", str(len(body)).encode())]
        status = refused.status
        await send({"type": "websocket.http.response.start", "status": status, "headers": start})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008})
