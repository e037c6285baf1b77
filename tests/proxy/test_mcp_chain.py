"""MCP over ACP through the conductor: a proxy provides its `notes` MCP server to the final agent.

(a) an agent advertising `mcpCapabilities.acp` (our `McpCaller`) gets the proxy's `acp` entry and
calls it over `mcp/message`, routed back through the conductor to the proxy; (b) an agent that
takes only `http` MCP servers (the official `mcp` client) gets an `http` entry on the conductor's
loopback bridge instead, and its calls reach the proxy the same way; (c) an agent that takes
neither gets no entry, and the conductor says so. The proxy sees the `acp` transport advertised
in each case.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import msgspec

import acp_schema as acp
import acp_schema_v2
from acp_runtime import ClientSideConnection, spawn_agent
from acp_runtime.mcp import McpProvider, agent_accepts_acp_servers
from acp_runtime.mcp.sdk import serve_mcp_server
from acp_runtime.proxy.bridging import ChainMcp, capabilities_path
from acp_runtime.proxy.envelope import UNSET
from tests.mcp.sdk_peers import Notes

ROOT = Path(__file__).parents[2]
PEERS = Path(__file__).parent / "peers"
PROXY = str(PEERS / "mcp_proxy.py")
ACP_AGENT = str(ROOT / "tests" / "mcp" / "mcp_agent.py")
HTTP_AGENT = str(PEERS / "http_mcp_agent.py")
ECHO_AGENT = str(ROOT / "examples" / "echo_agent.py")


class Client(acp.ClientHandler):
    def __init__(self, conn: ClientSideConnection) -> None:
        self.conn = conn
        self.texts: list[str] = []
        self.mcp = McpProvider(conn)  # the client's own servers, when a test registers one

    async def mcp_message(self, params: acp.MessageMcpRequest) -> acp.MessageMcpResponse:
        answer: acp.MessageMcpResponse = await self.mcp.mcp_message(params)
        return answer

    async def session_update(self, params: acp.SessionNotification) -> None:
        update = params.update
        if isinstance(update, acp.SessionUpdateAgentMessageChunk) and isinstance(
            update.content, acp.TextContent
        ):
            self.texts.append(update.content.text)


async def turn(agent: str, trace: Path) -> tuple[list[str], Any]:
    """One session and prompt through `conductor -- mcp_proxy -- agent`: what the client was
    told, and the capabilities in the initialize answer."""
    args = ["-m", "acp_runtime.conductor", "--trace", str(trace)]
    args += ["--", sys.executable, PROXY, "--", sys.executable, agent]
    async with spawn_agent(Client, sys.executable, *args, stderr=asyncio.subprocess.PIPE) as conn:
        init = await asyncio.wait_for(
            conn.agent.initialize(acp.InitializeRequest(protocol_version=1)), 20
        )
        session = await asyncio.wait_for(
            conn.agent.session_new(acp.NewSessionRequest(cwd=str(ROOT), mcp_servers=[])), 20
        )
        prompt = acp.PromptRequest(
            session_id=session.session_id, prompt=[acp.TextContent(text="go")]
        )
        answer = await asyncio.wait_for(conn.agent.session_prompt(prompt), 20)
        assert answer.stop_reason == acp.StopReason.END_TURN
        handler = conn.handler
        assert isinstance(handler, Client)
        return handler.texts, init.agent_capabilities


def hop_messages(trace: Path, hop: str, direction: str, method: str) -> list[Any]:
    found = []
    for line in trace.read_text().splitlines():
        entry = json.loads(line)
        message = entry.get("message")
        if entry.get("hop") == hop and entry.get("direction") == direction:
            if isinstance(message, dict) and message.get("method") == method:
                found.append(message)
    return found


async def test_an_agent_with_acp_transport_calls_the_proxys_server_over_mcp_message(
    tmp_path: Path,
) -> None:
    texts, caps = await turn(ACP_AGENT, tmp_path / "trace.jsonl")
    assert texts == [
        "tools: echo,note",
        "notes: ",  # McpCaller's call asks for no progress: the server sends none
        "hi",
        "inner error: -32602 Unknown tool: nope",  # the inner MCP error, unchanged
    ]
    assert caps.mcp_capabilities.acp is True
    [new] = hop_messages(tmp_path / "trace.jsonl", "agent", "out", "session/new")
    [server] = new["params"]["mcpServers"]
    assert server["type"] == "acp" and server["name"] == "notes"  # as the proxy declared it
    # every mcp/message came from the agent and went wrapped to the proxy: none to a bridge
    assert len(hop_messages(tmp_path / "trace.jsonl", "agent", "in", "mcp/message")) == 3


async def test_an_agent_with_only_http_mcp_gets_the_proxys_server_on_the_loopback_bridge(
    tmp_path: Path,
) -> None:
    texts, caps = await turn(HTTP_AGENT, tmp_path / "trace.jsonl")
    assert texts == [
        "servers: McpServerHttp",
        "notes tools: echo,note",
        "progress: 1.0/1.0 kept",  # the proxy's request-scoped notification, on the SSE answer
        "noted: over the bridge",
    ]
    # the proxy (and the client behind it) were told the chain takes acp servers
    assert caps.mcp_capabilities.acp is True and caps.mcp_capabilities.http is True
    trace = tmp_path / "trace.jsonl"
    [new] = hop_messages(trace, "agent", "out", "session/new")
    [server] = new["params"]["mcpServers"]
    assert server["type"] == "http" and server["name"] == "notes"
    assert server["url"].startswith("http://127.0.0.1:")
    [header] = server["headers"]
    assert header["name"] == "Authorization" and header["value"].startswith("Bearer ")
    # the bridge's requests rode mcp/message to the proxy, wrapped as the agent's would be
    sent = [
        m["params"]["params"]["method"]
        for m in hop_messages(trace, "proxy 1", "out", "proxy/successor")
        if m["params"]["method"] == "mcp/message"
    ]
    assert "tools/list" in sent and "tools/call" in sent
    assert hop_messages(trace, "agent", "out", "mcp/message") == []


async def test_the_clients_own_server_and_the_proxys_both_reach_an_http_only_agent(
    tmp_path: Path,
) -> None:
    # the client's `acp` server is bridged too; the proxy passes its mcp/message on to the client
    trace = tmp_path / "trace.jsonl"
    args = ["-m", "acp_runtime.conductor", "--trace", str(trace)]
    args += ["--", sys.executable, PROXY, "--", sys.executable, HTTP_AGENT]
    notes = Notes()
    async with spawn_agent(Client, sys.executable, *args, stderr=asyncio.subprocess.PIPE) as conn:
        handler = conn.handler
        assert isinstance(handler, Client)
        await asyncio.wait_for(conn.agent.initialize(acp.InitializeRequest(protocol_version=1)), 20)
        async with serve_mcp_server(handler.mcp, "mine", notes.server) as mine:
            new = acp.NewSessionRequest(cwd=str(ROOT), mcp_servers=[mine.declaration])
            session = await asyncio.wait_for(conn.agent.session_new(new), 20)
            prompt = acp.PromptRequest(session_id=session.session_id, prompt=[])
            answer = await asyncio.wait_for(conn.agent.session_prompt(prompt), 20)
        assert answer.stop_reason == acp.StopReason.END_TURN
    assert handler.texts == [
        "servers: McpServerHttp,McpServerHttp",
        "mine tools: note",
        "progress: 1.0/1.0 kept",
        "noted: over the bridge",
        "notes tools: echo,note",
        "progress: 1.0/1.0 kept",
        "noted: over the bridge",
    ]
    assert notes.notes == ["over the bridge"]  # the client's own server was called once
    # only the client's server's requests went on to the client: the proxy's stayed with it
    to_client = hop_messages(trace, "client", "out", "mcp/message")
    assert {m["params"]["serverId"] for m in to_client} == {mine.server_id}
    assert len(to_client) == 2  # tools/list, tools/call


async def test_an_agent_without_acp_or_http_mcp_is_given_no_server_and_the_drop_is_said(
    tmp_path: Path,
) -> None:
    trace = tmp_path / "trace.jsonl"
    args = ["-m", "acp_runtime.conductor", "--trace", str(trace)]
    args += ["--", sys.executable, PROXY, "--", sys.executable, ECHO_AGENT]
    async with spawn_agent(Client, sys.executable, *args, stderr=asyncio.subprocess.PIPE) as conn:
        await asyncio.wait_for(conn.agent.initialize(acp.InitializeRequest(protocol_version=1)), 20)
        await asyncio.wait_for(
            conn.agent.session_new(acp.NewSessionRequest(cwd=str(ROOT), mcp_servers=[])), 20
        )
    [new] = hop_messages(trace, "agent", "out", "session/new")
    assert new["params"]["mcpServers"] == []
    tail = conn.stderr_tail.decode()
    assert "takes neither acp nor http MCP servers" in tail and "'notes'" in tail


def chain_mcp(notices: list[str]) -> ChainMcp:
    return ChainMcp([acp, acp_schema_v2], "initialize", notices.append)


def test_the_place_of_the_acp_transport_is_read_from_each_package() -> None:
    # v1: a bool in agentCapabilities.mcpCapabilities; v2: an object in capabilities.session.mcp
    assert capabilities_path(acp, "initialize") == (
        ("agentCapabilities", "mcpCapabilities"),
        {"acp": True, "http": True},
    )
    assert capabilities_path(acp_schema_v2, "initialize") == (
        ("capabilities", "session", "mcp"),
        {"acp": False, "http": False},
    )


def test_a_v2_agent_without_the_acp_transport_is_advertised_it_and_bridged() -> None:
    mcp = chain_mcp([])
    answer = {
        "protocolVersion": 2,
        "info": {"name": "a", "version": "1"},
        "capabilities": {"session": {"mcp": {"http": {}}}},
    }
    out = mcp.agent_initialized(msgspec.Raw(json.dumps(answer).encode()))
    value = json.loads(bytes(out))
    assert value["capabilities"]["session"]["mcp"] == {"http": {}, "acp": {}}
    assert mcp.bridging and mcp.agent_http and mcp.schema is acp_schema_v2
    caps = msgspec.json.decode(bytes(out), type=acp_schema_v2.InitializeResponse).capabilities
    assert agent_accepts_acp_servers(msgspec.to_builtins(caps))


def test_an_agent_with_the_acp_transport_is_left_as_it_said() -> None:
    mcp = chain_mcp([])
    raw = msgspec.Raw(b'{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"acp":true}}}')
    assert mcp.agent_initialized(raw) is raw
    assert not mcp.bridging
    params = msgspec.Raw(b'{"cwd":"/","mcpServers":[{"type":"acp","name":"n","serverId":"s"}]}')
    assert mcp.to_agent("session/new", 1, params) is params


def test_an_agent_taking_no_mcp_transport_gets_the_acp_entries_dropped_and_each_named() -> None:
    notices: list[str] = []
    mcp = chain_mcp(notices)
    mcp.agent_initialized(msgspec.Raw(b'{"protocolVersion":1}'))
    assert mcp.bridging and not mcp.agent_http
    entries = [
        {"type": "acp", "name": "notes", "serverId": "s1"},
        {"type": "http", "name": "web", "url": "http://127.0.0.1:1/", "headers": []},
    ]
    params = msgspec.Raw(json.dumps({"cwd": "/", "mcpServers": entries}).encode())
    out = mcp.to_agent("session/load", 1, params)
    assert out is not None
    assert json.loads(bytes(out))["mcpServers"] == entries[1:]  # the http entry kept as it was
    [notice] = notices
    assert "'notes'" in notice and "'s1'" in notice and "session/load" in notice


def test_a_bad_mcp_message_notification_toward_a_bridged_agent_is_dropped_and_said() -> None:
    notices: list[str] = []
    mcp = chain_mcp(notices)
    mcp.agent_initialized(msgspec.Raw(b'{"protocolVersion":1}'))
    assert mcp.to_agent("mcp/message", UNSET, msgspec.Raw(b'{"serverId":7}')) is None
    [notice] = notices
    assert "mcp/message notification toward the agent is dropped" in notice
    assert "serverId" in notice
