"""The SSE stream of one mailbox (a `GET` with `Accept: text/event-stream`): each message one
`data:` event, in order, a keepalive comment in silences, the end when the connection ends.
"""

from __future__ import annotations

import asyncio

from .connections import Mailbox
from .messages import EVENT_STREAM_TYPE
from .replies import Receive, Send


async def stream(box: Mailbox, keepalive: float, receive: Receive, send: Send) -> None:
    """Send what comes to `box` as SSE events, a comment every `keepalive` seconds of silence,
    until the mailbox is finished (the connection ended) or the client goes away."""
    headers = [(b"content-type", EVENT_STREAM_TYPE.encode()), (b"cache-control", b"no-cache")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    gone = asyncio.ensure_future(disconnected(receive))
    try:
        while not gone.done():
            waiting = asyncio.ensure_future(box.wait())
            done, _ = await asyncio.wait(
                {waiting, gone}, timeout=keepalive, return_when=asyncio.FIRST_COMPLETED
            )
            if waiting not in done:
                waiting.cancel()
                if not done:
                    await send(
                        {
                            "type": "http.response.body",
                            "body": b": keepalive\n\n",
                            "more_body": True,
                        }
                    )
                continue
            items = box.take()
            if items:
                frames = b"".join(b"data: " + item + b"\n\n" for item in items)
                await send({"type": "http.response.body", "body": frames, "more_body": True})
            if box.finished:
                break
        if not gone.done():
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        gone.cancel()


async def disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
