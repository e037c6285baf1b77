"""An SSE stream of one mailbox (`Mailbox.stream`, acp_runtime.http.connections): what the agent
sent meanwhile leaves as one body chunk, and a message leaves the mailbox only once its reader has
sent it, so a stream that fails mid-send leaves it for the next reader."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from acp_runtime.http import AcpApp
from acp_runtime.http.connections import RemoteConnection, event

from .agents import HistoryAgent, Store

ONE = b'{"jsonrpc":"2.0","method":"session/update","params":{"n":1}}'
TWO = b'{"jsonrpc":"2.0","method":"session/update","params":{"n":2}}'


def connection() -> RemoteConnection:
    handler = functools.partial(HistoryAgent, store=Store())
    return RemoteConnection(AcpApp(handler, idle_timeout=None, first_message_timeout=None), "http")


class Reader:
    """An SSE stream's ASGI `send`, recording what it was given; `fail` refuses the first body."""

    def __init__(self, fail: bool = False) -> None:
        self.sent: list[dict[str, Any]] = []
        self.fail = fail

    async def __call__(self, message: dict[str, Any]) -> None:
        if self.fail and message.get("body"):
            raise RuntimeError("the stream is closed")
        self.sent.append(message)


async def _streamed(reader: Reader, conn: RemoteConnection) -> None:
    box, gone = conn.connection_stream, asyncio.Event()

    async def receive() -> dict[str, Any]:
        await gone.wait()
        return {"type": "http.disconnect"}

    task = asyncio.ensure_future(box.stream(60.0, receive, reader))
    for _ in range(3):
        await asyncio.sleep(0)  # the head is out, the loop waits
    for data in (ONE, TWO):
        conn.route(data)
    for _ in range(10):
        await asyncio.sleep(0)
    gone.set()
    try:
        await task
    except RuntimeError:
        pass


async def test_what_came_meanwhile_leaves_as_one_chunk_and_the_mailbox_empties() -> None:
    conn, reader = connection(), Reader()
    await _streamed(reader, conn)
    bodies = [m["body"] for m in reader.sent if m["type"] == "http.response.body" and m["body"]]
    assert bodies == [event(ONE) + event(TWO)]
    assert not conn.connection_stream.items and conn.buffered == 0
    await conn.close()


async def test_a_failed_send_leaves_the_messages_for_the_next_reader() -> None:
    conn = connection()
    await _streamed(Reader(fail=True), conn)
    assert list(conn.connection_stream.items) == [ONE, TWO]
    assert conn.buffered == len(ONE) + len(TWO)
    await conn.close()
