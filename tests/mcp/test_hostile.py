"""Hostile input to the provider: 10,000 requests in flight and a 100 MB inner params, each
answered with its own clear error, nothing lost, nothing left behind."""

from __future__ import annotations

import asyncio

import pytest

import acp_schema as acp
from acp_runtime.mcp import MAX_MESSAGE_BYTES, limits
from tests.runtime.bounded import within

from .peers import CWD, Tools, mcp_pair


async def _served(client_options=None, **provider):
    agent, client = await mcp_pair(provider=provider, client_options=client_options)
    tools = Tools()
    registration = client.handler.provider.register("tools", tools)
    await client.agent.session_new(
        acp.NewSessionRequest(cwd=CWD, mcp_servers=[registration.declaration])
    )
    return agent, client, tools, registration


async def test_ten_thousand_requests_in_flight_are_each_answered_and_leave_nothing_behind():
    agent, client, tools, reg = await _served()
    session = agent.handler.caller.session(reg.server_id)
    calls = [asyncio.ensure_future(session.call_tool("slow")) for _ in range(10_000)]
    await within(
        _until(lambda: sum(c.done() for c in calls) == 10_000 - limits.MAX_ACTIVE_REQUESTS),
        "the requests over the bound were not refused at once",
        20,
    )
    assert tools.started == limits.MAX_ACTIVE_REQUESTS == 64
    refused = [c.exception() for c in calls if c.done()]
    assert {type(e) for e in refused} == {acp.RpcError}
    assert {e.code for e in refused} == {limits.RESOURCE_LIMIT_EXCEEDED}
    assert client.handler.provider.in_flight == 64
    tools.release.set()
    results = await within(asyncio.gather(*calls, return_exceptions=True), "calls lost", 20)
    assert sum(r == {"content": []} for r in results) == 64  # every admitted one answered
    assert client.handler.provider.in_flight == 0
    assert agent.handler.caller.in_flight == 0
    assert len(client.serving) == 0 and len(agent.serving) == 0
    # the connection still serves
    assert await session.call_tool("echo", {"text": "after"})


async def test_a_100_mb_inner_params_is_refused_by_the_provider_bound_and_the_connection_lives():
    # the framing's own line limit (128 MiB) lets it through: the provider's bound refuses it
    agent, client, tools, reg = await _served()
    session = agent.handler.caller.session(reg.server_id)
    with pytest.raises(acp.RpcError) as err:
        await session.call_tool("echo", {"text": "x" * 100_000_000})
    assert err.value.code == limits.RESOURCE_LIMIT_EXCEEDED
    assert "MCP message too large" in err.value.message
    assert err.value.data["limit"] == MAX_MESSAGE_BYTES
    assert err.value.data["bytes"] > 100_000_000
    assert tools.seen == [] and client.handler.provider.in_flight == 0
    assert await session.call_tool("echo", {"text": "after"})


async def test_a_100_mb_inner_params_is_refused_unread_by_a_bounded_framing():
    # the documented set-up: the provider's connection reads lines of MAX_MESSAGE_BYTES at most
    agent, client, tools, reg = await _served({"max_line_bytes": MAX_MESSAGE_BYTES})
    session = agent.handler.caller.session(reg.server_id)
    with pytest.raises(acp.RpcError) as err:
        await session.call_tool("echo", {"text": "x" * 100_000_000})
    assert err.value.code == -32600  # the framing's: Invalid Request
    assert f"exceeds the limit of {MAX_MESSAGE_BYTES} bytes" in err.value.message
    assert err.value.data["limit"] == MAX_MESSAGE_BYTES
    assert tools.seen == [] and client.handler.provider.in_flight == 0
    assert await session.call_tool("echo", {"text": "after"})


async def test_a_result_over_the_bound_is_refused_at_the_provider_not_sent():
    agent, client, tools, reg = await _served(max_message_bytes=1000)

    async def big(op):
        return {"content": [{"type": "text", "text": "y" * 5000}]}

    large = client.handler.provider.register("large", big)
    with pytest.raises(acp.RpcError) as err:
        await agent.handler.caller.session(large.server_id).call_tool("any")
    assert err.value.code == limits.RESOURCE_LIMIT_EXCEEDED
    assert "inner result" in err.value.message


async def _until(condition) -> None:
    while not condition():  # polled every 10 ms: a check of 10,000 futures is not free
        await asyncio.sleep(0.01)
