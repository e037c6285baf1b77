"""The provider and the caller of MCP over ACP, end to end over an in-memory pipe: routing by
serverId, the binding's distinct errors, cancellation, notifications in flight only."""

from __future__ import annotations

import asyncio

import pytest

import acp_schema as acp
from acp_runtime.mcp import McpProtocolError, limits
from tests.runtime.bounded import within

from .peers import CWD, Tools, mcp_pair


async def setup(**provider):
    agent, client = await mcp_pair(provider=provider)
    tools = Tools()
    registration = client.handler.provider.register("tools", tools)
    await client.agent.session_new(
        acp.NewSessionRequest(cwd=CWD, mcp_servers=[registration.declaration])
    )
    return agent, client, tools, registration


async def test_session_new_carries_the_acp_server_and_the_agent_lists_and_calls_its_tool():
    agent, client, tools, registration = await setup()
    [server] = agent.handler.servers
    assert server.name == "tools" and server.server_id == registration.server_id
    session = agent.handler.caller.session(server)
    assert [t["name"] for t in await session.list_tools()] == ["echo"]
    progress = []
    result = await session.call_tool("echo", {"text": "hi"}, on_notification=progress.append)
    assert result == {"content": [{"type": "text", "text": "hi"}]}
    assert [(n.method, n.params["progress"]) for n in progress] == [("notifications/progress", 1)]
    op = tools.seen[-1]  # the per-request MCP metadata the caller adds
    assert op.protocol_version == limits.MCP_PROTOCOL_VERSION
    assert op.client_info == {"name": "test-agent", "version": "1"}
    assert op.client_capabilities == {}


async def test_server_ids_are_generated_fresh_and_never_reused_on_a_connection():
    _, client = await mcp_pair()
    provider = client.handler.provider
    ids = {provider.register("same", Tools()).server_id for _ in range(50)}
    assert len(ids) == 50
    given = provider.register("x", Tools(), server_id="fixed")
    await given.close()
    with pytest.raises(ValueError, match="'fixed' was registered on this connection"):
        provider.register("y", Tools(), server_id="fixed")


async def test_an_unknown_server_is_answered_server_unavailable():
    agent, _, _, _ = await setup()
    with pytest.raises(acp.RpcError) as err:
        await agent.handler.caller.request("no-such-server", "tools/list")
    assert err.value.code == limits.SERVER_UNAVAILABLE == -33001
    assert err.value.data == {"serverId": "no-such-server"}


async def test_a_duplicate_active_request_id_is_invalid_params_and_the_first_goes_on():
    agent, client, tools, reg = await setup()
    caller = agent.handler.caller
    params = caller.with_meta({"name": "slow"})
    first = await agent.send_request(
        "mcp/message",
        acp.MessageMcpRequest(
            server_id=reg.server_id, request_id="r1", method="tools/call", params=params
        ),
    )
    await within(_until(lambda: tools.started == 1), "the first request never started")
    with pytest.raises(acp.RpcError) as err:
        await agent.request(
            "mcp/message",
            acp.MessageMcpRequest(
                server_id=reg.server_id, request_id="r1", method="tools/call", params=params
            ),
        )
    assert err.value.code == limits.INVALID_PARAMS
    assert err.value.data == {"serverId": reg.server_id, "requestId": "r1"}
    assert "duplicate active MCP request ID" in err.value.message
    tools.release.set()
    answer = await within(first, "the first request was lost")
    assert isinstance(answer, acp.MessageMcpResponseResult)
    # the id is free again once its request ended
    assert await caller.request(reg.server_id, "tools/list", request_id="r1")


async def test_the_same_request_id_on_two_servers_is_two_requests():
    agent, client, tools, reg = await setup()
    other = client.handler.provider.register("other", Tools())
    caller = agent.handler.caller
    a = await caller.request(reg.server_id, "tools/list", request_id="same")
    b = await caller.request(other.server_id, "tools/list", request_id="same")
    assert a == b


async def test_requests_over_the_servers_bound_are_resource_limit_exceeded():
    agent, client, tools, reg = await setup(max_message_bytes=1 << 20)
    provider = client.handler.provider
    limited = provider.register("limited", tools, max_active_requests=2)
    session = agent.handler.caller.session(limited.server_id)
    calls = [asyncio.ensure_future(session.call_tool("slow")) for _ in range(2)]
    await within(_until(lambda: tools.started == 2), "the two requests never started")
    with pytest.raises(acp.RpcError) as err:
        await session.call_tool("slow")
    assert err.value.code == limits.RESOURCE_LIMIT_EXCEEDED == -33000
    assert err.value.data["limit"] == 2
    tools.release.set()
    assert [await c for c in calls] == [{"content": []}, {"content": []}]


async def test_a_failing_backend_is_backend_failed_naming_the_failure():
    agent, _, _, reg = await setup()
    with pytest.raises(acp.RpcError) as err:
        await agent.handler.caller.session(reg.server_id).call_tool("boom")
    assert err.value.code == limits.BACKEND_FAILED == -33002
    assert err.value.data == {"details": "the tool broke"}


async def test_an_inner_mcp_error_is_a_successful_answer_raised_as_mcp_protocol_error():
    agent, _, _, reg = await setup()
    with pytest.raises(McpProtocolError) as err:
        await agent.handler.caller.session(reg.server_id).call_tool("nope")
    assert (err.value.code, err.value.message) == (-32602, "Unknown tool: nope")


async def test_inner_meta_is_checked_as_mcp_2026_07_28_requires():
    agent, _, tools, reg = await setup()
    bare = acp.MessageMcpRequest(server_id=reg.server_id, request_id="m", method="tools/list")
    answer = await agent.request("mcp/message", bare)
    assert answer.error["code"] == -32602 and "protocolVersion" in answer.error["message"]
    old = acp.MessageMcpRequest(
        server_id=reg.server_id,
        request_id="m",
        method="tools/list",
        params={"_meta": {limits.META_PROTOCOL_VERSION: "2025-06-18"}},
    )
    answer = await agent.request("mcp/message", old)
    assert answer.error["code"] == limits.MCP_UNSUPPORTED_VERSION
    assert answer.error["data"] == {"supported": ["2026-07-28"], "requested": "2025-06-18"}
    assert tools.seen == []  # the backend never saw them


async def test_cancel_request_cancels_the_backend_and_answers_cancelled():
    agent, client, tools, reg = await setup()
    provider = client.handler.provider
    params = agent.handler.caller.with_meta({"name": "slow"})
    call = await agent.send_request(
        "mcp/message",
        acp.MessageMcpRequest(
            server_id=reg.server_id, request_id="c", method="tools/call", params=params
        ),
    )
    await within(_until(lambda: tools.started == 1), "the request never started")
    await call.cancel()  # $/cancel_request
    with pytest.raises(acp.RpcError) as err:
        await within(call, "the cancelled request was never answered")
    assert err.value.code == limits.REQUEST_CANCELLED
    assert tools.cancelled == 1 and provider.in_flight == 0


async def test_cancelling_the_callers_task_cancels_the_request_at_the_provider():
    agent, client, tools, reg = await setup()
    caller = agent.handler.caller
    task = asyncio.ensure_future(caller.session(reg.server_id).call_tool("slow"))
    await within(_until(lambda: tools.started == 1), "the request never started")
    task.cancel()
    await within(_until(lambda: tools.cancelled == 1), "the backend was never cancelled")
    await within(_until(lambda: client.handler.provider.in_flight == 0), "still in flight")
    assert caller.in_flight == 0


async def test_notifications_go_out_only_while_the_request_is_in_flight():
    agent, client, tools, reg = await setup()
    session = agent.handler.caller.session(reg.server_id)
    await session.call_tool("echo", {"text": "x"})
    op = tools.seen[-1]
    assert not op.active
    assert await op.notify("notifications/progress", {"progress": 2}) is False  # dropped
    # one the caller gets for no request in flight (a peer's late one) is dropped there too
    await client.notify(
        "mcp/message",
        acp.MessageMcpNotification(
            server_id=reg.server_id, request_id=op.request_id, method="notifications/progress"
        ),
    )
    await within(_until(lambda: agent.handler.caller.dropped == 1), "not dropped")


async def test_closing_a_registration_cancels_its_requests_and_refuses_later_ones():
    agent, client, tools, reg = await setup()
    session = agent.handler.caller.session(reg.server_id)
    call = asyncio.ensure_future(session.call_tool("slow"))
    await within(_until(lambda: tools.started == 1), "the request never started")
    await reg.close()
    with pytest.raises(acp.RpcError) as err:
        await within(call, "the request was never answered")
    assert err.value.code == limits.REQUEST_CANCELLED
    with pytest.raises(acp.RpcError) as err:
        await session.call_tool("echo")
    assert err.value.code == limits.SERVER_UNAVAILABLE
    assert client.handler.provider.declarations == []


async def _until(condition) -> None:
    while not condition():
        await asyncio.sleep(0)
