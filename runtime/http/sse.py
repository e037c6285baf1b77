"""The SSE stream of one mailbox (a `GET` with `Accept: text/event-stream`): each message one
`data:` event, in order, a keepalive comment in silences, the end when the connection ends.
"""

from __future__ import annotations

import asyncio

from .connections import Mailbox, event
from .messages import EVENT_STREAM_TYPE
from .replies import Receive, Send


async def stream(
    box: Mailbox, keepalive: float, receive: Receive, send: Send, direct: bool = True
) -> None:
    """Send what comes to `box` as SSE events, a comment every `keepalive` seconds of silence,
    until the mailbox is finished (the connection ended) or the client goes away.

    The loop waits on the mailbox alone: the client leaving and the keepalive clock each wake it
    (`Mailbox.poke`), so a message costs no task and no timer of its own. While it waits, the
    mailbox's `sender` lets the agent's task send a message straight to the client (see
    `Mailbox`) when `direct`; one send at a time (`busy`), the loop's or the agent's. Without
    `direct` (HTTP/1.1, where each send is a write of its own) the messages an agent streams wait
    for the loop, which sends all that came meanwhile as one body chunk. The keepalive clock is
    one timer, set again for what is left when something went out since it was set."""
    headers = [(b"content-type", EVENT_STREAM_TYPE.encode()), (b"cache-control", b"no-cache")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    loop = asyncio.get_running_loop()
    gone = asyncio.ensure_future(disconnected(receive))

    def left(_: object) -> None:
        box.sender = None
        box.poke()

    gone.add_done_callback(left)
    box.last = loop.time()  # when the stream last sent something
    due = False  # a keepalive is due
    timer: asyncio.TimerHandle | None = None

    def tick() -> None:
        nonlocal timer, due
        wait = box.last + keepalive - loop.time()
        if wait > 0:
            timer = loop.call_later(wait, tick)
        else:
            due = True
            box.poke()

    timer = loop.call_later(keepalive, tick)
    box.sender = send if direct else None
    try:
        while not gone.done():
            await box.wait_or_poke()
            await box.until_free()  # after the agent's send under way
            if gone.done():
                break
            items = box.take()
            if items or due:
                body = b"".join(map(event, items)) if items else b": keepalive\n\n"
                box.busy = True
                try:
                    await send({"type": "http.response.body", "body": body, "more_body": True})
                finally:
                    box.freed()
                box.last = loop.time()
            if due:
                due = False
                timer = loop.call_later(keepalive, tick)
            if box.finished:
                break
        box.sender = None
        if not gone.done():
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        box.sender = None
        if timer is not None:
            timer.cancel()
        gone.cancel()


async def disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
