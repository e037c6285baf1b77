"""Handlers: method-not-found, empty results, typed errors, extensions, `_meta`."""

from __future__ import annotations

import logging

import msgspec
import pytest

import acp_schema as acp

from .helpers import Agent, Client, pair, raw_agent, raw_client


async def test_request_the_handler_does_not_implement_answers_method_not_found() -> None:
    conn, peer = await raw_client()  # Agent implements no session/load
    answer = await peer.call(1, "session/load", {"sessionId": "s", "cwd": "/w", "mcpServers": []})
    assert answer["error"]["code"] == -32601


async def test_handler_object_without_the_method_answers_method_not_found() -> None:
    class Bare:
        pass

    conn, peer = await raw_client(Bare())
    answer = await peer.call(1, "session/new", {"cwd": "/w", "mcpServers": []})
    assert answer["error"]["code"] == -32601


async def test_method_returning_nothing_answers_an_empty_object() -> None:
    class Closing(Agent):
        async def session_close(self, params):
            return None

    conn, peer = await raw_client(Closing)
    answer = await peer.call(1, "session/close", {"sessionId": "s1"})
    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {}}


async def test_returning_nothing_where_a_result_is_required_is_an_internal_error(caplog) -> None:
    class Forgetful(Agent):
        async def session_new(self, params):
            return None

    conn, peer = await raw_client(Forgetful)
    with caplog.at_level(logging.ERROR, logger="acp_runtime"):
        answer = await peer.call(1, "session/new", {"cwd": "/w", "mcpServers": []})
    assert answer["error"] == {"code": -32603, "message": "Internal error"}
    assert "required fields" in caplog.text


async def test_a_null_result_is_taken_as_empty() -> None:
    conn, peer = await raw_agent(enforce_protocol=False)
    call = await conn.send_request("session/close", acp.CloseSessionRequest(session_id="s1"))
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": None})
    assert await call == acp.CloseSessionResponse()


async def test_handler_raising_a_typed_error_sends_it_with_its_data() -> None:
    class Locked(Agent):
        async def session_new(self, params):
            raise acp.AuthenticationRequiredError("Log in first", {"methods": ["token"]})

    conn, peer = await raw_client(Locked)
    answer = await peer.call(1, "session/new", {"cwd": "/w", "mcpServers": []})
    assert answer["error"] == {
        "code": -32000,
        "message": "Log in first",
        "data": {"methods": ["token"]},
    }


async def test_a_crash_answers_internal_error_without_internals_and_the_connection_lives() -> None:
    class Broken(Agent):
        async def session_new(self, params):
            raise RuntimeError("secret path /etc/shadow")

    conn, peer = await raw_client(Broken)
    answer = await peer.call(1, "session/new", {"cwd": "/w", "mcpServers": []})
    assert answer["error"] == {"code": -32603, "message": "Internal error"}
    assert "shadow" not in str(answer)
    await peer.barrier()


async def test_peer_errors_raise_the_generated_exception_for_their_code() -> None:
    class Locked(Agent):
        async def session_new(self, params):
            raise acp.ResourceNotFoundError("no such thing", {"uri": "x"})

    agent, client = await pair(Locked, session=False)
    with pytest.raises(acp.ResourceNotFoundError) as info:
        await client.agent.session_new(acp.NewSessionRequest(cwd="/w", mcp_servers=[]))
    assert info.value.code == -32002 and info.value.data == {"uri": "x"}


async def test_unknown_error_codes_raise_the_generic_rpc_error() -> None:
    conn, peer = await raw_agent(enforce_protocol=False)
    call = await conn.send_request("session/new", acp.NewSessionRequest(cwd="/w", mcp_servers=[]))
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -31999, "message": "odd"}})
    with pytest.raises(acp.RpcError) as info:
        await call
    assert (
        type(info.value) is acp.RpcError
        and info.value.code == -31999
        and info.value.data is msgspec.UNSET
    )


async def test_extension_request_reaches_the_handler_with_its_name_intact() -> None:
    seen = []

    class Ext(Agent):
        async def ext_method(self, method, params):
            seen.append((method, params))
            return {"ok": True}

    conn, peer = await raw_client(Ext)
    answer = await peer.call(
        1, "_zed.dev/workspace/buffers", {"language": "rust", "_meta": {"a": 1}}
    )
    assert answer["result"] == {"ok": True}
    assert seen == [("_zed.dev/workspace/buffers", {"language": "rust", "_meta": {"a": 1}})]


async def test_extension_notification_reaches_the_handler() -> None:
    seen = []

    class Ext(Agent):
        async def ext_notification(self, method, params):
            seen.append((method, params))

    conn, peer = await raw_client(Ext)
    peer.send({"jsonrpc": "2.0", "method": "_vendor/opened", "params": {"path": "/a"}})
    await peer.barrier()
    assert seen == [("_vendor/opened", {"path": "/a"})]


async def test_unknown_extension_request_answers_method_not_found() -> None:
    class NoExt:
        async def initialize(self, params):
            return acp.InitializeResponse(
                protocol_version=1, agent_capabilities=acp.AgentCapabilities()
            )

    conn, peer = await raw_client(NoExt())
    answer = await peer.call(1, "_unknown/thing", {})
    assert answer["error"]["code"] == -32601


async def test_extension_calls_both_ways_between_two_runtimes() -> None:
    class Ext(Client):
        async def ext_method(self, method, params):
            return {"echo": params, "method": method}

    agent, client = await pair(client=Ext())
    assert await agent.request("_x/echo", {"n": 1}) == {"echo": {"n": 1}, "method": "_x/echo"}
    assert await client.request("_ping", {}) == {"pong": True}


async def test_meta_stays_on_the_params_object_and_never_replaces_fields() -> None:
    seen = []

    class Meta(Agent):
        async def session_prompt(self, params):
            seen.append(params)
            return acp.PromptResponse(
                stop_reason=acp.StopReason.END_TURN, meta={"echo": params.meta}
            )

    conn, peer = await raw_client(Meta)
    meta = {"session_id": "evil", "sessionId": "evil", "traceparent": "00-abc-01"}
    answer = await peer.call(
        1,
        "session/prompt",
        {"sessionId": "real", "prompt": [{"type": "text", "text": "hi"}], "_meta": meta},
    )
    assert seen[0].session_id == "real" and seen[0].meta == meta
    assert answer["result"] == {"stopReason": "end_turn", "_meta": {"echo": meta}}


async def test_meta_on_nested_objects_passes_through_untouched() -> None:
    got = []

    class Seen(Client):
        async def session_update(self, params):
            got.append(params)

    agent, client = await pair(client=Seen())
    chunk = acp.SessionUpdateAgentMessageChunk(
        content=acp.TextContent(text="x", meta={"k": [1, {"v": None}]})
    )
    await agent.client.session_update(
        acp.SessionNotification(session_id="s1", update=chunk, meta={"top": 1})
    )
    await client.request("_ping", {})  # a response after the notification: it has been handled
    assert got[0].meta == {"top": 1} and got[0].update.content.meta == {"k": [1, {"v": None}]}


async def test_handler_built_from_a_class_gets_the_connection() -> None:
    agent, client = await pair(Agent)
    assert isinstance(agent.handler, Agent) and agent.handler.conn is agent
    assert isinstance(agent.client, acp.ClientProxy) and isinstance(client.agent, acp.AgentProxy)
