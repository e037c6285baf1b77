"""One echo_agent.py process (`--listen`) serves a v1 client and a v2 client at once, each
connection with its version's turn."""

from __future__ import annotations

import asyncio
from typing import Any

import acp_schema as v1
import acp_schema_v2 as v2
from acp_runtime.http import connect_agent
from acp_runtime.versions import ClientRoute, ClientVersions

from .test_examples_remote import echo_agent


class Recorder:
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.idle: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def session_update(self, params: Any) -> None:
        update = params.update
        if hasattr(update, "content") and hasattr(update.content, "text"):
            self.texts.append(update.content.text)
        if getattr(update, "state", None) == "idle":
            self.idle.set_result(update.stop_reason)


class RecorderV1(Recorder, v1.ClientHandler):
    pass


class RecorderV2(Recorder, v2.ClientHandler):
    pass


async def test_one_echo_process_serves_a_v1_and_a_v2_client_at_once() -> None:
    one, two = RecorderV1(), RecorderV2()
    async with echo_agent() as url:
        async with connect_agent(url, ClientVersions(ClientRoute(1, v1, one))) as first:
            async with connect_agent(
                url, ClientVersions(ClientRoute(1, v1, RecorderV1()), ClientRoute(2, v2, two))
            ) as second:
                await first.agent.initialize(v1.InitializeRequest(protocol_version=1))
                info = v2.Implementation(name="c", version="1")
                await second.agent.initialize(v2.InitializeRequest(protocol_version=2, info=info))
                assert (first.protocol_version, second.protocol_version) == (1, 2)
                s1 = await first.agent.session_new(v1.NewSessionRequest(cwd="/w", mcp_servers=[]))
                s2 = await second.agent.session_new(v2.NewSessionRequest(cwd="/w"))
                answer = await first.agent.session_prompt(
                    v1.PromptRequest(session_id=s1.session_id, prompt=[v1.TextContent(text="a")])
                )
                assert answer.stop_reason == "end_turn" and one.texts == ["a"]
                ack = await second.agent.session_prompt(
                    v2.PromptRequest(session_id=s2.session_id, prompt=[v2.TextContent(text="b")])
                )
                assert ack.message_id and await two.idle == "end_turn"
                assert two.texts == ["b"]  # the echoed chunk
