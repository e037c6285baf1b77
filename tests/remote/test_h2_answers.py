"""What an `AcpApp` sends over Hypercorn's HTTP/2, read frame by frame with a bare h2 client: an
SSE stream's head
comes at once, before any event; events, whether the stream's task or the agent's task sends them,
come whole and in order; events larger than the stream's flow-control window still come whole,
in order."""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

import h2.config
import h2.connection
import h2.events
import h2.settings

from acp_runtime.http import AcpApp

from .agents import HistoryAgent, Store
from .helpers import INIT, prompt, request, served


class BareH2:
    """An h2c client connection read in the background; each stream's events in a queue."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, window: int | None
    ) -> None:
        self.reader, self.writer = reader, writer
        config = h2.config.H2Configuration(client_side=True, header_encoding=None)
        self.conn = h2.connection.H2Connection(config=config)
        self.events: dict[int, asyncio.Queue[h2.events.Event]] = {}
        self.conn.initiate_connection()
        if window is not None:  # the server's window on each stream it answers
            self.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
        self.conn.increment_flow_control_window(1 << 24)  # the connection's window: no stalls
        self._flush()
        self._task = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, base: str, window: int | None = None) -> BareH2:
        host, port = base.removeprefix("http://").split(":")
        return cls(*await asyncio.open_connection(host, int(port)), window)

    def _flush(self) -> None:
        self.writer.write(self.conn.data_to_send())

    async def _read(self) -> None:
        while data := await self.reader.read(65536):
            for event in self.conn.receive_data(data):
                stream_id = getattr(event, "stream_id", 0)
                if stream_id in self.events:
                    self.events[stream_id].put_nowait(event)
                if isinstance(event, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(
                        event.flow_controlled_length, event.stream_id
                    )
            self._flush()

    def send(self, method: str, headers: dict[str, str], body: bytes = b"") -> int:
        stream_id = self.conn.get_next_available_stream_id()
        self.events[stream_id] = asyncio.Queue()
        head = [
            (b":method", method.encode()),
            (b":scheme", b"http"),
            (b":authority", b"127.0.0.1"),
            (b":path", b"/acp"),
            *((name.encode(), value.encode()) for name, value in headers.items()),
        ]
        self.conn.send_headers(stream_id, head, end_stream=not body)
        size = self.conn.max_outbound_frame_size
        for start in range(0, len(body), size):
            piece = body[start : start + size]
            self.conn.send_data(stream_id, piece, end_stream=start + size >= len(body))
        self._flush()
        return stream_id

    async def next(self, stream_id: int) -> h2.events.Event:
        return await asyncio.wait_for(self.events[stream_id].get(), 5)

    async def answer(self, stream_id: int) -> tuple[h2.events.ResponseReceived, bytes]:
        """The head of a stream's answer and its whole body (until the stream ends)."""
        head = await self.next(stream_id)
        assert isinstance(head, h2.events.ResponseReceived), head
        body = b""
        ended = head.stream_ended is not None
        while not ended:
            event = await self.next(stream_id)
            if isinstance(event, h2.events.DataReceived):
                body += event.data
            ended = isinstance(event, h2.events.StreamEnded)
        return head, body

    async def close(self) -> None:
        self._task.cancel()
        self.writer.close()


def status(head: h2.events.ResponseReceived) -> int:
    return int(dict(head.headers or [])[b":status"])


def post(
    client: BareH2, message: Any, connection_id: str | None, session: str | None = None
) -> int:
    headers = {"content-type": "application/json"}
    if connection_id is not None:
        headers["acp-connection-id"] = connection_id
    if session is not None:
        headers["acp-session-id"] = session
    return client.send("POST", headers, json.dumps(message).encode())


async def events(client: BareH2, stream_id: int, count: int) -> list[Any]:
    """The next `count` SSE events of a stream, decoded."""
    data = b""
    while data.count(b"\n\n") < count:
        event = await client.next(stream_id)
        assert isinstance(event, h2.events.DataReceived), event
        data += event.data
    frames = [frame for frame in data.split(b"\n\n") if frame]
    assert all(frame.startswith(b"data: ") for frame in frames), frames
    return [json.loads(frame[6:]) for frame in frames]


async def test_an_sse_stream_gets_its_head_before_any_event_then_every_event_in_order() -> None:
    async with served(AcpApp(functools.partial(HistoryAgent, store=Store()))) as base:
        client = await BareH2.open(base)
        try:
            head, _ = await client.answer(post(client, INIT, None))
            connection_id = dict(head.headers or [])[b"acp-connection-id"].decode()
            ids = {"acp-connection-id": connection_id, "accept": "text/event-stream"}
            connection_stream = client.send("GET", ids)
            head = await client.next(connection_stream)  # nothing waits for it: the head alone
            assert isinstance(head, h2.events.ResponseReceived) and status(head) == 200
            assert head.stream_ended is None
            new = request(1, "session/new", {"cwd": "/", "mcpServers": []})
            await client.answer(post(client, new, connection_id))
            (answer,) = await events(client, connection_stream, 1)
            session = answer["result"]["sessionId"]
            session_stream = client.send("GET", {**ids, "acp-session-id": session})
            head = await client.next(session_stream)
            assert isinstance(head, h2.events.ResponseReceived) and status(head) == 200
            for n in range(2, 12):  # each prompt: its chunk (queued), then its answer (direct)
                await client.answer(
                    post(client, prompt(n, session, f"p{n}"), connection_id, session)
                )
                chunk, done = await events(client, session_stream, 2)
                assert chunk["method"] == "session/update"
                assert chunk["params"]["update"]["content"]["text"].endswith(f"p{n}")
                assert done["id"] == n and done["result"]["stopReason"] == "end_turn"
        finally:
            await client.close()


async def test_events_larger_than_the_stream_window_come_whole_and_in_order() -> None:
    big = "x" * 20_000  # past the 4,096-byte window of each stream: Hypercorn's own path
    async with served(AcpApp(functools.partial(HistoryAgent, store=Store()))) as base:
        client = await BareH2.open(base, window=4096)
        try:
            head, _ = await client.answer(post(client, INIT, None))
            connection_id = dict(head.headers or [])[b"acp-connection-id"].decode()
            ids = {"acp-connection-id": connection_id, "accept": "text/event-stream"}
            connection_stream = client.send("GET", ids)
            await client.next(connection_stream)
            new = request(1, "session/new", {"cwd": "/", "mcpServers": []})
            await client.answer(post(client, new, connection_id))
            (answer,) = await events(client, connection_stream, 1)
            session = answer["result"]["sessionId"]
            session_stream = client.send("GET", {**ids, "acp-session-id": session})
            await client.next(session_stream)
            for n, text in ((2, "small"), (3, big), (4, "small"), (5, big)):
                await client.answer(post(client, prompt(n, session, text), connection_id, session))
                chunk, done = await events(client, session_stream, 2)
                assert chunk["params"]["update"]["content"]["text"].endswith(text)
                assert done["id"] == n
        finally:
            await client.close()
