"""connect_agent over WebSocket reads and writes frames as websockets does:

- each message goes out as one text frame of every length form, read back whole and in order;
- frames the server writes packed or cut anywhere (a frame's rest in the next chunk, a ping
  between messages, fragments) are read whole and in order; the payload of a binary frame is
  never read as frames of its own; oversized, masked or non-UTF-8 frames fail the connection.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

import acp_schema as acp
from acp_runtime import ConnectionClosedError
from acp_runtime.http import connect_agent


async def test_messages_of_every_length_form_reach_the_server_whole_and_in_order() -> None:
    received: list[Any] = []
    names = [("n" * size) for size in (1, 200, 70_000)]

    async def handler(socket: ServerConnection) -> None:
        async for message in socket:
            request = json.loads(message)
            received.append(request)
            answer = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
            await socket.send(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": answer}))

    async with serve(handler, "127.0.0.1", 0, compression=None, max_size=None) as server:
        port = list(server.sockets)[0].getsockname()[1]
        async with connect_agent(f"ws://127.0.0.1:{port}/acp", None) as conn:
            for name in names:
                info = acp.Implementation(name=name, version="1")
                request = acp.InitializeRequest(protocol_version=1, client_info=info)
                await asyncio.wait_for(conn.agent.initialize(request), 5)
    assert [r["params"]["clientInfo"]["name"] for r in received] == names


ANSWER = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}


def server_frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    """A server's frame (unmasked)."""
    size = len(payload)
    head = bytes(((0x80 if fin else 0) | opcode,))
    if size < 126:
        head += bytes((size,))
    elif size < 65536:
        head += bytes((126,)) + size.to_bytes(2, "big")
    else:
        head += bytes((127,)) + size.to_bytes(8, "big")
    return head + payload


def update_json(text: str) -> bytes:
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    params = {"sessionId": "s1", "update": chunk}
    return json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params}).encode()


def update(text: str) -> bytes:
    return server_frame(0x1, update_json(text))


async def client_sees(writes: list[bytes], **options: Any) -> list[str]:
    """The updates connect_agent handles when the server answers its initialize with `writes`
    (each written to the socket on its own, a moment apart), then the answer."""
    seen: list[str] = []

    class Client(acp.ClientHandler):
        async def session_update(self, params: acp.SessionNotification) -> None:
            assert isinstance(params.update, acp.SessionUpdateAgentMessageChunk)
            assert isinstance(params.update.content, acp.TextContent)
            seen.append(params.update.content.text)

    async def handler(socket: ServerConnection) -> None:
        request = json.loads(await socket.recv())
        for data in writes:
            socket.transport.write(data)
            await asyncio.sleep(0.05)
        answer = {"jsonrpc": "2.0", "id": request["id"], "result": ANSWER}
        socket.transport.write(server_frame(0x1, json.dumps(answer).encode()))
        await socket.wait_closed()

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = list(server.sockets)[0].getsockname()[1]
        url = f"ws://127.0.0.1:{port}/acp"
        async with connect_agent(url, Client(), **options) as conn:
            request = acp.InitializeRequest(protocol_version=1)
            await asyncio.wait_for(conn.agent.initialize(request), 5)
    return seen


async def test_frames_packed_or_cut_anywhere_are_read_whole_and_in_order() -> None:
    two, five, text = update("two"), update("five"), update_json("six")
    writes = [
        update("one") + two[:5],  # a whole frame, and the start of the next one
        two[5:] + update("three"),  # the rest of it: websockets' (its parser is mid-frame)
        update("four") + five,  # plain, packed: taken at once
        server_frame(0x9, b"ping?") + update("4.5"),  # a ping first: websockets'
        server_frame(0x1, text[:10], fin=False),  # a fragmented message
        server_frame(0x0, text[10:]),
        update("seven"),
    ]
    seen = await client_sees(writes)
    assert seen == ["one", "two", "three", "four", "five", "4.5", "six", "seven"]


async def test_the_rest_of_a_cut_frame_is_never_read_as_frames_of_its_own() -> None:
    inner = update("not a message")  # what the rest of a binary frame's payload looks like
    outer = server_frame(0x2, inner)
    head = len(outer) - len(inner)  # websockets reads the header, then waits for the payload
    seen = await client_sees([outer[:head], outer[head:], update("after")])
    assert seen == ["after"]  # the binary message dropped whole, nothing read inside it


@pytest.mark.parametrize(
    "bad",
    [
        [server_frame(0x1, b'{"jsonrpc": "2.0", "x": "\xff"}')],  # not UTF-8
        # masked by the server (what follows it would make its length byte, read as a length
        # without the mask bit, end the chunk)
        [bytes((0x81, 0x80 | 4)) + b"\x00\x00\x00\x00" + b"{}{}" + b" " * 124],
        [server_frame(0x1, b" " * 5000 + b"{}")],  # over max_message_bytes
        # a new text message where the fragmented one's continuation must come
        [server_frame(0x1, b'{"jsonrpc": ', fin=False), update("inside")],
        [server_frame(0x2, b"binary", fin=False), update("inside")],
    ],
)
async def test_a_bad_plain_looking_frame_fails_the_connection(bad: list[bytes]) -> None:
    with pytest.raises(ConnectionClosedError):
        await client_sees(bad, max_message_bytes=4096)
