"""The SSE stream of one mailbox (a `GET` with `Accept: text/event-stream`): each message one
`data:` event, in order, a keepalive comment in silences, the end when the connection ends.

While the stream is open, a message pushed to an empty mailbox is sent at once by the push
itself (`Mailbox.attach`); this task sends what waited (before the stream opened, or behind a
send held up by back-pressure), the keepalives, and the end.
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

    async def event(data: bytes) -> None:
        await send(
            {"type": "http.response.body", "body": b"data: " + data + b"\n\n", "more_body": True}
        )

    box.attach(event)
    try:
        while not gone.done():
            sent = box.sent
            waiting = asyncio.ensure_future(box.wait())
            done, _ = await asyncio.wait(
                {waiting, gone}, timeout=keepalive, return_when=asyncio.FIRST_COMPLETED
            )
            if waiting not in done:
                waiting.cancel()
                if not done and box.sent == sent:  # a silence: nothing sent either way
                    await box.hold()
                    try:
                        await send(
                            {
                                "type": "http.response.body",
                                "body": b": keepalive\n\n",
                                "more_body": True,
                            }
                        )
                    finally:
                        box.release()
                continue
            await box.hold()  # raises when a direct send broke the stream
            try:
                items = box.take()
                if items:
                    frames = b"".join(b"data: " + item + b"\n\n" for item in items)
                    await send({"type": "http.response.body", "body": frames, "more_body": True})
            finally:
                box.release()
            if box.finished:
                break
        if not gone.done():
            await box.hold()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        box.detach()
        gone.cancel()


async def disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
