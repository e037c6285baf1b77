"""How connect_agent POSTs over plain HTTP/1.1 (acp_runtime.http.poster): each request leaves in
one write, head and body together; a keep-alive connection the server closed while idle is
reopened; a proxy in the environment keeps the POSTs on httpx, which honours it."""

from __future__ import annotations

import asyncio
import functools
from asyncio import selector_events
from typing import Any

import pytest
from hypercorn.asyncio import serve as hypercorn_serve

import acp_schema as acp
from acp_runtime.http import AcpApp, config, connect_agent
from acp_runtime.http.poster import usable

from .agents import HistoryAgent, Store
from .helpers import listening_socket, served
from .test_connect_agent import INIT, NEW, Handler, prompt


async def test_a_post_leaves_in_one_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """With its head and its body in two writes, a POST is two segments on a TCP_NODELAY socket,
    and the server wakes up twice for it."""
    writes: list[bytes] = []
    real = selector_events._SelectorSocketTransport.write

    def recording(self: Any, data: Any) -> None:
        writes.append(bytes(data))
        real(self, data)

    monkeypatch.setattr(selector_events._SelectorSocketTransport, "write", recording)
    async with served(AcpApp(functools.partial(HistoryAgent, store=Store()))) as base:
        handler = Handler()
        async with connect_agent(base + "/acp", handler) as conn:
            await conn.agent.initialize(INIT)
            session = (await conn.agent.session_new(NEW)).session_id
            await conn.agent.session_prompt(prompt(session, "one write"))
    posts = [w for w in writes if w.startswith(b"POST ")]
    assert len(posts) >= 3  # initialize, session/new, session/prompt
    for post in posts:
        head, _, body = post.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        assert len(body) == length and body.startswith(b"{"), post[:200]


async def test_a_connection_the_server_closed_while_idle_is_reopened() -> None:
    app = AcpApp(functools.partial(HistoryAgent, store=Store()))
    sock = listening_socket()
    cfg = config(app, sock)
    cfg.keep_alive_timeout = 0.2
    stop = asyncio.Event()
    asgi: Any = app
    server = asyncio.create_task(hypercorn_serve(asgi, cfg, shutdown_trigger=stop.wait))
    try:
        handler = Handler()
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/acp"
        async with connect_agent(url, handler) as conn:
            await conn.agent.initialize(INIT)
            session = (await conn.agent.session_new(NEW)).session_id
            texts = ["before", "after"]
            for i, text in enumerate(texts):
                await asyncio.sleep(0.6)  # the server closes the idle POST connection
                answer = await conn.agent.session_prompt(prompt(session, text))
                assert answer.stop_reason == acp.StopReason.END_TURN
                await asyncio.wait_for(handler.received(*texts[: i + 1]), 10)
    finally:
        stop.set()
        await server
        sock.close()


def test_a_proxy_in_the_environment_keeps_the_posts_on_httpx(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert usable("http://agent.example:8000/acp", None)
    assert not usable("http://agent.example:8000/acp", True)  # h2c: httpx
    assert not usable("https://agent.example/acp", None)  # TLS: httpx
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    assert not usable("http://agent.example:8000/acp", None)
    monkeypatch.setenv("NO_PROXY", "agent.example")
    assert usable("http://agent.example:8000/acp", None)
    monkeypatch.delenv("HTTP_PROXY")
    monkeypatch.setenv("ALL_PROXY", "socks5://proxy.example:1080")
    assert not usable("http://elsewhere.example/acp", None)


async def _hostile_server(body_bytes: int) -> tuple[asyncio.Server, str]:
    """Answers any HTTP/1.1 request with 200 and a body of `body_bytes` bytes, in 64 KiB writes."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % body_bytes)
        sent = 0
        try:
            while sent < body_bytes:
                piece = min(65536, body_bytes - sent)
                writer.write(b"x" * piece)
                await writer.drain()
                sent += piece
        except ConnectionError:
            pass  # the client gave up, as it must
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/acp"


async def test_an_answer_body_past_the_limit_fails_the_post_and_is_not_read_further() -> None:
    """A hostile server answering a POST with a body bigger than the client's message limit must not
    grow the client's memory: the POST fails naming the limit, and the connection is dropped."""
    import httpx

    from acp_runtime.http.poster import Poster, PostFailed

    server, url = await _hostile_server(64 * 1024 * 1024)
    poster = Poster(url, httpx.Headers(), httpx.Cookies(), 5.0)
    try:
        with pytest.raises(PostFailed, match="passed 100000 bytes"):
            await poster.post(b"{}", {"content-type": "application/json"}, 100_000)
        answer_ok, url_ok = await _hostile_server(10)
        ok = Poster(url_ok, httpx.Headers(), httpx.Cookies(), 5.0)
        try:
            assert (await ok.post(b"{}", {}, 100_000)).content == b"x" * 10
        finally:
            await ok.aclose()
            answer_ok.close()
    finally:
        await poster.aclose()
        server.close()


async def test_a_post_the_server_never_answers_closes_the_connection_within_read_timeout() -> None:
    """A server that takes a POST and never answers must not leave the connection (and every
    message queued behind that POST) waiting forever: the call fails within `read_timeout`,
    naming it."""
    from acp_runtime import ConnectionClosedError

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        await asyncio.sleep(3600)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/acp"
    try:
        async with connect_agent(url, Handler(), read_timeout=0.5) as conn:
            with pytest.raises(ConnectionClosedError, match=r"no answer within 0\.5 s"):
                await asyncio.wait_for(conn.agent.initialize(INIT), 10)  # not wait_for's error
    finally:
        server.close()
