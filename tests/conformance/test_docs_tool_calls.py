"""docs/protocol/v1/tool-calls.mdx: reporting tool calls, their names, and asking permission."""

from __future__ import annotations

from typing import Any

import pytest

from .docs_peers import (
    SESSION,
    client_serving,
    connect,
    eventually,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    raw_client,
    typed,
    update,
)

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement

TOOL_CALL = {
    "sessionUpdate": "tool_call",
    "toolCallId": "call_001",
    "title": "Reading configuration file",
    "kind": "read",
    "status": "pending",
    "rawInput": {"path": "/work/project/config.json"},
}


@requirement(
    "ACP-V1-TOOLS-REPORT-TOOL-CALL",
    carried="the tool_call update is carried typed; reporting each tool call is the application's",
)
async def test_agent_reports_a_tool_call_to_the_client(pkg: Any) -> None:
    """The library carries the tool_call session update, typed on both sides; reporting each
    tool call the model requests is the agent application's part."""
    agent, client = await connect(pkg)
    await agent.client.session_update(update(pkg, TOOL_CALL))
    await eventually(
        lambda: client.handler.of("session/update"), "the tool_call update never reached the client"
    )
    (params,) = client.handler.of("session/update")
    assert (params.update.tool_call_id, params.update.title, params.update.kind.value) == (
        "call_001",
        "Reading configuration file",
        "read",
    )
    assert client.handler.updates() == [TOOL_CALL]


@requirement(
    "ACP-V1-TOOLS-NAME-IN-FIRST-REPORT",
    carried="`name` is carried on the first report; including it is the application's",
)
async def test_agent_can_name_the_tool_in_its_first_report(acp_v1_unstable: Any) -> None:
    """The unstable package (the only revision with tool names) carries `name` on the first
    tool_call report; including it when known is the agent application's part."""
    pkg = acp_v1_unstable
    agent, peer = await raw_client(pkg)
    await agent.client.session_update(update(pkg, {**TOOL_CALL, "name": "read_file"}))
    note = await peer.recv()
    assert note["params"]["update"]["name"] == "read_file"


@requirement(
    "ACP-V1-TOOLS-NAME-STABLE",
    carried="an update without a name sends none; keeping the name stable is the application's",
)
async def test_tool_call_updates_leave_the_name_unchanged_by_omitting_it(
    acp_v1_unstable: Any,
) -> None:
    """An update built without a name sends none, which the protocol reads as "unchanged", so the
    agent never has to repeat (or risk changing) it; not changing it later except to correct it
    is the agent application's part."""
    pkg = acp_v1_unstable
    agent, peer = await raw_client(pkg)
    await agent.client.session_update(update(pkg, {**TOOL_CALL, "name": "read_file"}))
    progress = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "call_001",
        "status": "in_progress",
    }
    await agent.client.session_update(update(pkg, progress))
    first, second = await peer.recv(), await peer.recv()
    assert first["params"]["update"]["name"] == "read_file"
    assert second["params"]["update"] == progress


@requirement("ACP-V1-TOOLS-PERMISSION-MAY")
async def test_agent_may_ask_permission_before_running_a_tool_call(pkg: Any) -> None:
    async def ask_user(params: Any) -> Any:
        return {"outcome": {"outcome": "selected", "optionId": "allow-once"}}

    agent, client = await connect(
        pkg, client=client_serving(pkg, session_request_permission=ask_user)
    )
    request = {
        "sessionId": SESSION,
        "toolCall": {"toolCallId": "call_001"},
        "options": [
            {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
        ],
    }
    answer = await agent.client.session_request_permission(
        typed(pkg, "session/request_permission", request)
    )
    assert answer.outcome.option_id == "allow-once"
    (asked,) = client.handler.of("session/request_permission")
    assert [option.option_id for option in asked.options] == ["allow-once", "reject-once"]
