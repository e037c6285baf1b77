"""The schemas' MUST sentences about `acp` MCP servers and `mcp/message` (v1 and v2), as the
provider and the caller of `acp_runtime.mcp` keep them (the per-message check of session/new's
server ids is test_docs_v2_draft.py's, the capability guard test_mcp_guard.py's)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import acp_schema as acp
import acp_schema_v2 as acp2
from acp_runtime import AgentSideConnection, memory_pipe, wire
from acp_runtime.mcp import McpCaller, McpProtocolError, McpProvider, limits
from tests.mcp.peers import mcp_pair
from tests.runtime.bounded import within

from ..runtime.helpers import RawPeer
from ..runtime.helpers_v2 import v2_session

pytest_plugins = ["tests.runtime.aio"]
requirement = pytest.mark.requirement


async def _backend(op):
    return {"tools": []}


@requirement("ACP-V2-SCHEMA-ACP-MCP-SERVER-ID-UNIQUE")
async def test_the_provider_never_reuses_a_server_id_on_its_connection() -> None:
    _, _, conn = await v2_session()
    provider = McpProvider(conn)
    registrations = [provider.register("same-name", _backend) for _ in range(100)]
    assert len({r.server_id for r in registrations}) == 100  # generated ids, all distinct
    await registrations[0].close()
    with pytest.raises(ValueError, match="was registered on this connection"):
        provider.register("again", _backend, server_id=registrations[0].server_id)
    declarations = provider.declarations  # v2's McpServerAcp, type "acp"
    assert all(isinstance(d, acp2.McpServerAcp) for d in declarations)


# --- the rows of the schemas' own sentences (v1 241-244, v2 32-34) -----------------------------

PACKAGES = {1: acp, 2: acp2}
INITIALIZE = {  # an agent that takes `acp` MCP servers, as each version advertises it
    1: {"protocolVersion": 1, "agentCapabilities": {"mcpCapabilities": {"acp": True}}},
    2: {
        "protocolVersion": 2,
        "info": {"name": "mcp-agent", "version": "1"},
        "capabilities": {"session": {"mcp": {"acp": {}}}},
    },
}
CLIENT_INIT = {
    1: {"protocolVersion": 1},
    2: {"protocolVersion": 2, "info": {"name": "raw-client", "version": "1"}, "capabilities": {}},
}


@requirement("ACP-V1-SCHEMA-ACP-MCP-SERVER-ID-UNIQUE")
async def test_the_v1_provider_never_reuses_a_server_id_on_its_connection() -> None:
    _, client = await mcp_pair()
    provider = client.handler.provider
    registrations = [provider.register("same-name", _backend) for _ in range(100)]
    assert len({r.server_id for r in registrations}) == 100
    await registrations[0].close()
    with pytest.raises(ValueError, match="was registered on this connection"):
        provider.register("again", _backend, server_id=registrations[0].server_id)
    assert all(isinstance(d, acp.McpServerAcp) for d in provider.declarations)


async def _provider(version: int) -> tuple[Any, McpProvider]:
    if version == 2:
        _, _, conn = await v2_session()
        return acp2, McpProvider(conn)
    _, client = await mcp_pair()
    return acp, client.handler.provider


async def _outcomes(op: Any) -> Any:
    name = (op.params or {}).get("name")
    if name == "null":
        return None  # an inner result that is JSON null
    if name == "error":
        raise McpProtocolError(-32602, "Unknown tool: error", None, has_data=True)
    return {"content": []}


@pytest.mark.parametrize(
    "version",
    [
        pytest.param(1, marks=requirement("ACP-V1-SCHEMA-MCP-MESSAGE-ONE-OUTCOME")),
        pytest.param(2, marks=requirement("ACP-V2-SCHEMA-MCP-MESSAGE-ONE-OUTCOME")),
    ],
)
async def test_the_provider_answers_exactly_one_outcome_and_the_caller_prefers_result(
    version: int,
) -> None:
    pkg, provider = await _provider(version)
    server = provider.register("outcomes", _outcomes)
    answers = {}
    for name in ("ok", "null", "error"):
        meta = {limits.META_PROTOCOL_VERSION: "2026-07-28", limits.META_CLIENT_CAPABILITIES: {}}
        request = pkg.MessageMcpRequest(
            server_id=server.server_id,
            request_id=name,
            method="tools/call",
            params={"name": name, "_meta": meta},
        )
        answers[name] = json.loads(pkg.encode(await provider.mcp_message(request)))
    assert answers == {
        "ok": {"result": {"content": []}},
        "null": {"result": None},  # the carrier key is there even for a null result
        "error": {"error": {"code": -32602, "message": "Unknown tool: error", "data": None}},
    }
    # a receiver given both (a peer that breaks the rule) takes the result
    both = {"result": {"content": []}, "error": {"code": 1, "message": "m"}}
    caller, peer = await _raw_client_caller(version)
    call = asyncio.ensure_future(caller.request("srv", "tools/list"))
    sent = await peer.recv()
    assert sent["method"] == "mcp/message"
    peer.send({"jsonrpc": "2.0", "id": sent["id"], "result": both})
    assert await within(call, "the answer was lost") == {"content": []}


@pytest.mark.parametrize(
    "version",
    [
        pytest.param(1, marks=requirement("ACP-V1-SCHEMA-MCP-MESSAGE-ERROR-OBJECT")),
        pytest.param(2, marks=requirement("ACP-V2-SCHEMA-MCP-MESSAGE-ERROR-OBJECT")),
    ],
)
async def test_an_inner_error_is_an_object_and_a_null_one_is_refused_as_an_invalid_result(
    version: int,
) -> None:
    pkg, provider = await _provider(version)
    server = provider.register("outcomes", _outcomes)
    meta = {limits.META_PROTOCOL_VERSION: "2025-06-18"}  # refused by the provider itself
    request = pkg.MessageMcpRequest(
        server_id=server.server_id, request_id="v", method="tools/list", params={"_meta": meta}
    )
    answer = json.loads(pkg.encode(await provider.mcp_message(request)))
    assert isinstance(answer["error"], dict) and answer["error"]["code"] == -32022
    # a peer's carrier whose error is null is no outcome: a clear error, never a result
    caller, peer = await _raw_client_caller(version)
    call = asyncio.ensure_future(caller.request("srv", "tools/list"))
    sent = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": sent["id"], "result": {"error": None}})
    with pytest.raises(pkg.RpcError) as err:
        await within(call, "the answer was lost")
    assert err.value.code == -32603 and err.value.message == "Invalid result: Expected `object`"
    assert caller.in_flight == 0


async def _raw_client_caller(version: int) -> tuple[McpCaller, RawPeer]:
    """A caller on an agent connection whose client is a raw peer (it answers by hand)."""
    pkg = PACKAGES[version]
    (agent_in, agent_out), (peer_in, peer_out) = memory_pipe()

    async def unused(self: Any, params: Any) -> Any:
        raise AssertionError("not called")

    async def initialize(self: Any, params: Any) -> Any:
        return wire.build(pkg, INITIALIZE[version], pkg.InitializeResponse)

    # v2's `session` capability promises the baseline session methods: the handler has them
    baseline = ("session_new", "session_list", "session_resume", "session_close", "session_prompt")
    methods = {"initialize": initialize, **dict.fromkeys(baseline, unused)}
    Agent = type("Agent", (pkg.AgentHandler,), methods)

    options: dict[str, Any] = {"protocol_versions": (2,)} if version == 2 else {}
    conn = AgentSideConnection(Agent(), agent_in, agent_out, schema=pkg, **options)
    peer = RawPeer(peer_in, peer_out)
    answer = await peer.call(0, "initialize", CLIENT_INIT[version])
    assert "result" in answer, answer
    return McpCaller(conn), peer
