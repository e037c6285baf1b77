"""The proxy-chain sentences of the default schemas (v1 and v2: the descriptions of
`proxy/initialize` and `proxy/successor`), rows ACP-V1-PROXY-* and ACP-V2-PROXY-*.

The conductor's router (`acp_runtime.proxy.conduct.Conductor`) runs in process with a client and
three components (two proxies and an agent) whose connections record what they are sent; the
proxy's router (`acp_runtime.proxy.ProxyRouter`, what `run_proxy` serves) likewise, with a
pass-through proxy. The same sentences over real pipes: tests/proxy/.
"""

from __future__ import annotations

import asyncio
import json
from types import ModuleType
from typing import Any

import pytest

import acp_schema
import acp_schema_v2
from acp_runtime.proxy import Proxy, ProxyRouter
from acp_runtime.proxy.conduct import Conductor, Link
from acp_runtime.proxy.envelope import initialize_method

pytest_plugins = ["tests.runtime.aio"]
requirement = pytest.mark.requirement
HOPS = ("client", "proxy 1", "proxy 2", "agent")


def rows(row: str) -> pytest.MarkDecorator:
    """Run the test on v1 and v2, each proving its version's row."""
    return pytest.mark.parametrize(
        "pkg",
        [
            pytest.param(acp_schema, marks=requirement(f"ACP-V1-PROXY-{row}"), id="v1"),
            pytest.param(acp_schema_v2, marks=requirement(f"ACP-V2-PROXY-{row}"), id="v2"),
        ],
    )


class Chain:
    """A conductor whose four connections record the lines they are sent."""

    def __init__(self, pkg: ModuleType) -> None:
        self.sent: list[list[bytes]] = [[] for _ in HOPS]
        links = [Link(hop, self.sent[i].append) for i, hop in enumerate(HOPS)]
        self.conductor = Conductor(links, initialize_method(pkg), notice=self.sent[0].append)

    def send(self, hop: int, message: dict[str, Any] | bytes) -> None:
        line = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.conductor.receive(hop, line)

    def take(self, hop: int) -> list[Any]:
        """What `hop` was sent since the last look, decoded."""
        out = [json.loads(line) for line in self.sent[hop]]
        self.sent[hop].clear()
        return out

    def raw(self, hop: int) -> bytes:
        out = b"".join(self.sent[hop])
        self.sent[hop].clear()
        return out


def init_params(pkg: ModuleType) -> dict[str, Any]:
    if pkg is acp_schema_v2:
        return {"protocolVersion": 2, "info": {"name": "client", "version": "1"}}
    return {"protocolVersion": 1, "clientCapabilities": {}}


def answer_for(pkg: ModuleType, version: int) -> dict[str, Any]:
    """A successor's initialize answer, valid for the version's schema."""
    if pkg is acp_schema_v2:
        info = {"name": "agent", "version": "1"}
        return {"protocolVersion": version, "info": info, "capabilities": {"_meta": {"x": 1}}}
    return {"protocolVersion": version, "agentCapabilities": {"_meta": {"x": 1}}}


def capabilities(answer: Any) -> Any:
    """The agent capabilities of an initialize answer (v1 and v2 name them differently)."""
    return (
        answer.agent_capabilities if hasattr(answer, "agent_capabilities") else answer.capabilities
    )


def initialized(pkg: ModuleType) -> tuple[Chain, list[Any]]:
    """The client's initialize through both proxies: what each component was sent, in order."""
    chain = Chain(pkg)
    chain.send(0, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init_params(pkg)})
    seen = chain.take(1)
    for hop in (1, 2):
        request = seen[-1]
        wrapped = {"method": "initialize", "params": request["params"]}
        chain.send(hop, {"jsonrpc": "2.0", "id": 9, "method": "proxy/successor", "params": wrapped})
        seen += chain.take(hop + 1)
    return chain, seen


@rows("CONDUCTOR-PROXY-INITIALIZE")
def test_the_conductor_sends_proxy_initialize_to_each_proxy(pkg: ModuleType) -> None:
    _, seen = initialized(pkg)
    assert [m["method"] for m in seen[:2]] == ["proxy/initialize", "proxy/initialize"]


@rows("CONDUCTOR-AGENT-INITIALIZE")
def test_the_conductor_sends_initialize_to_the_final_agent(pkg: ModuleType) -> None:
    _, seen = initialized(pkg)
    assert seen[2]["method"] == "initialize" and len(seen) == 3


@rows("CONDUCTOR-SELECTED-VERSION")
def test_each_component_is_sent_the_clients_protocol_version(pkg: ModuleType) -> None:
    _, seen = initialized(pkg)
    assert [m["params"] for m in seen] == [init_params(pkg)] * 3


class PassThrough(Proxy[Any, Any]):
    pass


class Typed(Proxy[Any, Any]):
    """Builds its initialize answer: from the successor's (adding a capability), or without
    asking it (`skip`), or with another protocol version (`version`)."""

    def __init__(self, skip: bool = False, version: int | None = None) -> None:
        self.skip, self.version = skip, version

    async def initialize(self, params: Any) -> Any:
        if self.skip:
            return {"protocolVersion": params.protocol_version, "agentCapabilities": {}}
        answer = await self.successor.initialize(params)
        caps = capabilities(answer)
        caps.meta = {**caps.meta, "typedProxy": True}  # what this proxy adds to the chain's
        if self.version is not None:
            answer.protocol_version = self.version
        return answer


def router(pkg: ModuleType, proxy: Proxy[Any, Any] | None = None) -> tuple[ProxyRouter, list[Any]]:
    out: list[bytes] = []
    return ProxyRouter(proxy or PassThrough(), pkg, out.append), out  # type: ignore[return-value]


def decoded(out: list[Any]) -> list[Any]:
    found = [json.loads(line) for line in out]
    out.clear()
    return found


async def initialize_proxy(
    pkg: ModuleType, answer: dict[str, Any], typed: Proxy[Any, Any] | None = None
) -> tuple[list[Any], Any]:
    """proxy/initialize to a pass-through proxy (or `typed`): what it sent before its successor
    answered, and its answer once the successor answered `answer`."""
    proxy, out = router(pkg, typed)
    request = {"jsonrpc": "2.0", "id": 4, "method": "proxy/initialize", "params": init_params(pkg)}
    await proxy.receive(json.dumps(request).encode())
    for _ in range(20):  # a typed initialize runs as a task: until it has sent something
        if out:
            break
        await asyncio.sleep(0)
    before = decoded(out)
    if before and "method" not in before[0]:  # answered without asking the successor
        return [], before
    reply = {"jsonrpc": "2.0", "id": before[0]["id"], "result": answer}
    await proxy.receive(json.dumps(reply).encode())
    for _ in range(20):
        if out:
            break
        await asyncio.sleep(0)
    return before, decoded(out)


ANSWER = {"protocolVersion": 1, "agentCapabilities": {"loadSession": True, "_meta": {"x": 1}}}


@rows("INITIALIZE-FORWARD-FIRST")
async def test_a_proxy_forwards_initialize_through_proxy_successor_before_it_answers(
    pkg: ModuleType,
) -> None:
    before, after = await initialize_proxy(pkg, ANSWER)
    assert [m["method"] for m in before] == ["proxy/successor"]  # and no answer yet
    assert before[0]["params"] == {"method": "initialize", "params": init_params(pkg)}
    assert [m["id"] for m in after] == [4]


@rows("INITIALIZE-FROM-SUCCESSOR")
async def test_a_pass_through_proxy_answers_with_the_chains_capabilities(pkg: ModuleType) -> None:
    _, after = await initialize_proxy(pkg, ANSWER)
    assert after[0]["result"]["agentCapabilities"] == ANSWER["agentCapabilities"]


@rows("INITIALIZE-VERSION-UNCHANGED")
async def test_a_proxy_answers_the_protocol_version_its_successor_chose(pkg: ModuleType) -> None:
    for version in (1, 2, 7):
        _, after = await initialize_proxy(pkg, {**ANSWER, "protocolVersion": version})
        assert after[0]["result"]["protocolVersion"] == version


ODD = b'{ "b" :[1, 2.50 ,"\\u00e9"],"a":  null }'  # spacing, order, escapes: kept byte for byte


@rows("SUCCESSOR-ANSWER-UNCHANGED")
def test_the_wrapped_requests_result_and_error_come_back_as_the_same_json(pkg: ModuleType) -> None:
    chain = Chain(pkg)
    for key, value in (
        (b"result", ODD),
        (b"error", b'{"code": -32001 ,"message":"no","data":[ 1]}'),
    ):
        chain.send(
            1,
            {
                "jsonrpc": "2.0",
                "id": "p",
                "method": "proxy/successor",
                "params": {"method": "_x/go"},
            },
        )
        (request,) = chain.take(2)
        chain.send(2, b'{"jsonrpc":"2.0","id":%d,"%s":%s}' % (request["id"], key, value))
        assert chain.raw(1) == b'{"jsonrpc":"2.0","id":"p","%s":%s}\n' % (key, value)


@rows("SUCCESSOR-CONDUCTOR-ERRORS")
def test_when_a_component_ends_the_conductors_own_error_names_it(pkg: ModuleType) -> None:
    chain = Chain(pkg)
    chain.send(0, {"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {}})
    assert chain.conductor.fail_pending("the agent (a.py) exited with code 1") == 1
    (error,) = chain.take(0)
    assert error == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {
            "code": -32603,
            "message": "proxy chain ended: the agent (a.py) exited with code 1;"
            " session/prompt got no answer",
        },
    }


@rows("SUCCESSOR-CANCEL-ON-HOP")
def test_a_cancel_names_the_request_of_its_own_connection_on_each_hop(pkg: ModuleType) -> None:
    chain = Chain(pkg)
    chain.send(
        1, {"jsonrpc": "2.0", "id": 70, "method": "proxy/successor", "params": {"method": "_x/go"}}
    )
    (forwarded,) = chain.take(2)
    chain.send(1, {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 70}})
    assert chain.take(2) == [
        {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": forwarded["id"]}}
    ]
    assert chain.take(0) == chain.take(1) == chain.take(3) == []  # no other hop hears of it
    chain.send(0, {"jsonrpc": "2.0", "id": 5, "method": "session/prompt", "params": {}})
    (prompt,) = chain.take(1)
    chain.send(0, {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 5}})
    assert chain.take(1) == [
        {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": prompt["id"]}}
    ]
    assert chain.take(2) == chain.take(3) == []


@rows("SUCCESSOR-PARAMS-UNCHANGED")
def test_the_wrapped_requests_params_reach_the_successor_byte_for_byte(pkg: ModuleType) -> None:
    chain = Chain(pkg)
    chain.send(
        2,
        b'{"jsonrpc":"2.0","id":1,"method":"proxy/successor","params":{"method":"_x/go","params":%s}}'
        % ODD,
    )
    assert chain.raw(3) == b'{"jsonrpc":"2.0","id":1,"method":"_x/go","params":%s}\n' % ODD
    chain.send(3, b'{"jsonrpc":"2.0","id":"a","method":"_x/ask","params":%s}' % ODD)  # wrapped back
    wrapped = b'{"method":"_x/ask","params":%s}' % ODD
    assert (
        chain.raw(2)
        == b'{"jsonrpc":"2.0","id":1,"method":"proxy/successor","params":%s}\n' % wrapped
    )


@rows("SUCCESSOR-NOTIFICATION-PARAMS-UNCHANGED")
def test_the_wrapped_notifications_params_cross_byte_for_byte(pkg: ModuleType) -> None:
    chain = Chain(pkg)
    chain.send(
        1,
        b'{"jsonrpc":"2.0","method":"proxy/successor","params":{"method":"_x/note","params":%s}}'
        % ODD,
    )
    assert chain.raw(2) == b'{"jsonrpc":"2.0","method":"_x/note","params":%s}\n' % ODD
    chain.send(3, b'{"jsonrpc":"2.0","method":"session/update","params":%s}' % ODD)
    wrapped = b'{"method":"session/update","params":%s}' % ODD
    assert chain.raw(2) == b'{"jsonrpc":"2.0","method":"proxy/successor","params":%s}\n' % wrapped


@rows("SUCCESSOR-PARAMS-STRUCTURED")
def test_wrapped_params_that_are_not_an_object_or_array_are_refused(pkg: ModuleType) -> None:
    chain = Chain(pkg)
    for params in (3, "x", True):
        inner = {"method": "_x/go", "params": params}
        chain.send(1, {"jsonrpc": "2.0", "id": 1, "method": "proxy/successor", "params": inner})
        (error,) = chain.take(1)
        assert error["error"]["code"] == -32602 and "object or array" in error["error"]["message"]
    assert chain.take(2) == []
    inner = {"method": "_x/go", "params": None}  # null: the same as none
    chain.send(1, {"jsonrpc": "2.0", "id": 2, "method": "proxy/successor", "params": inner})
    assert chain.take(2) == [{"jsonrpc": "2.0", "id": 1, "method": "_x/go"}]


@rows("SUCCESSOR-META-HOP-LOCAL")
def test_the_envelopes_meta_is_not_copied_into_the_unwrapped_message(pkg: ModuleType) -> None:
    chain = Chain(pkg)
    inner = {"method": "_x/go", "params": {"_meta": {"inner": 1}}, "_meta": {"hop": "local"}}
    chain.send(1, {"jsonrpc": "2.0", "id": 1, "method": "proxy/successor", "params": inner})
    assert chain.take(2) == [
        {"jsonrpc": "2.0", "id": 1, "method": "_x/go", "params": {"_meta": {"inner": 1}}}
    ]


@rows("INITIALIZE-FORWARD-FIRST")
async def test_a_typed_initialize_that_answers_before_forwarding_is_an_error(
    pkg: ModuleType,
) -> None:
    before, after = await initialize_proxy(pkg, ANSWER, Typed(skip=True))
    assert before == [] and after[0]["error"]["code"] == -32603
    assert "answered proxy/initialize before forwarding initialize" in after[0]["error"]["message"]


@rows("INITIALIZE-FROM-SUCCESSOR")
async def test_a_typed_initialize_builds_its_answer_from_the_successors(pkg: ModuleType) -> None:
    version = 2 if pkg is acp_schema_v2 else 1
    before, after = await initialize_proxy(pkg, answer_for(pkg, version), Typed())
    assert before[0]["params"]["method"] == "initialize"
    result = after[0]["result"]
    caps = result["capabilities" if pkg is acp_schema_v2 else "agentCapabilities"]
    assert caps["_meta"] == {"x": 1, "typedProxy": True} and result["protocolVersion"] == version


@rows("INITIALIZE-VERSION-UNCHANGED")
async def test_a_typed_initialize_that_changes_the_version_is_an_error(pkg: ModuleType) -> None:
    _, after = await initialize_proxy(pkg, answer_for(pkg, 1), Typed(version=9))
    assert after[0]["error"]["code"] == -32603
    assert "changed protocolVersion to 9; its successor's is 1" in after[0]["error"]["message"]
