"""Requests in flight from the peer are bounded (issue 40, item 5): a peer that floods requests
and never reads its answers cannot make a connection grow without bound. At `max_in_flight`
requests received and not yet answered, the connection reads no more of the peer (its transport
is paused) until half of them are answered; then it reads on, and every request is answered."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from acp_runtime import ClientSideConnection
from acp_runtime.jsonrpc.framing import PushReader
from acp_runtime.jsonrpc.serving import DEFAULT_MAX_IN_FLIGHT
from acp_runtime.jsonrpc.transport import SLICE

REQUESTS = 20_000
BOUND = 16


class Answers:
    """The connection's output: the answers it wrote, counted."""

    def __init__(self) -> None:
        self.count = 0

    def write(self, data: bytes) -> None:
        self.count += data.count(b"\n")

    async def drain(self) -> None:
        return None


def _flood() -> list[bytes]:
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": i, "method": "_x/slow", "params": {}}).encode() + b"\n"
        for i in range(REQUESTS)
    ]
    data = b"".join(lines)
    return [data[i : i + 65536] for i in range(0, len(data), 65536)]  # as a pipe hands them


async def test_a_flood_of_requests_stops_reading_at_the_bound_then_every_one_is_answered() -> None:
    release = asyncio.Event()
    started = peak = 0
    conn: Any = None

    class Handler:
        async def ext_method(self, method: str, params: Any) -> Any:
            nonlocal started, peak
            started += 1
            peak = max(peak, len(conn.serving))
            await release.wait()
            return {}

    reader, out = PushReader(), Answers()
    conn = ClientSideConnection(Handler(), reader, out, enforce_protocol=False, max_in_flight=BOUND)
    for chunk in _flood():
        reader.feed_data(chunk)
        await asyncio.sleep(0)
    for _ in range(100):  # loop turns enough to hand on every line, were nothing paused
        await asyncio.sleep(0)
    # the bound, plus what was left of the slice of lines being handed on when it was reached
    assert BOUND <= started <= BOUND + SLICE, started
    assert len(conn.serving) == started and out.count == 0
    release.set()
    turns = 0
    while out.count < REQUESTS and turns < 200_000:  # bounded: no clock
        await asyncio.sleep(0)
        turns += 1
    assert out.count == REQUESTS and started == REQUESTS
    assert peak <= BOUND + SLICE, peak  # never more in flight than the bound (and one slice)
    await conn.close()


async def test_below_the_bound_nothing_is_paused() -> None:
    """A peer with fewer requests in flight than the bound is read on as they come."""
    release = asyncio.Event()
    started = 0

    class Handler:
        async def ext_method(self, method: str, params: Any) -> Any:
            nonlocal started
            started += 1
            await release.wait()
            return {}

    reader, out = PushReader(), Answers()
    conn = ClientSideConnection(Handler(), reader, out, enforce_protocol=False)
    assert DEFAULT_MAX_IN_FLIGHT == 1024  # the documented default
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": i, "method": "_x/slow", "params": {}}).encode() + b"\n"
        for i in range(DEFAULT_MAX_IN_FLIGHT - 1)
    ]
    reader.feed_data(b"".join(lines))
    for _ in range(100):
        await asyncio.sleep(0)
    assert started == DEFAULT_MAX_IN_FLIGHT - 1
    release.set()
    for _ in range(100):
        await asyncio.sleep(0)
    assert out.count == DEFAULT_MAX_IN_FLIGHT - 1
    await conn.close()
