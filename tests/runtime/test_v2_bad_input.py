"""Bad input on a v2 connection gets the black-box guarantees of docs/runtime.md, as on v1: a
clear error naming what is wrong, the connection and work in flight untouched."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import acp_schema as v1
import acp_schema_v2 as v2
from acp_runtime.versions import AgentRoute, AgentVersions

from .v2peers import AgentV1, AgentV2, raw_v2_client


async def test_invalid_json_answers_parse_error_with_null_id() -> None:
    conn, peer = await raw_v2_client()
    peer.send_bytes(b'{"jsonrpc": "2.0", "id": 7, "method": \n\xff\xfe\n')
    for _ in range(2):
        answer = await peer.recv()
        assert answer["id"] is None and answer["error"]["code"] == -32700
    await peer.barrier()


async def test_json_that_is_no_message_answers_invalid_request() -> None:
    conn, peer = await raw_v2_client()
    for junk in (b'"text"', b"42", b'{"jsonrpc": "2.0"}', b'{"id": 3, "method": "session/new"}'):
        peer.send_bytes(junk + b"\n")
        assert (await peer.recv())["error"]["code"] == -32600, junk
    await peer.barrier()


async def test_unknown_and_other_side_methods_answer_method_not_found() -> None:
    conn, peer = await raw_v2_client()
    assert (await peer.call(1, "session/teleport", {}))["error"]["code"] == -32601
    answer = await peer.call(2, "session/request_permission", {"sessionId": "s"})
    assert answer["error"]["code"] == -32601


async def test_invalid_params_answer_with_the_failing_path_in_data() -> None:
    conn, peer = await raw_v2_client()
    answer = await peer.call(3, "session/new", {"cwd": 5})
    assert answer["error"]["code"] == -32602
    assert answer["error"]["data"]["path"] == "$.params.cwd", answer


async def test_notifications_are_never_answered_even_when_invalid_or_unknown() -> None:
    conn, peer = await raw_v2_client()
    peer.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": 5}})
    peer.send({"jsonrpc": "2.0", "method": "session/teleported", "params": {}})
    await peer.barrier()


async def test_response_to_unknown_id_is_logged_and_dropped(caplog: Any) -> None:
    conn, peer = await raw_v2_client()
    with caplog.at_level(logging.WARNING, logger="acp_runtime"):
        peer.send({"jsonrpc": "2.0", "id": 999, "result": {}})
        await peer.barrier()
    assert "unknown id 999" in caplog.text


async def test_an_extension_request_with_scalar_params_is_invalid() -> None:
    conn, peer = await raw_v2_client()
    assert (await peer.call(4, "_ext", 5))["error"]["code"] == -32600


async def test_blank_lines_are_skipped_and_eof_mid_line_takes_the_last_message() -> None:
    conn, peer = await raw_v2_client()
    peer.send_bytes(b"\n\r\n  \n" + b'{"jsonrpc": "2.0", "id": 9, "method": "_ping", "params": {}}')
    peer.close()
    assert await peer.recv() == {"jsonrpc": "2.0", "id": 9, "result": {"pong": True}}
    await conn.wait_closed()


async def test_a_line_over_the_limit_is_answered_and_the_connection_lives_on() -> None:
    conn, peer = await raw_v2_client(max_line_bytes=1000)
    peer.send({"jsonrpc": "2.0", "id": 41, "method": "_ping", "params": {"pad": "z" * 5000}})
    answer = await peer.recv()
    assert answer["id"] == 41 and answer["error"]["code"] == -32600
    await peer.barrier()


async def test_duplicate_ids_and_garbage_do_not_lose_work_in_flight() -> None:
    release = asyncio.Event()

    class Slow(AgentV2):
        async def ext_method(self, method: str, params: Any) -> Any:
            if method == "_slow":
                await release.wait()
                return {"done": True}
            return await super().ext_method(method, params)

    conn, peer = await raw_v2_client(
        AgentVersions(AgentRoute(1, v1, AgentV1), AgentRoute(2, v2, Slow))
    )
    peer.send({"jsonrpc": "2.0", "id": 5, "method": "_slow", "params": {}})
    peer.send({"jsonrpc": "2.0", "id": 5, "method": "_slow", "params": {}})
    peer.send_bytes(b"\xff garbage\n{not json}\n")
    codes = [(await peer.recv())["error"]["code"] for _ in range(3)]
    assert codes == [-32600, -32700, -32700]
    release.set()
    assert await peer.recv() == {"jsonrpc": "2.0", "id": 5, "result": {"done": True}}
    assert not conn.closed
