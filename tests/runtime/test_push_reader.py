"""`framing.PushReader`: bytes a protocol pushes reach the one consumer in order, whether they came
before it attached or after, and `LineTransport` over it hands on whole lines."""

from __future__ import annotations

import asyncio
import random

import pytest

from acp_runtime.jsonrpc.framing import OversizedLine, PushReader
from acp_runtime.jsonrpc.transport import SLICE, LineTransport
from tests.runtime.test_framing import _as_read, _reference


class Pausable:
    def __init__(self) -> None:
        self.paused = False

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False


class Sink:
    def write(self, data: bytes) -> None:
        pass

    async def drain(self) -> None:
        pass


async def test_chunks_that_came_before_and_after_attaching_keep_their_order() -> None:
    reader = PushReader()
    reader.feed_data(b"1")
    got: list[bytes] = []
    ends: list[BaseException | None] = []
    reader.attach(got.append, ends.append)
    assert got == [b"1"]  # what came before: handed over by `attach`, first
    reader.feed_data(b"2")
    reader.feed_eof()
    assert got == [b"1", b"2"] and ends == [None]
    reader.feed_data(b"3")  # after the end: nothing more is handed over
    assert got == [b"1", b"2"]


async def test_lines_pushed_before_the_transport_started_come_a_loop_turn_later_in_order() -> None:
    reader = PushReader()
    reader.feed_data(b"1\n")
    transport = LineTransport(reader, Sink())
    batches: list[list[bytes | OversizedLine]] = []
    ends: list[BaseException | None] = []
    transport.start(batches.append, ends.append)
    reader.feed_data(b"2\n")  # arrives before the earlier line was handed over
    reader.feed_eof()
    assert batches == [] and ends == []  # nothing inside the owner's constructor
    await asyncio.sleep(0)
    assert batches == [[b"1"], [b"2"]] and ends == [None]


async def test_an_attached_consumer_is_handed_each_chunk_at_once() -> None:
    reader = PushReader()
    got: list[bytes] = []
    ends: list[BaseException | None] = []
    reader.attach(got.append, ends.append)
    reader.feed_data(b"a")
    assert got == [b"a"]  # in the protocol's callback, no loop turn
    error = ConnectionResetError("gone")
    reader.feed_eof(error)
    assert ends == [error]


async def test_read_serves_the_bytes_and_pauses_the_transport_past_the_limit() -> None:
    reader = PushReader(limit=4)
    transport = Pausable()
    reader.transport = transport  # type: ignore[assignment]
    reader.feed_data(b"abc")
    assert not transport.paused
    reader.feed_data(b"defg")
    assert transport.paused
    assert await reader.read(2) == b"ab"
    assert transport.paused  # 5 bytes still unread
    assert await reader.read() == b"c"
    assert await reader.read() == b"defg"
    assert not transport.paused
    reader.feed_eof()
    assert await reader.read() == b""


async def test_a_failed_input_raises_on_read_once_drained() -> None:
    reader = PushReader()
    reader.feed_data(b"x")
    reader.feed_eof(BrokenPipeError("broken"))
    assert await reader.read() == b"x"
    with pytest.raises(BrokenPipeError):
        await reader.read()


async def test_a_line_transport_over_it_hands_on_whole_lines() -> None:
    reader = PushReader()
    transport = LineTransport(reader, Sink(), max_line_bytes=8)
    batches: list[list[bytes | OversizedLine]] = []
    ends: list[BaseException | None] = []
    transport.start(batches.append, ends.append)
    reader.feed_data(b'{"a":')
    assert batches == []  # no newline yet
    reader.feed_data(b"1}\n[]\n{")
    assert batches == [[b'{"a":1}', b"[]"]]
    reader.feed_data(b'"long":"line"}\n"tail"')
    assert batches[1] == [OversizedLine(15, b'{"long":"line"}')]  # past 8 bytes: refused whole
    reader.feed_eof()
    assert batches[-1] == [b'"tail"'] and ends == [None]
    transport.close()
    reader.feed_data(b"after\n")
    assert batches[-1] == [b'"tail"']


async def test_a_burst_of_lines_is_handed_on_a_slice_per_loop_turn_in_order() -> None:
    """A pipe read of hundreds of lines reaches the engine at most 64 lines per loop turn (the
    first slice in the callback that read them), lines read meanwhile wait behind the rest, and the
    end of the input comes after the last line; once the transport is closed, nothing more."""
    reader = PushReader()
    transport = LineTransport(reader, Sink())
    calls: list[list[bytes]] = []
    ends: list[BaseException | None] = []
    transport.start(lambda lines: calls.append(list(lines)), ends.append)  # type: ignore[arg-type]
    await asyncio.sleep(0)
    reader.feed_data(b"".join(b"%d\n" % i for i in range(150)))
    assert [len(c) for c in calls] == [64]  # the first slice at once
    reader.feed_data(b"150\n151\n")  # behind the 86 lines still waiting
    reader.feed_eof()
    assert [len(c) for c in calls] == [64] and ends == []
    for _ in range(5):
        await asyncio.sleep(0)
    assert [len(c) for c in calls] == [64, 64, 22, 2]  # a slice per loop turn
    assert [line for c in calls for line in c] == [b"%d" % i for i in range(152)]
    assert ends == [None]  # after the last line

    closed = PushReader()
    transport = LineTransport(closed, Sink())
    calls.clear()
    transport.start(lambda lines: calls.append(list(lines)), ends.append)  # type: ignore[arg-type]
    await asyncio.sleep(0)
    closed.feed_data(b"x\n" * 100)
    transport.close()
    for _ in range(3):
        await asyncio.sleep(0)
    assert [len(c) for c in calls] == [64]  # closed: the rest is dropped


async def test_a_short_burst_is_handed_on_whole_in_the_callback_that_read_it() -> None:
    reader = PushReader()
    transport = LineTransport(reader, Sink())
    calls: list[list[bytes]] = []
    transport.start(lambda lines: calls.append(list(lines)), lambda error: None)  # type: ignore[arg-type]
    await asyncio.sleep(0)
    reader.feed_data(b"a\nb\n")
    assert calls == [[b"a", b"b"]]


async def test_lines_pushed_reach_the_engine_whole_in_order_a_slice_at_most_per_call() -> None:
    """Over random chunks (often cut right after a newline, some bursts over a slice, some lines
    too long), the engine is handed every line of the stream in order, at most `SLICE` lines
    per call."""
    rng = random.Random(5)
    for _ in range(200):
        messages = [b"x" * rng.choice([0, 1, 5, 9, 30]) for _ in range(rng.randint(1, 150))]
        data = b"".join(m + b"\n" for m in messages)
        cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(0, 4))))
        if rng.random() < 0.5:  # cut right after newlines
            newlines = [i + 1 for i, b in enumerate(data) if b == 10 and i + 1 < len(data)]
            cuts = sorted(rng.sample(newlines, min(len(newlines), rng.randint(0, 3))))
        chunks = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        batches: list[list[bytes | OversizedLine]] = []
        limit = rng.choice([8, 64, 1 << 20])  # some lines too long, or only some chunks, or none
        reader = PushReader()
        LineTransport(reader, Sink(), max_line_bytes=limit).start(
            lambda lines, batches=batches: batches.append(list(lines)), lambda error: None
        )
        await asyncio.sleep(0)
        for chunk in chunks:
            reader.feed_data(chunk)
            if rng.random() < 0.5:
                await asyncio.sleep(0)
        for _ in range(4):
            await asyncio.sleep(0)
        got = [line for batch in batches for line in batch]
        assert _as_read(got, messages, limit) == _reference(messages, limit), chunks
        assert all(len(batch) <= SLICE for batch in batches)


async def test_nothing_is_handed_on_once_the_transport_closed_before_the_end() -> None:
    """A closed transport detaches from its reader: bytes the protocol still pushes are kept by
    the reader, not handed on (`PushReader.feed_data` is the consumer's own callback only while
    attached)."""
    reader = PushReader()
    transport = LineTransport(reader, Sink())
    batches: list[list[bytes | OversizedLine]] = []
    transport.start(batches.append, lambda error: None)
    reader.feed_data(b"one\n")
    assert batches == [[b"one"]]
    transport.close()
    reader.feed_data(b"two\n")
    await asyncio.sleep(0)
    assert batches == [[b"one"]]
    assert await reader.read() == b"two\n"


class _NoStream:
    async def read(self, n: int = -1) -> bytes:
        raise AssertionError("split reads nothing")
