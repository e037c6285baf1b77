"""JSON-RPC 2.0 batches on a v2 connection (v2 transports page): received and answered as a batch;
v1 connections keep answering them as before."""

from __future__ import annotations

import json

from .helpers import raw_client
from .v2peers import raw_v2_client


def request(request_id: int, method: str = "_ping") -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {}}


NOTE = {"jsonrpc": "2.0", "method": "_note", "params": {}}


async def test_a_batch_of_requests_is_answered_with_an_array_of_their_answers() -> None:
    conn, peer = await raw_v2_client()
    peer.send([request(1), request(2)])
    answers = await peer.recv()
    assert isinstance(answers, list)
    assert sorted(a["id"] for a in answers) == [1, 2]
    assert all(a["result"] == {"pong": True} for a in answers)
    peer.close()


async def test_notifications_in_a_batch_get_no_answer_entries() -> None:
    conn, peer = await raw_v2_client()
    peer.send([NOTE, request(3), NOTE])
    assert await peer.recv() == [{"jsonrpc": "2.0", "id": 3, "result": {"pong": True}}]
    peer.close()


async def test_a_batch_of_notifications_only_gets_no_answer() -> None:
    conn, peer = await raw_v2_client()
    peer.send([NOTE, NOTE])
    await peer.barrier()  # the next line is the barrier's answer: nothing answered the batch
    peer.close()


async def test_an_empty_batch_is_one_invalid_request() -> None:
    conn, peer = await raw_v2_client()
    peer.send([])
    answer = await peer.recv()
    assert answer["id"] is None and answer["error"]["code"] == -32600
    await peer.barrier()  # and the connection goes on
    peer.close()


async def test_each_bad_entry_gets_its_own_error_in_the_batch_answer() -> None:
    conn, peer = await raw_v2_client()
    peer.send([1, {"jsonrpc": "2.0", "id": 4, "method": "nope/nope", "params": {}}, request(5)])
    answers = {json.dumps(a["id"]): a for a in await peer.recv()}
    assert answers["null"]["error"]["code"] == -32600
    assert answers["4"]["error"]["code"] == -32601
    assert answers["5"]["result"] == {"pong": True}
    peer.close()


async def test_a_batch_inside_a_batch_is_an_invalid_entry() -> None:
    conn, peer = await raw_v2_client()
    peer.send([[request(6)], request(7)])
    answers = await peer.recv()
    assert {a.get("id") for a in answers} == {None, 7}
    assert next(a for a in answers if a["id"] is None)["error"]["code"] == -32600
    peer.close()


async def test_a_malformed_batch_is_a_parse_error() -> None:
    conn, peer = await raw_v2_client()
    peer.send_bytes(b'[{"jsonrpc": "2.0", "id": 1\n')
    answer = await peer.recv()
    assert answer["id"] is None and answer["error"]["code"] == -32700
    await peer.barrier()
    peer.close()


async def test_a_v1_connection_still_refuses_a_batch_with_one_invalid_request() -> None:
    conn, peer = await raw_client()
    peer.send([request(1), request(2)])
    answer = await peer.recv()
    assert isinstance(answer, dict) and answer["error"]["code"] == -32600
    peer.close()
