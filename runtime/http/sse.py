"""The SSE stream of one mailbox (a `GET` with `Accept: text/event-stream`): each message one
`data:` event, in order, a keepalive comment in silences, the end when the connection ends.
"""

from __future__ import annotations

import asyncio

from .connections import Mailbox
from .messages import EVENT_STREAM_TYPE
from .replies import Receive, Send


def event(data: bytes) -> bytes:
    """One message as an SSE event."""
    return b"data: " + data + b"\n\n"


async def stream(box: Mailbox, keepalive: float, receive: Receive, send: Send) -> None:
    """Send what comes to `box` as SSE events (what came meanwhile in one body chunk), a comment
    after `keepalive` seconds of silence, until the mailbox is finished (the connection ended) or
    the client goes away. The messages leave the mailbox once sent: a stream that ends first
    leaves them for the next reader."""
    headers = [(b"content-type", EVENT_STREAM_TYPE.encode()), (b"cache-control", b"no-cache")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    gone = asyncio.ensure_future(disconnected(receive))
    gone.add_done_callback(lambda _: box.wake.set())
    try:
        while not gone.done():
            try:
                await asyncio.wait_for(box.wait(), keepalive)
            except TimeoutError:
                pass
            if gone.done():
                return
            items = list(box.items)
            body = b"".join(map(event, items)) if items else b": keepalive\n\n"
            if items or not box.finished:
                await send({"type": "http.response.body", "body": body, "more_body": True})
                box.sent(len(items))
            if box.finished and not box.items:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
    finally:
        gone.cancel()


async def disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
