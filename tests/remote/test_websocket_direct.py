"""The WebSocket endpoint driven through ASGI with a fake server (no socket): frames reach the agent
in order, and what waits in a `send` the server does not finish (a client that reads nothing)
counts as unread, and past `max_buffered_bytes` closes the connection.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from acp_runtime.http import AcpApp

from .agents import HistoryAgent, Store
from .helpers import prompt, request

SCOPE = {
    "type": "websocket",
    "path": "/acp",
    "scheme": "ws",
    "headers": [(b"host", b"127.0.0.1")],
    "server": ("127.0.0.1", 8000),
}


class FakeServer:
    """An ASGI server's side of one WebSocket: events in through a queue (as Hypercorn), what the
    app sends recorded; `gate`, when set, holds every `websocket.send` until it opens."""

    def __init__(self, app: AcpApp) -> None:
        self.app = app
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.sent: list[dict[str, Any]] = []
        self.gate: asyncio.Event | None = None
        self.task: asyncio.Task[None] | None = None

    async def send(self, event: dict[str, Any]) -> None:
        if event["type"] == "websocket.send" and self.gate is not None:
            await self.gate.wait()
        self.sent.append(event)

    async def open(self, receive: Any = None) -> None:
        self.events.put_nowait({"type": "websocket.connect"})
        self.task = asyncio.create_task(
            self.app(dict(SCOPE), receive or self.events.get, self.send)
        )
        for _ in range(100):
            if any(e["type"] == "websocket.accept" for e in self.sent):
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"not accepted: {self.sent}")

    def frame(self, message: Any) -> dict[str, Any]:
        return {"type": "websocket.receive", "text": json.dumps(message)}

    def messages(self) -> list[Any]:
        return [json.loads(e["text"]) for e in self.sent if e["type"] == "websocket.send"]

    async def answer(self, request_id: int) -> Any:
        for _ in range(200):
            for message in self.messages():
                if message.get("id") == request_id and "method" not in message:
                    return message
            await asyncio.sleep(0.01)
        raise AssertionError(f"no answer to {request_id}: {self.messages()}")

    async def close(self) -> None:
        self.events.put_nowait({"type": "websocket.disconnect", "code": 1000})
        assert self.task is not None
        await asyncio.wait_for(self.task, 10)


def history_app(**options: Any) -> AcpApp:
    return AcpApp(lambda conn: HistoryAgent(conn, Store()), **options)


INIT = request(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
NEW = request(1, "session/new", {"cwd": "/tmp", "mcpServers": []})


async def initialized(app: AcpApp) -> FakeServer:
    """A socket to `app`, opened and initialized."""
    server = FakeServer(app)
    await server.open()
    server.events.put_nowait(server.frame(INIT))
    await server.answer(0)
    return server


async def test_frames_put_while_events_wait_keep_their_order() -> None:
    app = history_app()
    server = await initialized(app)
    server.events.put_nowait(server.frame(NEW))
    sid = (await server.answer(1))["result"]["sessionId"]
    for n in range(5):
        server.events.put_nowait(server.frame(prompt(10 + n, sid, f"p{n}")))
    for n in range(5):
        await server.answer(10 + n)
    chunks = [
        m["params"]["update"]["content"]["text"]
        for m in server.messages()
        if m.get("method") == "session/update"
    ]
    assert chunks == [f"p{n}" for n in range(5)]  # each prompt's echo, in the order sent
    await server.close()


async def test_a_client_that_reads_nothing_is_cut_off_at_the_buffer_limit() -> None:
    app = history_app(max_buffered_bytes=20_000)
    server = await initialized(app)
    server.events.put_nowait(server.frame(NEW))
    sid = (await server.answer(1))["result"]["sessionId"]
    server.gate = asyncio.Event()  # from now on nothing sent is taken: the client reads nothing
    for n in range(10):  # each echo of 4 KiB waits in a send that never ends
        server.events.put_nowait(server.frame(prompt(10 + n, sid, "x" * 4096)))
    for _ in range(200):
        if not app.connections:
            break
        await asyncio.sleep(0.01)
    assert not app.connections  # closed, its bytes given back
    assert app.buffered == 0
    server.gate.set()
    await server.close()
