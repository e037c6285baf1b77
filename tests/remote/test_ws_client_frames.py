"""connect_agent over WebSocket against a server speaking frames by hand (websockets' server):
the client hands on each text message whole (fragmented or not, in order), drops binary ones,
and fails the connection on a text message that is not UTF-8."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Callable

import pytest
from websockets.asyncio.server import ServerConnection, serve

import acp_schema as acp
from acp_runtime import ConnectionClosedError
from acp_runtime.http import connect_agent

ANSWER = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}


async def _served(handler: Callable[[ServerConnection], Any]) -> AsyncIterator[str]:
    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = list(server.sockets)[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}/acp"


async def _answer_with(frames: Callable[[ServerConnection, Any], Any]) -> AsyncIterator[str]:
    async def handler(socket: ServerConnection) -> None:
        request = json.loads(await socket.recv())
        await frames(socket, request["id"])
        await socket.wait_closed()

    async for url in _served(handler):
        yield url


def _answer(request_id: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": ANSWER})


async def test_binary_messages_are_dropped_and_fragmented_text_is_joined_in_order() -> None:
    notification = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": "s1",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "first"},
            },
        },
    }
    seen: list[str] = []

    class Client(acp.ClientHandler):
        async def session_update(self, params: acp.SessionNotification) -> None:
            assert isinstance(params.update, acp.SessionUpdateAgentMessageChunk)
            assert isinstance(params.update.content, acp.TextContent)
            seen.append(params.update.content.text)

    async def frames(socket: ServerConnection, request_id: Any) -> None:
        await socket.send(b"\x00binary, not ACP")
        text = json.dumps(notification)
        await socket.send([text[:10], text[10:30], text[30:]])  # one message in three frames
        await socket.send([b"\x01more ", b"binary"])  # a fragmented binary message
        answer = _answer(request_id)
        await socket.send([answer[:7], answer[7:]])

    async for url in _answer_with(frames):
        async with connect_agent(url, Client()) as conn:
            result = await asyncio.wait_for(
                conn.agent.initialize(acp.InitializeRequest(protocol_version=1)), 5
            )
            assert result.protocol_version == 1
            assert seen == ["first"]  # handled before the answer that came after it


async def test_a_text_message_that_is_not_utf8_fails_the_connection() -> None:
    async def frames(socket: ServerConnection, request_id: Any) -> None:
        await socket.send(b'{"jsonrpc": "2.0", "id": 0, "x": "\xff\xfe"}', text=True)
        await asyncio.sleep(0.2)
        await socket.send(_answer(request_id))

    async for url in _answer_with(frames):
        async with connect_agent(url, None) as conn:
            with pytest.raises(ConnectionClosedError):
                await asyncio.wait_for(
                    conn.agent.initialize(acp.InitializeRequest(protocol_version=1)), 5
                )
