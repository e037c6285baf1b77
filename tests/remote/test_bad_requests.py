"""Bad input over HTTP gets the status (or JSON-RPC error) that names what is wrong, and the server
and the connection live on."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from typing import Any, AsyncIterator

from acp_runtime.http import AcpApp

from ..runtime.v2peers import V2_INITIALIZE, both_agents
from .agents import HistoryAgent, Store
from .helpers import RawClient, chunk_text, prompt, request, served, ws

NEW = {"cwd": "/tmp", "mcpServers": []}


@contextlib.asynccontextmanager
async def session_ready(
    http2: bool = True, **app_options: Any
) -> AsyncIterator[tuple[RawClient, str, Any]]:
    """An initialized connection with one session: (client, session id, session stream)."""
    async with served(
        AcpApp(functools.partial(HistoryAgent, store=Store()), **app_options)
    ) as base:
        client = RawClient(base, http2=http2)
        try:
            await client.initialize()
            stream = await client.open()
            await client.post(request(1, "session/new", NEW))
            session = (await stream.next())["result"]["sessionId"]
            yield client, session, await client.open(session)
        finally:
            await client.aclose()


async def still_works(client: RawClient, session: str, stream: Any, request_id: int = 99) -> None:
    assert (await client.post(prompt(request_id, session, "alive"), session)).status_code == 202
    assert chunk_text(await stream.next()) == "alive"
    assert (await stream.next())["id"] == request_id


async def test_a_method_other_than_get_post_delete_is_405_with_allow() -> None:
    async with session_ready() as (client, session, stream):
        response = await client.http.put(client.url, content=b"{}", headers=client.ids())
        assert response.status_code == 405 and response.headers["allow"] == "GET, POST, DELETE"
        await still_works(client, session, stream)


async def test_a_post_that_is_not_json_content_is_415() -> None:
    async with session_ready() as (client, session, stream):
        response = await client.post(
            prompt(2, session, "x"), session, **{"content-type": "text/plain"}
        )
        assert response.status_code == 415 and "application/json" in response.text
        await still_works(client, session, stream)


async def test_an_unknown_connection_id_is_404() -> None:
    async with session_ready() as (client, session, stream):
        response = await client.post(
            prompt(2, session, "x"), session, **{"acp-connection-id": "nope"}
        )
        assert response.status_code == 404 and "nope" not in response.text  # not reflected
        get = await client.http.get(
            client.url, headers={"accept": "text/event-stream", "acp-connection-id": "nope"}
        )
        assert get.status_code == 404
        await still_works(client, session, stream)


async def test_a_missing_connection_id_is_400() -> None:
    async with session_ready() as (client, session, stream):
        response = await client.http.post(
            client.url,
            json=request(2, "session/new", NEW),
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 400 and "Acp-Connection-Id" in response.text
        await still_works(client, session, stream)


async def test_a_session_message_without_acp_session_id_is_400() -> None:
    async with session_ready() as (client, session, stream):
        response = await client.post(prompt(2, session, "x"))
        assert response.status_code == 400 and "Acp-Session-Id" in response.text
        mismatched = await client.post(prompt(3, session, "x"), "another-session")
        assert mismatched.status_code == 400 and "mismatched" in mismatched.text
        await still_works(client, session, stream)


async def test_a_body_that_is_not_json_is_400_with_a_parse_error() -> None:
    async with session_ready() as (client, session, stream):
        response = await client.post(b'{"jsonrpc": "2.0", "id": 2, "method": ', session)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == -32700 and response.json()["id"] is None
        await still_works(client, session, stream)


async def test_json_that_is_not_an_object_is_400_and_so_is_a_batch() -> None:
    # ACP has no JSON-RPC batches (docs/runtime.md, "Batches"): an invalid request, as on stdio
    async with session_ready() as (client, session, stream):
        scalar = await client.post(b"42")
        assert scalar.status_code == 400 and scalar.json()["error"]["code"] == -32600
        batch = await client.post([prompt(2, session, "x")], session)
        assert batch.status_code == 400 and batch.json()["error"]["code"] == -32600
        assert "batch" in batch.json()["error"]["message"]
        note = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}
        notes = await client.post([note, note], session)
        assert notes.status_code == 400 and notes.json()["error"]["code"] == -32600
        await still_works(client, session, stream)


async def test_a_batch_over_websocket_is_one_invalid_request_on_a_v2_connection() -> None:
    import websockets

    async with served(AcpApp(both_agents())) as base:
        async with websockets.connect(ws(base) + "/acp") as sock:

            async def call(message: Any) -> Any:
                await sock.send(json.dumps(message))
                return json.loads(await asyncio.wait_for(sock.recv(), 10))

            answer = await call(request(0, "initialize", V2_INITIALIZE))
            assert answer["result"]["protocolVersion"] == 2
            answer = await call([request(1, "_ping", {}), request(2, "_ping", {})])
            assert answer["id"] is None and answer["error"]["code"] == -32600, answer
            await sock.send(json.dumps([{"jsonrpc": "2.0", "method": "_note", "params": {}}]))
            answer = await call(request(3, "_ping", {}))  # nothing answered the notifications
            assert answer == {"jsonrpc": "2.0", "id": 3, "result": {"pong": True}}


async def test_an_object_that_is_no_valid_message_is_answered_on_the_connection_stream() -> None:
    async with session_ready() as (client, session, stream):
        connection_stream = client.streams[0]
        response = await client.post(
            {"jsonrpc": "2.0", "id": 7, "method": "no/such_method", "params": {}}
        )
        assert response.status_code == 202
        answer = await connection_stream.next()
        assert answer["id"] == 7 and answer["error"]["code"] == -32601
        await still_works(client, session, stream)


async def test_a_get_that_does_not_accept_an_event_stream_is_406() -> None:
    async with session_ready() as (client, session, stream):
        response = await client.http.get(
            client.url, headers={"accept": "application/json", **client.ids()}
        )
        assert response.status_code == 406
        await still_works(client, session, stream)


async def test_a_second_reader_of_a_stream_is_409() -> None:
    async with session_ready() as (client, session, stream):
        headers = {"accept": "text/event-stream", **client.ids(session)}
        response = await client.http.get(client.url, headers=headers)
        assert response.status_code == 409
        await still_works(client, session, stream)


async def test_a_50_mb_message_is_served_when_the_limits_allow_it() -> None:
    # HTTP/1.1: Hypercorn's HTTP/2 keeps the 64 KiB default flow-control window, so a 50 MB upload
    # over h2c takes ~800 round trips (it works, slowly; see docs/runtime.md).
    limits = {"max_message_bytes": 64 << 20, "max_buffered_bytes": 128 << 20}
    async with session_ready(http2=False, **limits) as (client, session, stream):
        text = "x" * (50 * 1024 * 1024)
        assert (await client.post(prompt(2, session, text), session)).status_code == 202
        assert chunk_text(await stream.next()) == text
        assert (await stream.next())["id"] == 2
        await still_works(client, session, stream)


async def test_a_body_over_the_limit_is_413_naming_the_limit() -> None:
    async with session_ready(max_message_bytes=1024 * 1024) as (client, session, stream):
        response = await client.post(prompt(2, session, "x" * (2 * 1024 * 1024)), session)
        assert response.status_code == 413
        error = response.json()["error"]
        assert error["code"] == -32600 and error["data"] == {"limit": 1024 * 1024}
        await still_works(client, session, stream)


async def test_another_path_is_404() -> None:
    async with session_ready() as (client, session, stream):
        response = await client.http.post(client.url + "/x", json={}, headers=client.ids())
        assert response.status_code == 404 and "/acp" in response.text
        await still_works(client, session, stream)
