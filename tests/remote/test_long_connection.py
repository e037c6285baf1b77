"""A long connection: more requests than Hypercorn lets one keep-alive connection carry by default
(`keep_alive_max_requests`, 1,000). Over HTTP/2 Hypercorn then sends GOAWAY while the request it
just took is in flight, and that request is lost: `acp_runtime.http.serve` lifts the limit."""

from __future__ import annotations

from typing import Any

import pytest

import acp_schema as acp
from acp_runtime.http import AcpApp, connect_agent

from .helpers import served
from .test_connect_agent import INIT, NEW, Handler, prompt

REQUESTS = 1_050


class QuickAgent(acp.AgentHandler):
    def __init__(self, conn: Any) -> None:
        pass

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        return acp.InitializeResponse(protocol_version=1)

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        return acp.NewSessionResponse(session_id="s-1")

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


@pytest.mark.parametrize("http2", [None, True], ids=["http/1.1", "h2c"])
async def test_a_connection_carries_more_than_a_thousand_requests(http2: bool | None) -> None:
    async with served(AcpApp(QuickAgent)) as base:
        async with connect_agent(base + "/acp", Handler(), http2=http2) as conn:
            await conn.agent.initialize(INIT)
            session = (await conn.agent.session_new(NEW)).session_id
            for _ in range(REQUESTS):
                answer = await conn.agent.session_prompt(prompt(session, "ping"))
                assert answer.stop_reason == acp.StopReason.END_TURN
