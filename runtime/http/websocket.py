"""The WebSocket endpoint of an `AcpApp` (`GET` with `Upgrade: websocket`, an ASGI `websocket`
scope): a connection of its own, admitted as an HTTP request is; text frames both ways, one
message each, in order; binary frames are ignored, as the RFD says. A refused handshake is answered
with its HTTP status where the server can (`refuse_websocket`).

Under Hypercorn (HTTP/1.1, asyncio) a plain message takes the short paths of `wsfast.py` both
ways: a chunk of whole text frames reaches the connection within the socket's `data_received`
(`direct_reader`), and each message the agent sends is one write of its frame (`text_writer`);
anything else, and every other server, goes through ASGI as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from typing import Any, Protocol

from .connections import Registry, RemoteConnection
from .replies import Headers, Receive, Refused, Scope, Send
from .wsfast import TextWriter, direct_reader, text_writer

WEBSOCKET_COMPRESSION: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "acp_websocket_compression", default=True
)
"""False while an `AcpApp` accepts a WebSocket: the server must not negotiate permessage-deflate
(`serve` makes Hypercorn honour it). A compressed frame is inflated whole before its size is
checked: 1 MiB on the wire can become 1 GiB in memory."""


class Host(Protocol):
    """What the endpoint needs of its `AcpApp`."""

    path: str
    registry: Registry

    async def admit(self, scope: Scope, headers: Headers) -> Any: ...

    def identity_headers(
        self, connection: RemoteConnection, tls: bool
    ) -> list[tuple[bytes, bytes]]: ...


async def serve_websocket(app: Host, scope: Scope, receive: Receive, send: Send) -> None:
    """One WebSocket of `app`: admitted as a request is, a connection of its own, text frames both
    ways (one message each, in order), binary frames ignored; it ends with the socket."""
    event = await receive()
    if event["type"] != "websocket.connect":
        return
    headers = Headers(scope)
    try:
        if scope.get("path") != app.path:
            raise Refused(404, f"not found: ACP is served at {app.path}")
        principal = await app.admit(scope, headers)
        connection = app.registry.open("websocket", principal)
    except Refused as exc:
        await refuse_websocket(scope, send, exc)
        return
    token = WEBSOCKET_COMPRESSION.set(False)
    try:
        accept = {
            "type": "websocket.accept",
            "headers": app.identity_headers(connection, headers.tls),
        }
        await send(accept)
    finally:
        WEBSOCKET_COMPRESSION.reset(token)
    connection.touch()
    write_text = text_writer(send)
    connection.attach_socket(send, write_text)
    pump = asyncio.ensure_future(_pump(connection, send, write_text))
    inbox = _direct_inbox(receive, connection)
    undo_reader = None if inbox is None else direct_reader(send, inbox, connection.receive_frame)
    try:
        while True:
            event = await receive()
            if event["type"] == "websocket.disconnect":
                break
            _take(connection, event)
    finally:
        if undo_reader is not None:
            undo_reader()
        if inbox is not None:
            del inbox.put_nowait  # the queue's own again
        await connection.close()
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pump


def _take(connection: RemoteConnection, event: dict[str, Any]) -> None:
    """One received event other than the disconnect: a text frame's message goes to the agent
    connection; binary frames are ignored."""
    text = event.get("text")
    if event["type"] == "websocket.receive" and text is not None:
        connection.receive_frame(text.encode())


def _direct_inbox(receive: Receive, connection: RemoteConnection) -> asyncio.Queue[Any] | None:
    """Where the server hands events through an `asyncio.Queue` whose `get` is `receive` (as
    Hypercorn does), take each received frame as the server puts it, in its reading task: the
    message reaches the agent connection without a task of ours waking up for it. A frame put
    while events wait in the queue queues behind them (order is kept); the disconnect, and
    everything on a server that hands events another way, goes through `receive` as before.
    Returns the queue so taken (None: none), for the caller to give back."""
    queue = getattr(receive, "__self__", None)
    if (
        not isinstance(queue, asyncio.Queue)
        or getattr(receive, "__func__", None) is not asyncio.Queue.get
        or type(queue).put_nowait is not asyncio.Queue.put_nowait
        or "put_nowait" in vars(queue)
    ):
        return None
    put_nowait = queue.put_nowait

    def take_or_queue(event: Any) -> None:
        if queue.empty() and event.get("type") == "websocket.receive":
            _take(connection, event)
        else:
            put_nowait(event)

    queue.put_nowait = take_or_queue  # type: ignore[method-assign,assignment]
    return queue


async def _pump(connection: RemoteConnection, send: Send, write_text: TextWriter | None) -> None:
    box = connection.everything
    while True:
        await box.wait()
        connection.flushing = True  # what the agent sends meanwhile queues behind these
        try:
            for item in box.take():
                if write_text is not None:
                    await write_text(item)
                else:
                    await send({"type": "websocket.send", "text": item.decode()})
        finally:
            connection.flushing = False
        connection.touch()
        if box.finished:
            with contextlib.suppress(Exception):
                await send({"type": "websocket.close", "code": 1000})
            return


async def refuse_websocket(scope: Scope, send: Send, refused: Refused) -> None:
    """Refuse a WebSocket handshake with the HTTP status (where the server offers the ASGI
    `websocket.http.response` extension; else a close, which the server answers 403)."""
    if "websocket.http.response" in (scope.get("extensions") or {}):
        start = [(b"content-type", b"text/plain; charset=utf-8")]
        await send(
            {"type": "websocket.http.response.start", "status": refused.status, "headers": start}
        )
        await send({"type": "websocket.http.response.body", "body": refused.text.encode()})
    else:
        await send({"type": "websocket.close", "code": 1008})
