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
    until the mailbox is finished (the connection ended) or the client goes away.

    The loop waits on the mailbox alone: the client leaving and the keepalive clock each wake it
    (`Mailbox.poke`), so a message costs no task and no timer of its own. The keepalive clock
    is one timer, set again for what is left when messages went out since it was set."""
    headers = [(b"content-type", EVENT_STREAM_TYPE.encode()), (b"cache-control", b"no-cache")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    loop = asyncio.get_running_loop()
    gone = asyncio.ensure_future(disconnected(receive))
    gone.add_done_callback(lambda _: box.poke())
    last = loop.time()  # when the stream last sent something
    due = False  # a keepalive is due
    timer: asyncio.TimerHandle | None = None

    def tick() -> None:
        nonlocal timer, due
        left = last + keepalive - loop.time()
        if left > 0:
            timer = loop.call_later(left, tick)
        else:
            due = True
            box.poke()

    timer = loop.call_later(keepalive, tick)
    try:
        while not gone.done():
            await box.wait_or_poke()
            if gone.done():
                break
            items = box.take()
            if items:
                frames = b"".join(b"data: " + item + b"\n\n" for item in items)
                await send({"type": "http.response.body", "body": frames, "more_body": True})
                last = loop.time()
            elif due:
                body = b": keepalive\n\n"
                await send({"type": "http.response.body", "body": body, "more_body": True})
                last = loop.time()
            if due:
                due = False
                timer = loop.call_later(keepalive, tick)
            if box.finished:
                break
        if not gone.done():
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        if timer is not None:
            timer.cancel()
        gone.cancel()


async def disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
