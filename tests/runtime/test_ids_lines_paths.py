"""Three things no other test pinned: a string id never answers an integer one, a long message
written after another in the same loop turn keeps its own line, and an invalid-params error names
the field as it is on the wire."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from acp_runtime import AgentSideConnection, memory_pipe
from acp_runtime.jsonrpc.framing import LineWriter

from .bounded import within
from .helpers import Agent, RawPeer, raw_client


async def test_a_response_with_the_string_form_of_a_pending_id_resolves_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    (a_in, a_out), (p_in, p_out) = memory_pipe()
    conn = AgentSideConnection(Agent, a_in, a_out, enforce_protocol=False)
    peer = RawPeer(p_in, p_out)
    call = asyncio.ensure_future(conn.request("_ext/ask", {}))
    request = await peer.recv()
    assert isinstance(request["id"], int), request
    with caplog.at_level(logging.WARNING, logger="acp_runtime"):
        peer.send({"jsonrpc": "2.0", "id": str(request["id"]), "result": {"from": "string id"}})
        await peer.barrier()
    assert (
        not call.done()
    ), f"the answer to id {str(request['id'])!r} resolved request {request['id']}"
    assert f"unknown id {str(request['id'])!r}" in caplog.text or "unknown id" in caplog.text
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"from": "integer id"}})
    assert await within(call, "the answer under the integer id resolved nothing") == {
        "from": "integer id"
    }


async def test_a_response_with_the_integer_form_of_a_pending_string_id_resolves_nothing() -> None:
    """The same the other way: the agent's request answered under the other JSON type."""
    conn, peer = await raw_client()
    peer.send({"jsonrpc": "2.0", "id": "7", "method": "_ping", "params": {}})
    peer.send({"jsonrpc": "2.0", "id": 7, "method": "_ping", "params": {}})
    answers = [await peer.recv(), await peer.recv()]
    assert sorted((type(a["id"]).__name__, a["id"]) for a in answers) == [
        ("int", 7),
        ("str", "7"),
    ], "requests 7 and '7' are two requests, each answered once under its own id"
    assert all(a.get("result") == {"pong": True} for a in answers), answers


class _Recorder:
    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    async def drain(self) -> None:
        return None


@pytest.mark.parametrize("size", [64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 200 * 1024])
@pytest.mark.parametrize("place", ["second", "third", "last"])
async def test_a_long_message_written_later_in_a_loop_turn_keeps_its_own_line(
    size: int, place: str
) -> None:
    stream = _Recorder()
    out = LineWriter(stream)
    big = b'{"pad":"' + b"x" * (size - 10) + b'"}'
    messages = {
        "second": [b'{"n":1}', big, b'{"n":3}', b'{"n":4}'],
        "third": [b'{"n":1}', b'{"n":2}', big, b'{"n":4}'],
        "last": [b'{"n":1}', b'{"n":2}', big],
    }[place]
    for message in messages:
        out.write_nowait(message)
    await asyncio.sleep(0)  # the end of the loop turn
    sent = b"".join(stream.writes)
    assert sent.endswith(b"\n"), "the last message lacks its newline"
    lines = sent.split(b"\n")[:-1]
    assert [len(line) for line in lines] == [len(m) for m in messages], "lines merged or split"
    assert lines == messages
    for line in lines:
        json.loads(line)


async def test_an_invalid_params_error_names_the_wire_field_not_the_python_attribute() -> None:
    conn, peer = await raw_client()
    answer = await peer.call(3, "session/prompt", {"sessionId": 5, "prompt": []})
    assert answer["id"] == 3 and answer["error"]["code"] == -32602, answer
    assert answer["error"]["data"]["path"] == "$.params.sessionId", answer
    link = {"type": "image", "data": "aGk=", "mimeType": 5}
    answer = await peer.call(4, "session/prompt", {"sessionId": "s1", "prompt": [link]})
    assert answer["error"]["code"] == -32602, answer
    assert answer["error"]["data"]["path"] == "$.params.prompt[0].mimeType", answer
