"""The agent's send path per `session/update`: what `notify` costs on the sending side, from the
call to the bytes handed to the writer (the rules, the schema check, the encoding), with a writer
that never waits. Three ways of sending the same `agent_message_chunk`:

- `struct`: a generated `SessionNotification` through `conn.notify` (what the generated proxy's
  `session_update` does: the bench agent of the pipe section);
- `wire`: the same update as wire JSON (a dict) through `conn.notify`;
- `helper`: `AgentSession.say(text)` (acp_runtime.helpers), which builds it from wire JSON.

The coroutine of one send never suspends here, so each case is timed as one `send(None)`.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Coroutine

import acp_schema as acp
from acp_runtime import AgentSideConnection
from acp_runtime.helpers import AgentSession

from .harness import Settings, Timing, measure

SESSION = "bench-session"
TEXT = "token 7 of the answer, "


class _Discard:
    """A stream that drops what it is given, and never asks the writer to wait."""

    class transport:  # noqa: N801 - read as `stream.transport` by the line writer
        @staticmethod
        def get_write_buffer_size() -> int:
            return 0

    def write(self, data: bytes) -> None:
        pass

    async def drain(self) -> None:
        pass

    def close(self) -> None:
        pass


class _Agent(acp.AgentHandler):
    def __init__(self, conn: AgentSideConnection) -> None:
        self.conn = conn

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        return acp.InitializeResponse(protocol_version=params.protocol_version)

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        return acp.NewSessionResponse(session_id=SESSION)


def _once(make: Callable[[], Coroutine[Any, Any, Any]]) -> Callable[[Any], None]:
    def run(_: Any) -> None:
        coro = make()
        try:
            coro.send(None)
        except StopIteration:
            return
        coro.close()
        raise RuntimeError("the send suspended: the writer asked to wait")

    return run


async def _cases() -> tuple[dict[str, tuple[Callable[[Any], Any], Any]], AgentSideConnection]:
    reader = asyncio.StreamReader()
    conn = AgentSideConnection(_Agent, reader, _Discard())
    for line in (
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n',
        b'{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}\n',
    ):
        reader.feed_data(line)
    while not conn.initialized or conn.serving:
        await asyncio.sleep(0.001)
    await asyncio.sleep(0.01)
    notify = conn.notify
    struct = acp.SessionNotification(
        session_id=SESSION,
        update=acp.SessionUpdateAgentMessageChunk(content=acp.TextContent(text=TEXT)),
    )
    wire = {
        "sessionId": SESSION,
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": TEXT},
        },
    }
    session = AgentSession(conn, SESSION)
    cases: dict[str, tuple[Callable[[Any], Any], Any]] = {
        "struct": (_once(lambda: notify("session/update", struct)), None),
        "wire": (_once(lambda: notify("session/update", wire)), None),
        "helper": (_once(lambda: session.say(TEXT)), None),
    }
    return cases, conn


def send_path(settings: Settings) -> dict[str, Any]:
    """ns per update of each way of sending (see the module docstring)."""

    async def main() -> dict[str, Timing]:
        cases, conn = await _cases()
        try:
            return measure(cases, settings)
        finally:
            await conn.close()  # what the cases wrote goes to `_Discard`

    timed = asyncio.run(main())
    return {
        "update": "agent_message_chunk of one text block",
        "ns_per_update": {name: t.as_dict() for name, t in timed.items()},
    }
