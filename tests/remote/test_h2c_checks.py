"""The h2c client (acp_runtime.http.h2conn) leaves a request head to h2's own checks and
normalization: a head h2 refuses (TE other than trailers, a Host that is not the authority) is
refused, every time it is sent, and nothing reaches the server; a connection-specific header is
dropped; good heads pass, request after request."""

from __future__ import annotations

import asyncio
import functools

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
