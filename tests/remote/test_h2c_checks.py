"""The h2c client (acp_runtime.http.h2conn) leaves a request head to h2's own checks and
normalization: a head h2 refuses (TE other than trailers, a Host that is not the authority) is
refused, every time it is sent, and nothing reaches the server; a connection-specific header is
dropped; good heads pass, request after request. A connection that cannot be made (refused, or
past `connect_timeout`) fails the request saying so, never as a `read_timeout`."""

from __future__ import annotations

import asyncio
import functools
import socket

import pytest

from acp_runtime import ConnectionClosedError
from acp_runtime.http import AcpApp, connect_agent

from .agents import HistoryAgent, Store
from .helpers import served
from .test_connect_agent import INIT, NEW, Handler
from .test_h2c_one_connection import Recording


@pytest.mark.parametrize("bad", [{"te": "gzip"}, {"host": "elsewhere"}])
async def test_a_head_h2_refuses_is_refused_every_time(bad: dict[str, str]) -> None:
    app = Recording(AcpApp(functools.partial(HistoryAgent, store=Store())))
    async with served(app) as base:  # type: ignore[arg-type]
        for _ in range(2):
            async with connect_agent(base + "/acp", None, headers=bad, http2=True) as conn:
                with pytest.raises(ConnectionClosedError, match="could not send the request"):
                    await asyncio.wait_for(conn.agent.initialize(INIT), 5)
    assert app.seen == []


async def test_good_heads_pass_request_after_request() -> None:
    app = Recording(AcpApp(functools.partial(HistoryAgent, store=Store())))
    async with served(app) as base:  # type: ignore[arg-type]
        headers = {"x-trace": "1", "connection": "close"}
        async with connect_agent(base + "/acp", Handler(), headers=headers, http2=True) as conn:
            await conn.agent.initialize(INIT)
            for _ in range(4):
                await conn.agent.session_new(NEW)
    assert [method for method, _, _ in app.seen].count("POST") == 5
    assert all(version == "2" for _, _, version in app.seen)


@pytest.mark.parametrize("connect_timeout", [5.0, 1e-9])  # refused; timed out (or refused first)
async def test_a_connection_that_cannot_be_made_fails_saying_so(connect_timeout: float) -> None:
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    url = f"http://127.0.0.1:{port}/acp"
    async with connect_agent(url, None, http2=True, connect_timeout=connect_timeout) as conn:
        with pytest.raises(ConnectionClosedError, match=f"could not connect to {url}") as caught:
            await asyncio.wait_for(conn.agent.initialize(INIT), 10)
    assert "read_timeout" not in str(caught.value)
