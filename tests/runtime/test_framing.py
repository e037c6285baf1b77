"""Newline-delimited framing: lines across chunks, EOF mid-line, the size limit."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from acp_runtime.jsonrpc import sniff as _sniff
from acp_runtime.jsonrpc.framing import (
    LineReader,
    LineWriter,
    OversizedLine,
    PushReader,
    memory_pipe,
)
from acp_runtime.jsonrpc.transport import LineTransport


async def read_all(data: bytes, limit: int = 1 << 20, pieces: int = 1) -> list:
    reader = asyncio.StreamReader()
    step = max(1, len(data) // pieces)
    for i in range(0, len(data), step):
        reader.feed_data(data[i : i + step])
    reader.feed_eof()
    lines = LineReader(reader, limit)
    out = []
    while (line := await lines.readline()) is not None:
        out.append(line)
    return out


async def test_lines_split_on_newlines_whatever_the_chunking() -> None:
    data = b"one\ntwo\n\nthree\n"
    for pieces in (1, 3, len(data)):
        assert await read_all(data, pieces=pieces) == [b"one", b"two", b"", b"three"]


async def test_unterminated_last_line_is_returned_at_eof() -> None:
    assert await read_all(b"a\nb") == [b"a", b"b"]


async def test_a_line_over_the_limit_is_skipped_and_reported_with_its_size_and_head() -> None:
    data = b"ok\n" + b"x" * 100 + b"\nafter\n"
    for pieces in (1, 7, 60):
        lines = await read_all(data, limit=10, pieces=pieces)
        assert lines[0] == b"ok" and lines[2] == b"after"
        assert lines[1] == OversizedLine(100, b"x" * 100)


async def test_an_oversized_line_cut_by_eof_is_reported() -> None:
    lines = await read_all(b"y" * 50, limit=10, pieces=5)
    assert lines == [OversizedLine(50, b"y" * 50)]


async def test_a_line_exactly_at_the_limit_is_accepted() -> None:
    assert await read_all(b"z" * 10 + b"\n", limit=10) == [b"z" * 10]


def test_sniff_finds_the_kind_and_top_level_id_of_a_message_head() -> None:
    assert _sniff(b'{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"id":99,') == (
        "request",
        12,
    )
    assert _sniff(b'{"jsonrpc":"2.0","method":"session/update","params":{"id":5') == (
        "notification",
        None,
    )
    assert _sniff(b'{"jsonrpc":"2.0","id":"a\\"b","result":{"text":"') == ("response", 'a\\"b')
    assert _sniff(b'{"params":{"id":7},"method":"x","id":-3}') == ("request", -3)
    assert _sniff(b"\xff\xfe garbage") == ("unknown", None)


async def test_memory_pipe_connects_two_ends() -> None:
    (a_in, a_out), (b_in, b_out) = memory_pipe()
    a_out.write(b"to b\n")
    b_out.write(b"to a\n")
    assert await b_in.readline() == b"to b\n" and await a_in.readline() == b"to a\n"
    a_out.close()
    assert await b_in.read() == b""


async def test_readlines_returns_every_line_that_has_arrived_at_once() -> None:
    reader = asyncio.StreamReader()
    reader.feed_data(b"one\ntwo\nthr")
    lines = LineReader(reader, 1 << 20)
    assert await lines.readlines() == [b"one", b"two"]
    reader.feed_data(b"ee\n")
    reader.feed_eof()
    assert await lines.readlines() == [b"three"]
    assert await lines.readlines() is None


class _Recorder:
    def __init__(self, fail: bool = False) -> None:
        self.writes: list[bytes] = []
        self.fail = fail

    def write(self, data: bytes) -> None:
        if self.fail and self.writes:
            raise ConnectionResetError("gone")
        self.writes.append(data)

    async def drain(self) -> None:
        return None


async def test_messages_written_in_one_loop_turn_go_out_in_order_in_few_writes() -> None:
    stream = _Recorder()
    out = LineWriter(stream)
    for i in range(5):
        out.write_nowait(b"m%d" % i)
    assert stream.writes == [b"m0\n"]  # the first at once, the rest at the end of the turn
    await asyncio.sleep(0)
    assert stream.writes == [b"m0\n", b"m1\nm2\nm3\nm4\n"]


async def test_a_deferred_write_that_fails_is_reported_and_fails_the_next_write() -> None:
    failures: list[BaseException] = []
    out = LineWriter(_Recorder(fail=True), on_error=failures.append)
    out.write_nowait(b"first")
    out.write_nowait(b"second")
    await asyncio.sleep(0)
    assert [type(e) for e in failures] == [ConnectionResetError]
    with pytest.raises(ConnectionResetError):
        out.write_nowait(b"third")


async def test_close_hands_over_what_is_still_buffered() -> None:
    stream = _Recorder()
    out = LineWriter(stream)
    out.write_nowait(b"a")
    out.write_nowait(b"b")
    out.close()
    assert b"".join(stream.writes) == b"a\nb\n"


async def test_an_answer_to_input_goes_out_at_once_and_schedules_nothing() -> None:
    """A message written in answer to input goes to the stream in that call, with no loop callback
    scheduled for it (a round trip costs no loop turn for the writer); a burst in answer to one
    chunk still goes out as the first message, then the rest in one write at the end of the turn."""
    reader, stream = PushReader(), _Recorder()
    transport = LineTransport(reader, stream)

    def answer(lines: list[bytes | OversizedLine]) -> None:
        for line in lines:
            assert isinstance(line, bytes)
            transport.send_nowait(b"answer-" + line)

    transport.start(answer, lambda error: None)
    loop = asyncio.get_running_loop()
    ready = loop._ready  # type: ignore[attr-defined]  # the loop's scheduled callbacks
    for i in range(3):
        before = len(ready)
        reader.feed_data(b"q%d\n" % i)
        assert stream.writes[-1] == b"answer-q%d\n" % i
        assert len(ready) == before, "a callback was scheduled for a lone answer"
        await asyncio.sleep(0)
    reader.feed_data(b"a\nb\nc\n")
    assert stream.writes[-1] == b"answer-a\n"
    await asyncio.sleep(0)
    assert stream.writes[-1] == b"answer-b\nanswer-c\n"
    assert b"".join(stream.writes).count(b"\n") == 6


def _as_read(got: list[bytes | OversizedLine], lines: list[bytes], limit: int) -> list[Any]:
    """`got` against the `lines` it should be: each line itself, or (over `limit`) its size, with
    a head that starts it (what had arrived of it when it went over)."""
    assert len(got) == len(lines), (got, lines)
    out: list[Any] = []
    for item, line in zip(got, lines, strict=True):
        if isinstance(item, OversizedLine):
            assert len(line) > limit and line.startswith(item.head) and item.head, (item, line)
            out.append(len(line) if item.size == len(line) else item)
        else:
            out.append(item)
    return out


def _reference(lines: list[bytes], limit: int) -> list[Any]:
    return [len(x) if len(x) > limit else x for x in lines]


def test_split_gives_the_lines_of_the_whole_stream_however_it_is_cut() -> None:
    """`LineReader.split` over random messages cut at random places (often right after a
    newline), with a small limit so that some lines are too long (and some span chunks): the
    lines it hands over, chunk by chunk, are those of the whole stream."""
    rng = random.Random(21)
    for _ in range(300):
        messages = [b"x" * rng.choice([0, 1, 5, 9, 30]) for _ in range(rng.randint(1, 8))]
        data = b"".join(m + b"\n" for m in messages)
        if rng.random() < 0.3:
            data += b"tail" * rng.choice([1, 3])
        cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(0, 4))))
        if rng.random() < 0.5:  # cut right after newlines
            cuts = sorted({i + 1 for i, b in enumerate(data) if b == 10 and i + 1 < len(data)})
        chunks = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)] + [b""]
        reader = LineReader(_NoStream(), 8)
        got = [line for chunk in chunks for line in reader.split(chunk)]
        lines = data.split(b"\n")
        if not lines[-1]:
            lines.pop()
        assert _as_read(got, lines, 8) == _reference(lines, 8), chunks


class _NoStream:
    async def read(self, n: int = -1) -> bytes:
        raise AssertionError("split reads nothing")


class _Buffered:
    """A stream whose transport keeps every byte written (a peer that reads nothing) until told
    to let them go, and counts how often its buffer size is asked."""

    def __init__(self) -> None:
        self.buffered = 0
        self.asked = 0
        self.drained = asyncio.Event()
        stream = self

        class Transport:
            def get_write_buffer_size(self) -> int:
                stream.asked += 1
                return stream.buffered

        self.transport = Transport()

    def write(self, data: bytes) -> None:
        self.buffered += len(data)

    async def drain(self) -> None:
        await self.drained.wait()


async def test_the_buffer_is_asked_again_only_after_bytes_were_handed_over() -> None:
    """`LineWriter.write` asks the transport's buffer size (a Python call on stock asyncio) once
    per handover, not once per message: messages that only join the ones waiting for the end of
    the loop turn add nothing to it. Back-pressure is still seen: once the bytes handed over pass
    the line, the next write waits for the drain."""
    stream = _Buffered()
    out = LineWriter(stream)
    first = out.write(b"m0")  # at once: handed over, then asked
    assert first.done() and stream.asked == 1
    for i in range(1, 50):
        assert out.write(b"m%d" % i).done()  # joins the waiting ones: nothing asked
    assert stream.asked == 1
    big = b"x" * (64 * 1024)
    full = asyncio.ensure_future(out.write(big))  # past the flush line: handed over, asked again
    assert stream.asked == 2 and stream.buffered > 64 * 1024
    waiting = asyncio.ensure_future(out.write(b"after"))  # the buffer is full: it waits
    await asyncio.sleep(0)
    assert not full.done() and not waiting.done()
    stream.buffered = 0
    stream.drained.set()
    await asyncio.gather(full, waiting)
    await asyncio.sleep(0)
    assert out.write(b"again").done()


async def test_write_hands_over_the_same_bytes_as_write_nowait() -> None:
    """`LineWriter.write` writes out `write_nowait`'s cases: for the same messages (small ones and
    ones past the flush line, over several loop turns), the stream gets the same writes."""
    import random

    rng = random.Random(21)
    turns = [
        [b"m" * rng.choice((1, 50, 30_000, 70_000)) for _ in range(rng.randint(1, 12))]
        for _ in range(30)
    ]

    class Reading(_Recorder):  # a peer that reads at once: no back-pressure
        class transport:
            @staticmethod
            def get_write_buffer_size() -> int:
                return 0

    got: list[list[bytes]] = []
    for way in ("write", "write_nowait"):
        stream = Reading()
        out = LineWriter(stream)
        for i, turn in enumerate(turns):
            for j, message in enumerate(turn):
                message = b"%d.%d:" % (i, j) + message
                if way == "write":
                    await out.write(message)
                else:
                    out.write_nowait(message)
            await asyncio.sleep(0)
        got.append(stream.writes)
    assert got[0] == got[1] and len(got[0]) > 30
