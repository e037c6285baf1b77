"""Methods of x-side "proxy" (`proxy/initialize`, `proxy/successor`: a conductor and its proxies).

The runtime has no proxy role yet: an agent or a client that receives one answers a request
"method not found" (-32601) and drops a notification, never hands it to its handler (not even one
that happens to have a method of that name) and goes on serving."""

from __future__ import annotations

from typing import Any

import pytest

import acp_schema as v1
import acp_schema_v2 as v2

from .helpers import Agent, Client, raw_agent, raw_client
from .v2peers import AgentV2, both_agents, raw_v2_client

PROXY_REQUESTS = [
    ("proxy/initialize", {"protocolVersion": 1, "clientCapabilities": {}}),
    ("proxy/successor", {"method": "session/new", "params": {"cwd": "/w", "mcpServers": []}}),
]
SUCCESSOR_NOTE = {"method": "session/cancel", "params": {"sessionId": "s"}}


def _snooping(base: Any, calls: list[str]) -> Any:
    """A handler class with methods named like the proxy stubs', recording any call."""

    class Snooping(base):  # type: ignore[misc, valid-type]
        async def proxy_initialize(self, params: Any) -> Any:
            calls.append("proxy_initialize")
            return {}

        async def proxy_successor(self, params: Any) -> Any:
            calls.append("proxy_successor")
            return {}

        async def proxy_successor_notification(self, params: Any) -> None:
            calls.append("proxy_successor_notification")

    return Snooping


@pytest.mark.parametrize("package", [v1, v2], ids=["v1", "v2"])
def test_the_packages_have_proxy_methods_for_the_proxy_side_only(package: Any) -> None:
    assert "proxy" in package.SIDES
    for wire, _ in PROXY_REQUESTS:
        assert package.REQUESTS[wire].side == "proxy"
    assert not hasattr(package.AgentHandler, "proxy_initialize")
    assert not hasattr(package.ClientHandler, "proxy_initialize")
    assert hasattr(package.ProxyHandler, "proxy_initialize")


async def test_a_v1_agent_answers_proxy_requests_method_not_found_and_goes_on() -> None:
    calls: list[str] = []
    conn, peer = await raw_client(_snooping(Agent, calls))
    for i, (wire, params) in enumerate(PROXY_REQUESTS, start=1):
        answer = await peer.call(i, wire, params)
        assert answer["error"]["code"] == -32601, answer
    peer.send({"jsonrpc": "2.0", "method": "proxy/successor", "params": SUCCESSOR_NOTE})
    answer = await peer.call(9, "session/new", {"cwd": "/w", "mcpServers": []})
    assert "sessionId" in answer["result"], answer
    assert calls == []


async def test_a_v2_agent_answers_proxy_requests_method_not_found_and_goes_on() -> None:
    calls: list[str] = []
    conn, peer = await raw_v2_client(both_agents(_snooping(AgentV2, calls)))
    for i, (wire, params) in enumerate(PROXY_REQUESTS, start=1):
        answer = await peer.call(i, wire, params)
        assert answer["error"]["code"] == -32601, answer
    peer.send({"jsonrpc": "2.0", "method": "proxy/successor", "params": SUCCESSOR_NOTE})
    answer = await peer.call(9, "session/new", {"cwd": "/w"})
    assert "sessionId" in answer["result"], answer
    assert calls == []


async def test_a_client_answers_proxy_requests_method_not_found() -> None:
    calls: list[str] = []
    # a client serves the agent's requests once it has initialized; the check is off here so that
    # the barrier (an extension request) is served without an initialize exchange first
    conn, peer = await raw_agent(_snooping(Client, calls)(), enforce_protocol=False)
    for i, (wire, params) in enumerate(PROXY_REQUESTS, start=1):
        answer = await peer.call(i, wire, params)
        assert answer["error"]["code"] == -32601, answer
    peer.send({"jsonrpc": "2.0", "method": "proxy/successor", "params": SUCCESSOR_NOTE})
    await peer.barrier()
    assert calls == []
