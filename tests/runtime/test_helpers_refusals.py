"""A refusal by a runtime rule is not an internal crash: the answer names the rule, no traceback."""

from __future__ import annotations

import logging

import pytest

import acp_schema as acp

from .helpers import CWD, pair, raw_client


async def test_a_second_session_new_answered_with_the_same_id_names_the_rule(caplog) -> None:
    conn, peer = await raw_client()
    params = {"cwd": CWD, "mcpServers": []}
    assert "result" in await peer.call(1, "session/new", params)
    with caplog.at_level(logging.DEBUG, logger="acp_runtime"):
        answer = await peer.call(2, "session/new", params)
    error = answer["error"]
    assert error["code"] == -32603
    assert "'s1'" in error["data"]["message"] and "requirement 24" in error["data"]["message"]
    assert not any(record.exc_info for record in caplog.records)


async def test_the_client_sees_the_rule_in_the_typed_error_data() -> None:
    agent_conn, client_conn = await pair()  # the test agent answers "s1" to every session/new
    with pytest.raises(acp.RpcError) as raised:
        await client_conn.agent.session_new(acp.NewSessionRequest(cwd=CWD, mcp_servers=[]))
    assert raised.value.code == -32603 and "unique id" in raised.value.data["message"]


async def test_a_handler_crash_is_still_an_internal_error_with_its_traceback_logged(caplog) -> None:
    class Crashing(acp.AgentHandler):
        def __init__(self, conn) -> None:
            pass

        async def session_new(self, params):
            raise KeyError("boom")

    conn, peer = await raw_client(Crashing)
    with caplog.at_level(logging.ERROR, logger="acp_runtime"):
        answer = await peer.call(1, "session/new", {"cwd": CWD, "mcpServers": []})
    assert answer["error"] == {"code": -32603, "message": "Internal error"}
    assert any(record.exc_info for record in caplog.records)
