"""`connect_agent` against a hostile or dead server, served by the real Hypercorn on loopback: a
silent SSE stream (keepalives count as life), a server naming a new session in every message, an
SSE line that never ends."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from typing import Any, AsyncIterator, Awaitable, Callable

import pytest
from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config

from acp_runtime import ConnectionClosedError
from acp_runtime.http import connect_agent

from .helpers import listening_socket

Send = Callable[[dict[str, Any]], Awaitable[None]]
INIT_ANSWER = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}


async def posted(receive: Any) -> Any:
    """The JSON message of a POST's body."""
    body = b""
    while True:
        event = await receive()
        body += event.get("body", b"")
        if not event.get("more_body"):
            return json.loads(body)


async def answer_initialize(send: Send) -> None:
    """Answer an initialize POST, opening connection `c1`."""
    start = [(b"content-type", b"application/json"), (b"acp-connection-id", b"c1")]
    await send({"type": "http.response.start", "status": 200, "headers": start})
    await send({"type": "http.response.body", "body": json.dumps(INIT_ANSWER).encode()})


class Hostile:
    """An ASGI server that answers initialize, then runs `stream(send, session)` for each GET."""

    def __init__(self, stream: Callable[[Send, str | None], Awaitable[None]]) -> None:
        self.stream = stream
        self.gets: list[str | None] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if scope["method"] == "POST":
            if (await posted(receive)).get("method") == "initialize":
                await answer_initialize(send)
                return
            await send({"type": "http.response.start", "status": 202, "headers": []})
            await send({"type": "http.response.body", "body": b""})
        elif scope["method"] == "GET":
            session = headers.get("acp-session-id")
            self.gets.append(session)
            start = [(b"content-type", b"text/event-stream")]
            await send({"type": "http.response.start", "status": 200, "headers": start})
            await self.stream(send, session)
        else:
            await send({"type": "http.response.start", "status": 202, "headers": []})
            await send({"type": "http.response.body", "body": b""})


@contextlib.asynccontextmanager
async def hostile(app: Hostile) -> AsyncIterator[str]:
    sock = listening_socket()
    config = Config()
    config.bind = [f"fd://{os.dup(sock.fileno())}"]  # Hypercorn takes (and closes) the fd
    config.graceful_timeout = 0.5
    stop = asyncio.Event()
    task = asyncio.create_task(hypercorn_serve(app, config, shutdown_trigger=stop.wait))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/acp"
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 10)
        sock.close()


async def chunk(send: Send, data: bytes) -> None:
    await send({"type": "http.response.body", "body": data, "more_body": True})


async def initialized(conn: Any) -> None:
    await conn.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})


@pytest.mark.parametrize("http2", [None, True], ids=["http/1.1", "h2c"])
async def test_a_silent_server_closes_the_connection_at_the_read_deadline(
    http2: bool | None,
) -> None:
    async def silent(send: Send, session: str | None) -> None:
        await asyncio.Event().wait()

    async with hostile(Hostile(silent)) as url:
        async with connect_agent(url, None, read_timeout=1.0, http2=http2) as conn:
            await initialized(conn)
            started = time.perf_counter()
            with pytest.raises(ConnectionClosedError, match="not even a keepalive"):
                await asyncio.wait_for(
                    conn.request("session/new", {"cwd": "/tmp", "mcpServers": []}), 15
                )
            assert time.perf_counter() - started < 10


async def test_keepalives_keep_a_quiet_stream_alive() -> None:
    async def quiet(send: Send, session: str | None) -> None:
        for _ in range(10):
            await asyncio.sleep(0.25)
            await chunk(send, b": keepalive\n\n")
        answer = {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s1"}}
        await chunk(send, b"data: " + json.dumps(answer).encode() + b"\n\n")
        await asyncio.Event().wait()

    async with hostile(Hostile(quiet)) as url:
        async with connect_agent(url, None, read_timeout=1.0) as conn:
            await initialized(conn)
            answer = await asyncio.wait_for(
                conn.request("session/new", {"cwd": "/tmp", "mcpServers": []}), 15
            )
            assert answer.session_id == "s1"  # 2.5 s of keepalives, past the 1 s deadline


async def test_a_server_naming_many_sessions_opens_at_most_the_cap_of_streams() -> None:
    async def many(send: Send, session: str | None) -> None:
        if session is None:
            for n in range(100):
                update = {  # each answer is POSTed about its session, whose stream opens first
                    "jsonrpc": "2.0",
                    "id": n,
                    "method": "fs/read_text_file",
                    "params": {"sessionId": f"s{n}", "path": "/etc/hostname"},
                }
                await chunk(send, b"data: " + json.dumps(update).encode() + b"\n\n")
        await asyncio.Event().wait()

    app = Hostile(many)
    async with hostile(app) as url:
        async with connect_agent(url, None, max_session_streams=5, read_timeout=None) as conn:
            await initialized(conn)
            await asyncio.sleep(1.5)
            sessions = [s for s in app.gets if s is not None]
            assert 0 < len(sessions) <= 5, len(sessions)
            assert not conn.closed


async def test_an_endless_sse_line_breaks_the_stream_without_growing() -> None:
    async def endless(send: Send, session: str | None) -> None:
        await chunk(send, b"data: ")
        for _ in range(64):
            await chunk(send, b"x" * (256 * 1024))  # 16 MiB, no newline
            await asyncio.sleep(0)
        await asyncio.Event().wait()

    async with hostile(Hostile(endless)) as url:
        async with connect_agent(url, None, max_message_bytes=1 << 20, read_timeout=None) as conn:
            await initialized(conn)
            with pytest.raises(ConnectionClosedError, match="over 1048576 bytes"):
                await asyncio.wait_for(
                    conn.request("session/new", {"cwd": "/tmp", "mcpServers": []}), 15
                )


async def test_a_request_flood_meets_at_most_max_peer_requests_handlers_at_once() -> None:
    """A server sending requests on the connection stream faster than the client answers: at
    most `max_peer_requests` are handled at once, the stream is read on as they are answered."""
    import acp_schema as acp

    total = 300

    async def flood(send: Send, session: str | None) -> None:
        if session is None:
            await asyncio.sleep(0.3)  # the session/new POST goes out first
            answer = {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s1"}}
            await chunk(send, b"data: " + json.dumps(answer).encode() + b"\n\n")
            option = {"optionId": "ok", "name": "OK", "kind": "allow_once"}
            params = {"sessionId": "s1", "toolCall": {"toolCallId": "t"}, "options": [option]}
            for n in range(total):
                request = {"jsonrpc": "2.0", "id": n, "method": "session/request_permission"}
                event = json.dumps({**request, "params": params}).encode()
                await chunk(send, b"data: " + event + b"\n\n")
        await asyncio.Event().wait()

    running, most, handled = 0, 0, 0
    release = asyncio.Event()

    class Client(acp.ClientHandler):
        async def session_request_permission(
            self, params: acp.RequestPermissionRequest
        ) -> acp.RequestPermissionResponse:
            nonlocal running, most, handled
            running += 1
            most = max(most, running)
            await release.wait()
            running, handled = running - 1, handled + 1
            return acp.RequestPermissionResponse(
                outcome=acp.SelectedPermissionOutcome(option_id="ok")
            )

    async with hostile(Hostile(flood)) as url:
        async with connect_agent(url, Client(), max_peer_requests=16, read_timeout=None) as conn:
            await initialized(conn)
            await asyncio.wait_for(conn.request("session/new", {"cwd": "/", "mcpServers": []}), 5)
            for _ in range(200):
                if running == 16:
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)
            assert running == most == 16
            release.set()
            for _ in range(500):
                if handled == total:
                    break
                await asyncio.sleep(0.01)
    assert handled == total and most == 16
