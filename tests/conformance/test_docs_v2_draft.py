"""docs/protocol/v2/draft (the docs the 2.4.0 v2 schema goes with, copied to docs-v2-draft/): the
MUST statements new since docs/protocol/v2, on the committed `acp_schema_v2` (2.4.0's v2 unstable
schema)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import acp_schema_v2 as acp2
from acp_runtime import CapabilityError, ProtocolError

from ..runtime.helpers import CWD
from ..runtime.helpers_v2 import v2_session
from ..runtime.v2peers import raw_v2_client
from .refusal import refused

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement

MARKDOWN = {"type": "markdown", "planId": "impl", "content": "## Steps\n- [ ] Refactor"}
FILE = {"type": "file", "planId": "design", "uri": "file:///tmp/plan.md"}


@requirement("ACP-V2-PLAN-CLIENT-TOLERATE-UNSTABLE")
async def test_a_client_takes_markdown_and_file_plans_and_plan_removal() -> None:
    session, agent, conn = await v2_session()
    agent.update({"sessionUpdate": "plan_update", "plan": MARKDOWN})
    agent.update({"sessionUpdate": "plan_update", "plan": FILE})
    await agent.barrier()
    plans = session.state.plans
    assert isinstance(plans["impl"], acp2.PlanMarkdown) and plans["impl"].content.startswith("##")
    assert isinstance(plans["design"], acp2.PlanFile) and plans["design"].uri == FILE["uri"]
    agent.update({"sessionUpdate": "plan_removed", "planId": "impl"})
    await agent.barrier()
    assert set(session.state.plans) == {"design"}


async def _agent_with_session() -> tuple[Any, Any]:
    conn, peer = await raw_v2_client()
    answer = await peer.call(1, "session/new", {"cwd": CWD})
    return conn, (peer, answer["result"]["sessionId"])


@requirement("ACP-V2-PLAN-FILE-URI-ABSOLUTE")
async def test_an_agent_never_sends_a_file_plan_with_a_relative_uri() -> None:
    conn, (peer, session_id) = await _agent_with_session()
    for uri in ("plan.md", "./docs/plan.md", "/tmp/plan.md", "file:///tmp/plan.md#top"):
        update = {"sessionUpdate": "plan_update", "plan": {**FILE, "uri": uri}}
        await refused(
            peer,
            conn.notify("session/update", {"sessionId": session_id, "update": update}),
            (CapabilityError, ProtocolError),
            "absolute URI",
        )
    update = {"sessionUpdate": "plan_update", "plan": FILE}
    await conn.notify("session/update", {"sessionId": session_id, "update": update})
    sent = await peer.recv()
    assert sent["method"] == "session/update" and sent["params"]["update"]["plan"] == FILE


@requirement("ACP-V2-SCHEMA-UNKNOWN-PROTOCOL-IDS")
@pytest.mark.parametrize("protocol", ["_acme_llm", "future_protocol"])
def test_an_unknown_llm_protocol_is_kept_as_sent_on_both_sides(protocol: str) -> None:
    params = {"providerId": "main", "apiType": protocol, "baseUrl": "https://llm.example"}
    request = {"jsonrpc": "2.0", "id": 1, "method": "providers/set", "params": params}
    got = acp2.decode_message(json.dumps(request).encode(), "agent")
    assert json.loads(acp2.encode(got.params)) == params
    info = {
        "providerId": "main",
        "supported": ["anthropic", protocol],
        "required": False,
        "current": {"apiType": protocol, "baseUrl": "https://llm.example"},
    }
    answer = acp2.decode(json.dumps({"providers": [info]}), acp2.ListProvidersResponse)
    assert json.loads(acp2.encode(answer))["providers"][0] == info


@requirement("ACP-V2-SCHEMA-ACP-MCP-SERVER-ID-UNIQUE")
async def test_a_client_never_gives_one_acp_mcp_server_id_to_two_servers() -> None:
    # an agent that takes `acp` servers (session.mcp.acp): the ids are what is refused
    session, agent, conn = await v2_session(capabilities={"session": {"mcp": {"acp": {}}}})
    servers = [
        {"type": "acp", "name": "files", "serverId": "srv-1"},
        {"type": "acp", "name": "search", "serverId": "srv-1"},
    ]
    await refused(
        agent.peer,
        conn.request("session/new", {"cwd": CWD, "mcpServers": servers}),
        (CapabilityError, ProtocolError),
        "'srv-1' twice",
    )
    servers[1]["serverId"] = "srv-2"
    call = asyncio.ensure_future(conn.request("session/new", {"cwd": CWD, "mcpServers": servers}))
    sent = await agent.recv("session/new")
    assert [s["serverId"] for s in sent["params"]["mcpServers"]] == ["srv-1", "srv-2"]
    agent.answer(sent, {"sessionId": "s2"})
    await call
