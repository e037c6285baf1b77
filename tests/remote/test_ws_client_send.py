"""connect_agent over WebSocket writes each message as the text frame websockets would (its
`_masked_text`, in one step): the same header for every length form, masked with a fresh key,
read back whole by websockets' own server, in order."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, Side

import acp_schema as acp
from acp_runtime.http import connect_agent
from acp_runtime.http.client import _masked_text

SIZES = (0, 1, 125, 126, 127, 65535, 65536, 70000)


def test_a_frame_is_the_one_websockets_writes_but_for_the_mask_key() -> None:
    for size in SIZES:
        data = ("é" * size).encode()[:size]
        ours = _masked_text(data)
        theirs = Frame(Opcode.TEXT, data).serialize(mask=True)
        head = len(theirs) - size - 4
        assert len(ours) == len(theirs) and ours[:head] == theirs[:head], size
        server = Protocol(Side.SERVER, max_size=None)
        server.receive_data(ours)
        (frame,) = server.events_received()
        assert (frame.opcode, frame.fin, bytes(frame.data)) == (Opcode.TEXT, True, data), size
    keys = {_masked_text(b"x")[2:6] for _ in range(20)}
    assert len(keys) > 1  # a fresh key per frame


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
