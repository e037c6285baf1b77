"""`MessageTransport`, the transport of the HTTP and WebSocket connections, pushes: each message
its owner feeds reaches the engine within the `feed` call (no task wakes up per message). These
tests hold it to what that asks: order, no nested delivery, sends and closes from inside a
delivery, feeds after the end."""

from __future__ import annotations

import asyncio

import pytest

from acp_runtime.jsonrpc.framing import OversizedLine
from acp_runtime.jsonrpc.transport import MessageTransport

Item = bytes | OversizedLine


class Recorder:
    """An engine's side of a transport: what it was handed, and when."""

    def __init__(self) -> None:
        self.batches: list[list[Item]] = []
        self.ends: list[BaseException | None] = []
        self.depth = 0
        self.nested = False
        self.react = lambda item: None

    def on_messages(self, items: list[Item]) -> None:
        self.nested |= self.depth > 0
        self.depth += 1
        try:
            self.batches.append(list(items))
            for item in items:
                self.react(item)
        finally:
            self.depth -= 1

    def on_end(self, error: BaseException | None) -> None:
        self.ends.append(error)

    @property
    def items(self) -> list[Item]:
        return [item for batch in self.batches for item in batch]


def started(**kwargs: object) -> tuple[MessageTransport, Recorder, list[bytes], list[bool]]:
    sent: list[bytes] = []
    closed: list[bool] = []
    transport = MessageTransport(sent.append, lambda: closed.append(True), **kwargs)  # type: ignore[arg-type]
    engine = Recorder()
    transport.start(engine.on_messages, engine.on_end)
    return transport, engine, sent, closed


async def test_a_message_reaches_the_engine_within_feed() -> None:
    transport, engine, _, _ = started(max_message_bytes=64)
    transport.feed(b'{"a":1}')
    assert engine.items == [b'{"a":1}']  # no loop turn in between
    big = b"x" * 100
    transport.feed(big)
    assert engine.items[1] == OversizedLine(100, big)
    transport.feed_eof()
    assert engine.ends == [None]
    transport.feed_eof()  # a second end is no second end
    assert engine.ends == [None]


async def test_what_came_before_start_is_handed_over_a_turn_later_and_first() -> None:
    sent: list[bytes] = []
    transport = MessageTransport(sent.append, lambda: None)
    transport.feed(b"1")
    transport.feed(b"2")
    engine = Recorder()
    transport.start(engine.on_messages, engine.on_end)
    assert engine.items == []  # the engine is still being built
    transport.feed(b"3")  # after start, before the turn: behind the first two
    assert engine.items == []
    await asyncio.sleep(0)
    assert engine.items == [b"1", b"2", b"3"]
    transport.feed(b"4")
    assert engine.items == [b"1", b"2", b"3", b"4"]


async def test_an_end_that_came_before_start_follows_the_messages() -> None:
    transport = MessageTransport(lambda m: None, lambda: None)
    transport.feed(b"1")
    transport.feed_eof()
    engine = Recorder()
    transport.start(engine.on_messages, engine.on_end)
    await asyncio.sleep(0)
    assert engine.items == [b"1"] and engine.ends == [None]


async def test_a_feed_from_inside_a_delivery_follows_it_and_is_not_nested() -> None:
    transport, engine, _, _ = started()

    def react(item: Item) -> None:
        if item == b"1":
            transport.feed(b"2")  # the owner fed again from inside `deliver`, say
            assert engine.items == [b"1"]  # not handed over inside this one
            transport.feed(b"3")

    engine.react = react
    transport.feed(b"1")
    assert engine.items == [b"1", b"2", b"3"]  # all of them by the time `feed` returns
    assert not engine.nested


async def test_an_end_from_inside_a_delivery_comes_after_what_was_fed() -> None:
    transport, engine, _, _ = started()

    def react(item: Item) -> None:
        if item == b"1":
            transport.feed(b"2")
            transport.feed_eof()
            assert engine.ends == []

    engine.react = react
    transport.feed(b"1")
    assert engine.items == [b"1", b"2"] and engine.ends == [None]
    with pytest.raises(RuntimeError, match="feed after feed_eof"):
        transport.feed(b"3")


async def test_the_engine_may_send_while_it_is_fed() -> None:
    transport, engine, sent, _ = started()
    engine.react = lambda item: transport.send_nowait(b"answer to " + bytes(item))  # type: ignore[arg-type]
    transport.feed(b"1")
    assert sent == [b"answer to 1"]  # delivered inside the owner's `feed`


async def test_a_close_while_fed_stops_the_rest_and_later_feeds_are_dropped() -> None:
    transport, engine, sent, closed = started()

    def react(item: Item) -> None:
        if item == b"1":
            transport.feed(b"2")  # waits behind 1: the close below comes first
            transport.close()

    engine.react = react
    transport.feed(b"1")
    assert engine.items == [b"1"] and closed == [True]
    transport.feed(b"3")  # a frame still arriving after the engine closed: nobody reads on
    transport.feed_eof()
    assert engine.items == [b"1"] and engine.ends == []
    with pytest.raises(ConnectionResetError):
        transport.send_nowait(b"late")
    with pytest.raises(ConnectionResetError):
        await transport.send(b"late")
    assert sent == [] and closed == [True]


async def test_send_goes_to_write_where_the_owner_gives_one() -> None:
    delivered: list[bytes] = []
    written: list[bytes] = []

    async def write(message: bytes) -> None:
        written.append(message)

    transport = MessageTransport(delivered.append, lambda: None, write=write)
    await transport.send(b"awaited")
    transport.send_nowait(b"not awaited")
    assert written == [b"awaited"] and delivered == [b"not awaited"]
    transport.close()
    with pytest.raises(ConnectionResetError):
        await transport.send(b"late")
