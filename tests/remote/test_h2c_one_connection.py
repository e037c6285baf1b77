"""connect_agent over h2c (acp_runtime.http.h2conn): every request of an ACP connection, POSTs,
SSE streams and DELETE, on one HTTP/2 connection; no stream waits for another; messages larger
than HTTP/2's flow-control windows pass both ways."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import acp_schema as acp
from acp_runtime.http import AcpApp, connect_agent

from .agents import HistoryAgent, Store
from .helpers import served
from .test_connect_agent import INIT, NEW, Handler, prompt


class Recording:
    """An ASGI app in front of another: which TCP connections (client ports) and HTTP versions
    its requests came on."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: list[tuple[str, int, str]] = []

    def __getattr__(self, name: str) -> Any:  # what `serve` reads of the app (limits, close)
        return getattr(self.app, name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.seen.append((scope["method"], scope["client"][1], scope["http_version"]))
        await self.app(scope, receive, send)


async def test_every_request_of_a_connection_goes_on_one_http2_connection() -> None:
    app = Recording(AcpApp(functools.partial(HistoryAgent, store=Store())))
    async with served(app) as base:  # type: ignore[arg-type]
        handler = Handler()
        async with connect_agent(base + "/acp", handler, http2=True) as conn:
            await conn.agent.initialize(INIT)
            for text in ("one", "two"):
                session = (await conn.agent.session_new(NEW)).session_id
                await conn.agent.session_prompt(prompt(session, text))
            await asyncio.wait_for(handler.received("one", "two"), 10)
        for _ in range(50):  # the DELETE may still be on its way in
            if any(method == "DELETE" for method, _, _ in app.seen):
                break
            await asyncio.sleep(0.05)
    methods = [method for method, _, _ in app.seen]
    assert methods.count("POST") == 5 and methods.count("GET") == 3 and "DELETE" in methods
    assert {version for _, _, version in app.seen} == {"2"}
    assert len({port for _, port, _ in app.seen}) == 1, app.seen


async def test_no_stream_waits_behind_idle_ones() -> None:
    """Three sessions: the connection stream and three session streams stay open and idle while
    each prompt's answer comes back (a stream queued behind an idle reader would wait for the
    next keepalive, 15 s)."""
    async with served(AcpApp(functools.partial(HistoryAgent, store=Store()))) as base:
        handler = Handler()
        async with connect_agent(base + "/acp", handler, http2=True) as conn:
            await conn.agent.initialize(INIT)
            sessions = [(await conn.agent.session_new(NEW)).session_id for _ in range(3)]
            texts = []
            for round_ in range(5):
                for i, session in enumerate(sessions):
                    texts.append(f"{round_}.{i}")
                    await asyncio.wait_for(conn.agent.session_prompt(prompt(session, texts[-1])), 5)
            await asyncio.wait_for(handler.received(*texts), 5)


async def test_messages_larger_than_the_flow_control_windows_pass_both_ways() -> None:
    big = "x" * 300_000  # past HTTP/2's initial 65,535-byte windows, of the stream and connection
    async with served(AcpApp(functools.partial(HistoryAgent, store=Store()))) as base:
        handler = Handler()
        async with connect_agent(base + "/acp", handler, http2=True) as conn:
            await conn.agent.initialize(INIT)
            session = (await conn.agent.session_new(NEW)).session_id
            for text in (big, big + "y"):
                answer = await conn.agent.session_prompt(prompt(session, text))
                assert answer.stop_reason == acp.StopReason.END_TURN
            await asyncio.wait_for(handler.received(big, big + "y"), 10)


class Hostile(Recording):
    """Answers every POST with 200 and a body of `size` bytes, in 64 KiB pieces."""

    def __init__(self, app: Any, size: int) -> None:
        super().__init__(app)
        self.size = size

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        left = self.size
        while left > 0:
            piece = min(65536, left)
            left -= piece
            await send({"type": "http.response.body", "body": b"x" * piece, "more_body": left > 0})


async def test_an_answer_left_unread_is_reset_and_the_connection_goes_on() -> None:
    """A hostile server answering a POST over h2c with a body far past what the reader takes:
    leaving the answer resets its stream (nothing more is read, the window is not given back),
    and the next request on the same HTTP/2 connection is answered whole."""
    import httpx

    from acp_runtime.http.h2conn import H2Connection

    app = Hostile(AcpApp(functools.partial(HistoryAgent, store=Store())), 8 * 1024 * 1024)
    async with served(app) as base:  # type: ignore[arg-type]
        conn = H2Connection(base + "/acp", httpx.Headers(), httpx.Cookies(), 5.0)
        try:
            async with conn.open("POST", {"content-type": "application/json"}, b"{}") as reply:
                assert reply.status == 200
                taken = 0
                async for chunk in reply.chunks:
                    taken += len(chunk)
                    if taken > 100_000:
                        break
            app.size = 10
            async with conn.open("POST", {}, b"{}") as reply:
                assert b"".join([chunk async for chunk in reply.chunks]) == b"x" * 10
        finally:
            await conn.aclose()
