"""The RFD's Streamable HTTP flows, spoken by hand over HTTP/2 (h2c) against AcpApp."""

from __future__ import annotations

import contextlib
import functools
from typing import Any, AsyncIterator

from acp_runtime.http import AcpApp

from .agents import HistoryAgent, Store
from .helpers import RawClient, chunk_text, prompt, request, served

NEW = {"cwd": "/tmp", "mcpServers": []}


_APPS: dict[int, AcpApp] = {}


def _app_of(client: RawClient) -> AcpApp:
    return _APPS[id(client)]


@contextlib.asynccontextmanager
async def connected(store: Store | None = None, **app_options: Any) -> AsyncIterator[RawClient]:
    app = AcpApp(functools.partial(HistoryAgent, store=store or Store()), **app_options)
    async with served(app) as base:
        client = RawClient(base)
        _APPS[id(client)] = app
        try:
            yield client
        finally:
            await client.aclose()


async def new_session(client: RawClient, connection_stream: Any, request_id: int = 1) -> str:
    response = await client.post(request(request_id, "session/new", NEW))
    assert response.status_code == 202 and response.content == b""
    answer = await connection_stream.next()
    assert answer["id"] == request_id
    return answer["result"]["sessionId"]


async def test_initialize_is_answered_in_the_post_body_with_the_connection_id() -> None:
    async with connected() as client:
        response = await client.initialize()
        assert response.http_version == "HTTP/2"
        assert response.headers["content-type"] == "application/json"
        assert response.json()["result"]["protocolVersion"] == 1
        assert len(response.headers["acp-connection-id"]) >= 16


async def test_session_new_is_answered_on_the_connection_stream() -> None:
    async with connected() as client:
        await client.initialize()
        stream = await client.open()
        session = await new_session(client, stream)
        assert session.startswith("s-")


async def test_a_prompt_streams_its_updates_and_answer_on_the_session_stream() -> None:
    async with connected() as client:
        await client.initialize()
        session = await new_session(client, await client.open())
        session_stream = await client.open(session)
        response = await client.post(prompt(2, session, "hello"), session)
        assert response.status_code == 202
        update = await session_stream.next()
        assert update["method"] == "session/update" and chunk_text(update) == "hello"
        assert await session_stream.next() == {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {"stopReason": "end_turn"},
        }


async def test_messages_sent_before_the_session_stream_opens_wait_for_it() -> None:
    async with connected() as client:
        await client.initialize()
        session = await new_session(client, await client.open())
        assert (await client.post(prompt(2, session, "early"), session)).status_code == 202
        session_stream = await client.open(session)
        assert chunk_text(await session_stream.next()) == "early"
        assert (await session_stream.next())["id"] == 2


async def test_a_permission_request_is_answered_with_a_session_scoped_post() -> None:
    async with connected() as client:
        await client.initialize()
        session = await new_session(client, await client.open())
        session_stream = await client.open(session)
        await client.post(prompt(2, session, "permission"), session)
        asked = await session_stream.next()
        assert (
            asked["method"] == "session/request_permission"
            and asked["params"]["sessionId"] == session
        )
        answer = {
            "jsonrpc": "2.0",
            "id": asked["id"],
            "result": {"outcome": {"outcome": "selected", "optionId": "yes"}},
        }
        assert (await client.post(answer, session)).status_code == 202
        assert chunk_text(await session_stream.next()) == "outcome: yes"
        assert (await session_stream.next())["id"] == 2


async def test_session_cancel_ends_the_running_prompt_with_stop_reason_cancelled() -> None:
    async with connected() as client:
        await client.initialize()
        session = await new_session(client, await client.open())
        session_stream = await client.open(session)
        await client.post(prompt(2, session, "wait"), session)
        assert chunk_text(await session_stream.next()) == "waiting"
        cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}
        assert (await client.post(cancel, session)).status_code == 202
        assert await session_stream.next() == {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {"stopReason": "cancelled"},
        }


async def test_a_new_connection_takes_a_session_up_again_with_session_load() -> None:
    store = Store()
    async with connected(store) as first:
        await first.initialize()
        session = await new_session(first, await first.open())
        session_stream = await first.open(session)
        await first.post(prompt(2, session, "remember me"), session)
        await session_stream.next()
        await session_stream.next()
        assert (await first.http.delete(first.url, headers=first.ids())).status_code == 202

        second = RawClient(first.url[: -len("/acp")])
        try:
            await second.initialize()
            assert second.connection_id != first.connection_id
            connection_stream = await second.open()
            replay = await second.open(session)  # opened before session/load, as the RFD shows
            load = request(1, "session/load", {"sessionId": session, **NEW})
            assert (await second.post(load, session)).status_code == 202
            history = [await replay.next(), await replay.next()]
            assert [m["params"]["update"]["sessionUpdate"] for m in history] == [
                "user_message_chunk",
                "agent_message_chunk",
            ]
            assert [chunk_text(m) for m in history] == ["remember me", "remember me"]
            # sent with Acp-Session-Id, the answer follows the history on the same stream
            assert (await replay.next())["id"] == 1
            assert connection_stream.events.empty()
        finally:
            await second.aclose()


async def test_session_load_without_acp_session_id_is_answered_on_the_connection_stream() -> None:
    store = Store()
    async with connected(store) as first:
        await first.initialize()
        session = await new_session(first, await first.open())
        second = RawClient(first.url[: -len("/acp")])
        try:
            await second.initialize()
            connection_stream = await second.open()
            load = request(1, "session/load", {"sessionId": session, **NEW})
            assert (
                await second.post(load)
            ).status_code == 202  # as the official Python SDK sends it
            assert (await connection_stream.next())["id"] == 1
        finally:
            await second.aclose()


async def test_delete_ends_the_connection_and_its_streams() -> None:
    async with connected() as client:
        await client.initialize()
        stream = await client.open()
        response = await client.http.delete(client.url, headers=client.ids())
        assert response.status_code == 202
        assert await stream.next() is None  # the stream ended
        again = await client.post(request(5, "session/new", NEW))
        assert again.status_code == 404


async def test_the_affinity_cookie_is_set_on_the_initialize_answer() -> None:
    async with connected(affinity_cookie="acp_node=a") as client:
        response = await client.initialize()
        assert response.headers["set-cookie"].startswith("acp_node=a;")


async def test_a_connection_without_requests_or_open_streams_is_closed_after_idle_timeout() -> None:
    async with connected(idle_timeout=0.1) as client:
        await client.initialize()
        (remote,) = _app_of(client).connections.values()
        await remote.conn.wait_closed()
        assert (await client.post(request(1, "session/new", NEW))).status_code == 404


async def test_a_silent_stream_gets_keepalive_comments_and_still_carries_messages() -> None:
    """The SSE loop's keepalive clock (one timer, set again after what was sent): comments come
    in a silence, and a message after them still arrives."""
    import asyncio

    import httpx

    async with connected(keepalive=0.15) as client:
        await client.initialize()
        seen = b""
        async with httpx.AsyncClient(http2=True, http1=False) as http:
            headers = {"accept": "text/event-stream", **client.ids()}
            async with http.stream("GET", client.url, headers=headers) as response:
                assert response.status_code == 200
                chunks = response.aiter_bytes()

                async def read_until(marker: bytes, seconds: float = 5) -> bool:
                    """Whether `marker` came within `seconds` (a bounded read: a stream with
                    nothing to send keeps still, and the test must not wait on it for ever)."""
                    nonlocal seen
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(seconds):
                            while marker not in seen:
                                seen += await chunks.__anext__()
                    return marker in seen

                keepalives = b": keepalive\n\n: keepalive\n\n"  # two periods of 0.15 s
                assert await read_until(keepalives), f"no keepalive comments in 5 s: {seen!r}"
                assert b"data:" not in seen
                posted = await client.post(request(7, "session/new", NEW))
                assert posted.status_code == 202
                assert await read_until(b'"id":7'), f"no answer in 5 s after {seen!r}"


async def test_a_read_stream_keeps_its_connection_past_idle_timeout_then_the_clock_runs() -> None:
    import asyncio

    async with connected(idle_timeout=0.2) as client:
        await client.initialize()
        (remote,) = _app_of(client).connections.values()
        stream = await client.open()
        await asyncio.sleep(0.7)  # over three idle timeouts with a reader there
        assert not remote.conn.closed
        await stream.close()
        await client.clients[-1].aclose()  # its HTTP/2 connection goes: the server sees it leave
        await asyncio.wait_for(remote.conn.wait_closed(), 5)
