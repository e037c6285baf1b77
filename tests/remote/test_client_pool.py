"""How connect_agent makes its HTTP clients: no TLS context loaded for http://, one TLS context per
process for https://, and a client of the caller's shared by many connections."""

from __future__ import annotations

import asyncio
import functools
import ssl
from typing import Any

import httpx
import pytest

from acp_runtime.http import AcpApp, connect_agent

from .agents import HistoryAgent, Store
from .helpers import served
from .test_connect_agent import INIT, NEW, Handler, prompt


async def _turn(conn: Any, handler: Handler, text: str) -> None:
    await conn.agent.initialize(INIT)
    session = (await conn.agent.session_new(NEW)).session_id
    await conn.agent.session_prompt(prompt(session, text))
    await asyncio.wait_for(handler.received(text), 10)


@pytest.mark.parametrize("http2", [None, True], ids=["http/1.1", "h2c"])
async def test_an_http_connection_loads_no_tls_context(
    http2: bool | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded: list[Any] = []
    real = ssl.SSLContext.load_verify_locations

    def counting(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loaded.append(args or kwargs)
        real(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counting)
    async with served(AcpApp(functools.partial(HistoryAgent, store=Store()))) as base:
        handler = Handler()
        async with connect_agent(base + "/acp", handler, http2=http2) as conn:
            await _turn(conn, handler, "hello")
    assert loaded == []


def test_one_tls_context_per_process_and_alpn_list() -> None:
    from acp_runtime.http.remote import tls_context

    assert tls_context("https", True, True) is tls_context("https", True, True)
    assert tls_context("https", True, True) is not tls_context("https", True, False)
    assert tls_context("https", False, True) is not tls_context("https", True, True)
    plain = tls_context("http", True, True)
    assert plain is tls_context("http", False, False)
    assert plain.cert_store_stats()["x509_ca"] == 0  # nothing loaded: http:// needs none
    own = ssl.create_default_context()
    assert tls_context("https", own, True) is own


async def test_a_client_of_the_callers_carries_many_connections_and_stays_open() -> None:
    sent: list[str] = []

    async def record(request: httpx.Request) -> None:
        sent.append(request.method)

    shared = httpx.AsyncClient(
        event_hooks={"request": [record]}, timeout=httpx.Timeout(30, read=None)
    )
    try:
        async with served(AcpApp(functools.partial(HistoryAgent, store=Store()))) as base:

            async def one(text: str) -> None:
                handler = Handler()
                async with connect_agent(base + "/acp", handler, client=shared) as conn:
                    await _turn(conn, handler, text)

            await asyncio.gather(*(one(f"hello {i}") for i in range(5)))
        assert not shared.is_closed
        # each connection: initialize, session/new and the prompt POSTed, two SSE streams, DELETE
        assert sent.count("POST") >= 15 and sent.count("GET") >= 10
        assert sent.count("DELETE") == 5
    finally:
        await shared.aclose()
