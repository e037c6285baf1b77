"""The adapters to the official `mcp` SDK: a server written with it, served by our provider, and a
real `mcp.Client` of it on the agent's side, the two meeting over `mcp/message` on an in-memory
ACP connection."""

from __future__ import annotations

import asyncio

import anyio
import pytest
from mcp.shared.exceptions import MCPError

import acp_schema as acp
from acp_runtime.mcp.sdk import McpServerLink, mcp_client_session, serve_mcp_server
from tests.runtime.bounded import within

from .peers import CWD, mcp_pair
from .sdk_peers import Notes


async def _until(condition) -> None:
    while not condition():
        await asyncio.sleep(0.001)


async def test_an_mcp_client_lists_and_calls_a_tool_of_an_mcp_server_over_the_carrier():
    agent, client = await mcp_pair()
    notes = Notes()
    async with serve_mcp_server(client.handler.provider, "notes", notes.server) as reg:
        await client.agent.session_new(
            acp.NewSessionRequest(cwd=CWD, mcp_servers=[reg.declaration])
        )
        [server] = agent.handler.servers
        async with mcp_client_session(agent.handler.caller, server) as mcp:
            listed = await mcp.list_tools()
            assert [tool.name for tool in listed.tools] == ["note"]
            progress = []

            async def on_progress(value, total, message):
                progress.append((value, total, message))

            result = await mcp.session.call_tool(
                "note", {"text": "buy milk"}, progress_callback=on_progress
            )
            assert [c.text for c in result.content] == ["noted: buy milk"]
            assert result.is_error is False
            assert notes.notes == ["buy milk"]
            # the server's progress notification, scoped to the request, reached the client (the
            # SDK runs its progress callbacks in tasks of their own: awaited, bounded)
            await within(_until(lambda: progress), "the progress notification was lost")
            assert progress == [(1, 1, "kept")]
        assert agent.handler.caller.in_flight == 0 and client.handler.provider.in_flight == 0
    assert client.handler.provider.declarations == []  # closed with the block


async def test_an_unknown_server_reaches_the_mcp_client_as_an_error_naming_it():
    agent, client = await mcp_pair()
    async with mcp_client_session(agent.handler.caller, "no-such-server") as mcp:
        with pytest.raises(MCPError) as err:
            await mcp.list_tools()
    assert err.value.error.code == -33001
    assert err.value.error.data == {"serverId": "no-such-server"}


async def test_a_failing_tool_is_the_servers_own_inner_error_not_a_binding_failure():
    agent, client = await mcp_pair()
    notes = Notes()
    async with serve_mcp_server(client.handler.provider, "notes", notes.server) as reg:
        async with mcp_client_session(agent.handler.caller, reg.server_id) as mcp:
            with pytest.raises(MCPError) as err:
                await mcp.session.call_tool("fail", {})
            # the SDK server's own answer (-32603), carried in the `error` carrier: not -33002
            assert err.value.error.code == -32603
            unknown = await mcp.session.call_tool("missing", {})
            assert unknown.is_error is True and unknown.content[0].text == "no tool missing"


async def test_cancelling_the_mcp_clients_call_cancels_the_tool_at_the_server():
    agent, client = await mcp_pair()
    notes = Notes()
    async with serve_mcp_server(client.handler.provider, "notes", notes.server) as reg:
        async with mcp_client_session(agent.handler.caller, reg.server_id) as mcp:
            call = asyncio.ensure_future(mcp.session.call_tool("wait", {}))
            await within(_until(lambda: notes.waiting == 1), "the tool never started")
            call.cancel()
            await within(_until(lambda: notes.cancelled == 1), "the tool was never cancelled")
            await within(_until(lambda: client.handler.provider.in_flight == 0), "still in flight")
            assert agent.handler.caller.in_flight == 0
            # the session still serves
            result = await mcp.session.call_tool("note", {"text": "after"})
            assert result.content[0].text == "noted: after"


async def test_a_server_that_ends_without_answering_fails_its_request_clearly():
    agent, client = await mcp_pair()
    to_server, server_reads = anyio.create_memory_object_stream(0)
    server_writes, from_server = anyio.create_memory_object_stream(0)
    link = McpServerLink(to_server)

    async def broken_server():  # takes one request, answers nothing, and ends
        async with server_reads, server_writes:
            await server_reads.receive()

    reading = asyncio.ensure_future(link.read(from_server))
    serving = asyncio.ensure_future(broken_server())
    reg = client.handler.provider.register("broken", link.backend)
    session = agent.handler.caller.session(reg.server_id)
    with pytest.raises(acp.RpcError) as err:
        await within(session.call_tool("any"), "the request was lost")
    assert err.value.code == -33002
    assert err.value.data == {"details": "the MCP server ended without answering"}
    await within(asyncio.gather(reading, serving), "the link never ended")
    assert link.waiting == {} and client.handler.provider.in_flight == 0
    # a later request, the server gone, is refused at once, naming why
    with pytest.raises(acp.RpcError) as err:
        await within(session.call_tool("any"), "the later request was lost")
    assert err.value.code == -33002 and err.value.data["details"]
