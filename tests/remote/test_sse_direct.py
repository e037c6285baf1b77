"""A message the agent sends and waits for goes to an idle SSE reader at once, in the agent's task
(acp_runtime.http.connections `_write_event`), and only then: behind what waits in the mailbox,
behind a send under way, and back into the mailbox when the reader's `send` fails."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from acp_runtime.http.connections import Registry, RemoteConnection, event
from acp_runtime.http.sse import stream

from .agents import HistoryAgent, Store

ONE = b'{"jsonrpc":"2.0","method":"session/update","params":{"n":1}}'
TWO = b'{"jsonrpc":"2.0","method":"session/update","params":{"n":2}}'


def connection() -> RemoteConnection:
    registry = Registry(
        functools.partial(HistoryAgent, store=Store()),
        {},
        max_connections=4,
        max_buffered_bytes=1 << 20,
        max_total_buffered_bytes=1 << 24,
        idle_timeout=None,
    )
    return RemoteConnection(registry, "http")


class Reader:
    """An SSE stream's ASGI `send`, recording what it was given."""

    def __init__(self, fail: bool = False) -> None:
        self.sent: list[dict[str, Any]] = []
        self.fail = fail

    async def __call__(self, message: dict[str, Any]) -> None:
        if self.fail:
            raise RuntimeError("the stream is closed")
        self.sent.append(message)


async def test_an_idle_reader_is_sent_the_message_at_once() -> None:
    conn = connection()
    box, reader = conn.connection_stream, Reader()
    box.sender = reader
    await conn._write_event(ONE)
    assert reader.sent == [{"type": "http.response.body", "body": event(ONE), "more_body": True}]
    assert not box.items and not box.busy and conn.buffered == 0
    await conn.close()


async def test_a_message_waits_behind_what_the_mailbox_holds() -> None:
    conn = connection()
    box, reader = conn.connection_stream, Reader()
    box.sender = reader
    box.push(ONE)  # not taken by the stream's loop yet
    await conn._write_event(TWO)
    assert reader.sent == [] and list(box.items) == [ONE, TWO]
    await conn.close()


async def test_a_message_waits_behind_a_send_under_way() -> None:
    conn = connection()
    box, reader = conn.connection_stream, Reader()
    box.sender, box.busy = reader, True
    await conn._write_event(ONE)
    assert reader.sent == [] and list(box.items) == [ONE]
    await conn.close()


async def test_without_a_reader_the_message_waits_in_the_mailbox() -> None:
    conn = connection()
    await conn._write_event(ONE)
    assert list(conn.connection_stream.items) == [ONE] and conn.buffered == len(ONE)
    await conn.close()


async def test_a_failed_send_keeps_the_message_for_the_next_reader() -> None:
    conn = connection()
    box = conn.connection_stream
    box.sender = Reader(fail=True)
    await conn._write_event(ONE)
    assert box.sender is None and list(box.items) == [ONE] and conn.buffered == len(ONE)
    assert not box.busy
    await conn.close()


async def _streamed(direct: bool) -> list[bytes]:
    """The bodies an SSE stream sends for two messages the agent sends one after the other."""
    conn = connection()
    box, reader, gone = conn.connection_stream, Reader(), asyncio.Event()

    async def receive() -> dict[str, Any]:
        await gone.wait()
        return {"type": "http.disconnect"}

    task = asyncio.ensure_future(stream(box, 60.0, receive, reader, direct))
    for _ in range(3):
        await asyncio.sleep(0)  # the head is out, the loop waits
    for data in (ONE, TWO):
        await conn._write_event(data)
    for _ in range(10):
        await asyncio.sleep(0)
    gone.set()
    await task
    await conn.close()
    return [m["body"] for m in reader.sent if m["type"] == "http.response.body" and m["body"]]


async def test_over_http2_each_message_goes_to_the_reader_at_once() -> None:
    assert await _streamed(direct=True) == [event(ONE), event(TWO)]


async def test_over_http1_what_came_meanwhile_leaves_as_one_chunk() -> None:
    # each send is a write of its own over HTTP/1.1: one per message cost the client 3x per event
    assert await _streamed(direct=False) == [event(ONE) + event(TWO)]
