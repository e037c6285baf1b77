"""Runtime behaviours no other test pinned (issue 41), each named after what a user sees: requests
received before the end of input are answered even when their handler outlives the inbox, a line
of exactly the size limit is accepted whatever chunks it comes in, and a tool call's `add_text`
appends."""

from __future__ import annotations

import asyncio

import acp_schema as acp
from acp_runtime.helpers import AgentSession
from acp_runtime.jsonrpc.framing import LineReader, OversizedLine

from .helpers import Agent, raw_client
from .test_helpers import run

# --- after end of input, requests already received are still answered ---------------------------


async def test_after_end_of_input_requests_received_are_answered_by_handlers_still_running() -> (
    None
):
    end_of_input = asyncio.Event()

    class Slow(Agent):
        async def ext_method(self, method, params):
            if method == "_quick":
                return {"quick": True}
            await end_of_input.wait()
            # still running when the connection has read the end and its inbox has drained: the
            # worker sees the end within a loop turn or two, this handler answers much later
            await asyncio.sleep(0.1)
            return {"late": True}

    async def reached_end_of_input() -> str:
        end_of_input.set()
        return "the peer closed the connection (end of input)"

    conn, peer = await raw_client(Slow)
    conn.describe_eof = reached_end_of_input
    peer.send({"jsonrpc": "2.0", "id": 1, "method": "_slow", "params": {}})
    peer.send({"jsonrpc": "2.0", "id": 2, "method": "_quick", "params": {}})
    peer.send({"jsonrpc": "2.0", "method": "_note", "params": {}})  # the inbox has work too
    peer.close()
    answers = {}
    for _ in range(2):
        answer = await peer.recv()
        answers[answer["id"]] = answer["result"]
    assert answers == {1: {"late": True}, 2: {"quick": True}}
    await asyncio.wait_for(conn.wait_closed(), 5)  # and then the connection closes


# --- the line limit, exactly at the limit ---------------------------------------------------------


class Chunks:
    """A byte stream that gives its chunks one `read` at a time, as a pipe does."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)

    async def read(self, n: int = -1) -> bytes:
        await asyncio.sleep(0)
        return self.chunks.pop(0) if self.chunks else b""


async def lines_of(chunks: list[bytes], limit: int) -> list[bytes | OversizedLine]:
    reader = LineReader(Chunks(chunks), limit)
    out: list[bytes | OversizedLine] = []
    while (line := await reader.readline()) is not None:
        out.append(line)
    return out


async def test_a_line_of_exactly_the_limit_arriving_in_chunks_is_accepted() -> None:
    line = b"z" * 12
    for chunks in (
        [line[:4], line[4:8], line[8:], b"\n"],  # the whole line before its newline
        [line[:6], line[6:] + b"\n"],
        [b"ok\n" + line[:5], line[5:], b"\nafter\n"],
    ):
        lines = await lines_of(chunks, limit=12)
        assert line in lines and not any(isinstance(x, OversizedLine) for x in lines), chunks
    # one byte more is over the limit, however it comes
    assert await lines_of([line[:6], line[6:], b"z\n"], limit=12) == [
        OversizedLine(13, line + b"z")
    ]


# --- ToolCall.add_text appends --------------------------------------------------------------------


async def test_a_tool_calls_add_text_appends_a_content_item_each_time() -> None:
    async def script(s: AgentSession) -> None:
        async with s.tool_call("Explain", kind="think") as call:
            await call.add_text("first")
            await call.add_text("second")

    _, session, _ = await run(script)
    (call,) = session.state.tool_calls.values()
    assert [c.content.text for c in call.content if isinstance(c, acp.Content)] == [
        "first",
        "second",
    ]
    assert call.status == acp.ToolCallStatus.COMPLETED
