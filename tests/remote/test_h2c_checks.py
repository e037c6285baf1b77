"""The h2c client (acp_runtime.http.h2conn) runs h2's checks of an outgoing request head once per
distinct head, not per request: a head h2 refuses is still refused, every time it is sent, and
nothing reaches the server; good heads pass, again and again."""

from __future__ import annotations

import functools

import httpx
import pytest

from acp_runtime.http import AcpApp
from acp_runtime.http.h2conn import H2Connection, StreamBroken

from .agents import HistoryAgent, Store
from .helpers import served

JSON = {"content-type": "application/json"}


@pytest.mark.parametrize("bad", [{"connection": "close"}, {"te": "gzip"}, {"host": "elsewhere"}])
async def test_a_head_h2_refuses_is_refused_every_time(bad: dict[str, str]) -> None:
    async with served(AcpApp(functools.partial(HistoryAgent, store=Store()))) as base:
        conn = H2Connection(base + "/acp", httpx.Headers(bad), httpx.Cookies(), 5.0)
        try:
            for _ in range(2):
                with pytest.raises(StreamBroken, match="could not send the request"):
                    await conn.post(b"{}", JSON, 1 << 20)
            assert not conn._streams
        finally:
            await conn.aclose()


async def test_good_heads_pass_request_after_request() -> None:
    async with served(AcpApp(functools.partial(HistoryAgent, store=Store()))) as base:
        conn = H2Connection(base + "/acp", httpx.Headers({"x-trace": "1"}), httpx.Cookies(), 5.0)
        try:
            for session in ("a", "b", "a", "b"):  # no connection id: each answered 400
                headers = {**JSON, "acp-session-id": session}
                answer = await conn.post(b'{"jsonrpc":"2.0","method":"x"}', headers, 1 << 20)
                assert answer.status_code == 400
        finally:
            await conn.aclose()
