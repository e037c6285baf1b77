"""JSON-RPC 2.0 batches: ACP has none (the newest v2 schema has no batch branch, and the newest v2
SDKs removed them), so a batch is an invalid request on every connection, v1 and v2 alike: one
-32600 answer with id null, none of its entries served; a batch of notifications only is never
answered (no notification is). The HTTP and WebSocket side: tests/remote/test_bad_requests.py."""

from __future__ import annotations

from typing import Any

from .helpers import raw_client
from .v2peers import AgentV2, both_agents, raw_v2_client


def request(request_id: int, method: str = "_work") -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {}}


NOTE = {"jsonrpc": "2.0", "method": "_note", "params": {}}


class Recording(AgentV2):
    """The v2 test agent, remembering every extension call it serves."""

    served: list[str] = []

    async def ext_method(self, method: str, params: Any) -> Any:
        self.served.append(method)
        return {"pong": True}

    async def ext_notification(self, method: str, params: Any) -> None:
        self.served.append(method)


def is_invalid_request(answer: Any) -> bool:
    return isinstance(answer, dict) and answer["id"] is None and answer["error"]["code"] == -32600


async def test_a_batch_of_requests_is_one_invalid_request_and_none_is_served() -> None:
    Recording.served = []
    conn, peer = await raw_v2_client(both_agents(Recording))
    peer.send([request(1), request(2)])
    assert is_invalid_request(await peer.recv())
    await peer.barrier()  # the next line is the barrier's answer: no entry was answered
    assert Recording.served == ["_ping"]  # the barrier alone
    peer.close()


async def test_notifications_in_a_batch_get_no_answer_entries() -> None:
    # the batch is refused as a whole (one -32600, not an answer to any entry), nothing in it
    # handled, and no notification answered
    Recording.served = []
    conn, peer = await raw_v2_client(both_agents(Recording))
    peer.send([NOTE, request(3), NOTE])
    assert is_invalid_request(await peer.recv())
    await peer.barrier()
    assert Recording.served == ["_ping"]  # the barrier alone
    peer.close()


async def test_a_batch_of_notifications_only_gets_no_answer() -> None:
    Recording.served = []
    conn, peer = await raw_v2_client(both_agents(Recording))
    peer.send([NOTE, NOTE])
    await peer.barrier()  # the next line is the barrier's answer: nothing answered the batch
    assert Recording.served == ["_ping"]  # the barrier alone
    peer.close()


async def test_an_empty_batch_is_one_invalid_request() -> None:
    conn, peer = await raw_v2_client()
    peer.send([])
    assert is_invalid_request(await peer.recv())
    await peer.barrier()  # and the connection goes on
    peer.close()


async def test_a_batch_inside_a_batch_is_one_invalid_request() -> None:
    conn, peer = await raw_v2_client()
    peer.send([[request(6)], request(7)])
    assert is_invalid_request(await peer.recv())
    await peer.barrier()
    peer.close()


async def test_a_malformed_batch_is_a_parse_error() -> None:
    conn, peer = await raw_v2_client()
    peer.send_bytes(b'[{"jsonrpc": "2.0", "id": 1\n')
    answer = await peer.recv()
    assert answer["id"] is None and answer["error"]["code"] == -32700
    await peer.barrier()
    peer.close()


async def test_a_v1_connection_refuses_a_batch_the_same_way() -> None:
    conn, peer = await raw_client()
    peer.send([request(1), request(2)])
    assert is_invalid_request(await peer.recv())
    peer.send_bytes(b'[{"jsonrpc": "2.0", "id": 1\n')  # not JSON at all: a parse error
    answer = await peer.recv()
    assert answer["id"] is None and answer["error"]["code"] == -32700
    await peer.barrier()
    peer.close()
