"""The pass-through proxy on the wire, this test playing its conductor: the normative sentences of
`proxy/initialize` and `proxy/successor` in the default schemas (v1 and v2)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PROXY = str(Path(__file__).parent / "peers" / "pass_proxy.py")


class Wire:
    def __init__(self, version: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, PROXY, version], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def read(self) -> Any:
        assert self.proc.stdout is not None
        return json.loads(self.proc.stdout.readline())


@pytest.fixture(params=["1", "2"])
def wire(request: pytest.FixtureRequest) -> Iterator[Wire]:
    w = Wire(request.param)
    yield w
    assert w.proc.stdin is not None
    w.proc.stdin.close()
    assert w.proc.wait(timeout=10) == 0


INIT = {"protocolVersion": 1, "clientCapabilities": {}, "_meta": {"k": 1}}
ANSWER = {"protocolVersion": 1, "agentCapabilities": {"x": [1, 2]}, "_meta": {"a": "b"}}


def test_initialize_is_forwarded_first_and_its_answer_comes_back_unchanged(wire: Wire) -> None:
    wire.send({"jsonrpc": "2.0", "id": 7, "method": "proxy/initialize", "params": INIT})
    out = wire.read()
    assert out["method"] == "proxy/successor" and "id" in out
    assert out["params"] == {"method": "initialize", "params": INIT}
    wire.send({"jsonrpc": "2.0", "id": out["id"], "result": ANSWER})
    assert wire.read() == {"jsonrpc": "2.0", "id": 7, "result": ANSWER}


def test_a_request_from_the_successor_goes_on_plain_without_the_envelope_meta(wire: Wire) -> None:
    inner = {"method": "_ext/ask", "params": {"q": [1, None], "_meta": {"inner": True}}}
    envelope = {**inner, "_meta": {"hop": "local"}}
    wire.send({"jsonrpc": "2.0", "id": "s1", "method": "proxy/successor", "params": envelope})
    out = wire.read()
    assert out == {"jsonrpc": "2.0", "id": out["id"], **inner}
    error = {"code": -32001, "message": "no", "data": {"why": "x"}}
    wire.send({"jsonrpc": "2.0", "id": out["id"], "error": error})
    assert wire.read() == {"jsonrpc": "2.0", "id": "s1", "error": error}


def test_an_unknown_method_and_a_notification_from_the_client_are_wrapped_unchanged(
    wire: Wire,
) -> None:
    wire.send({"jsonrpc": "2.0", "method": "_ext/note", "params": {"n": 1}})
    assert wire.read() == {
        "jsonrpc": "2.0",
        "method": "proxy/successor",
        "params": {"method": "_ext/note", "params": {"n": 1}},
    }
    wire.send({"jsonrpc": "2.0", "id": 1, "method": "_ext/do", "params": [1, 2]})
    out = wire.read()
    assert out["params"] == {"method": "_ext/do", "params": [1, 2]}
    wire.send({"jsonrpc": "2.0", "id": out["id"], "result": None})
    assert wire.read() == {"jsonrpc": "2.0", "id": 1, "result": None}


def test_a_cancel_stays_on_its_hop_naming_the_proxys_own_request(wire: Wire) -> None:
    wire.send({"jsonrpc": "2.0", "id": 5, "method": "_ext/slow", "params": {}})
    out = wire.read()
    wire.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 5}})
    assert wire.read() == {
        "jsonrpc": "2.0",
        "method": "$/cancel_request",
        "params": {"requestId": out["id"]},
    }
    cancelled = {"code": -32800, "message": "Request cancelled"}
    wire.send({"jsonrpc": "2.0", "id": out["id"], "error": cancelled})
    assert wire.read() == {"jsonrpc": "2.0", "id": 5, "error": cancelled}
