"""connect_agent over h2c (every request on the connection's one HTTP/2 connection,
acp_runtime.http.h2conn): the rules of the HTTP/1.1 path hold on it: messages reach the server in
the order they were sent (a refused one fails alone: test_connect_agent), an answer over
`max_message_bytes` or none within `read_timeout` closes the connection, and an answer larger
than HTTP/2's flow-control window arrives whole."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from acp_runtime import ConnectionClosedError
from acp_runtime.http import connect_agent

from .test_hostile_server import (
    Hostile,
    Send,
    answer_initialize,
    chunk,
    hostile,
    initialized,
    posted,
)


async def keepalives(send: Send, session: str | None) -> None:
    while True:
        await chunk(send, b": keepalive\n\n")
        await asyncio.sleep(0.2)


class Server(Hostile):
    """An ASGI server answering initialize, then each POST as `answer(message)` says (None:
    never), and keeping each GET alive with keepalives; records the POSTed messages in order."""

    def __init__(self, answer: Any) -> None:
        super().__init__(keepalives)
        self.answer = answer
        self.posted: list[Any] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await super().__call__(scope, receive, send)
        else:
            message = await posted(receive)
            if message.get("method") == "initialize":
                await answer_initialize(send)
                return
            self.posted.append(message)
            reply = self.answer(message)
            if reply is None:
                await asyncio.Event().wait()
                return
            status, body = reply
            await send({"type": "http.response.start", "status": status, "headers": []})
            await send({"type": "http.response.body", "body": body})


async def test_messages_reach_the_server_in_the_order_they_were_sent() -> None:
    server = Server(lambda message: (202, b""))
    async with hostile(server) as url:
        async with connect_agent(url, None, http2=True) as conn:
            await initialized(conn)
            await asyncio.gather(*(conn.notify("n", {"i": i}) for i in range(30)))
            for _ in range(100):
                if len(server.posted) == 30:
                    break
                await asyncio.sleep(0.05)
    assert [message["params"]["i"] for message in server.posted] == list(range(30))


async def test_an_answer_over_the_message_limit_closes_the_connection() -> None:
    async with hostile(Server(lambda message: (200, b"x" * 5000))) as url:
        async with connect_agent(url, None, http2=True, max_message_bytes=1000) as conn:
            await initialized(conn)
            with pytest.raises(ConnectionClosedError, match="passed 1000 bytes"):
                await asyncio.wait_for(conn.request("big", {}), 5)


async def test_no_answer_within_the_read_timeout_closes_the_connection() -> None:
    async with hostile(Server(lambda message: None)) as url:
        async with connect_agent(url, None, http2=True, read_timeout=1.0) as conn:
            await initialized(conn)
            with pytest.raises(ConnectionClosedError, match="no answer within 1 s"):
                await asyncio.wait_for(conn.request("slow", {}), 10)


async def test_an_answer_over_the_flow_control_window_arrives_whole() -> None:
    # h2's window is 65,535 bytes until the reader gives it back: an answer read whole in the
    # connection's callback must give it back as it comes, or the server stalls mid-answer
    def big(message: Any) -> tuple[int, bytes]:
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": {"text": "x" * 300_000}}
        return 200, json.dumps(answer).encode()

    async with hostile(Server(big)) as url:
        async with connect_agent(url, None, http2=True, read_timeout=5.0) as conn:
            await initialized(conn)
            for _ in range(3):  # each answer's window given back: the connection's too
                result = await asyncio.wait_for(conn.request("big", {}), 10)
                assert result == {"text": "x" * 300_000}
