"""JSON-RPC 2.0 rules (requirements 218-235), over connections of the v1 and the default package.

The runtime connection is one end; the other is a runtime peer (what the library writes is tapped)
or a raw peer that writes exactly the bytes a test needs.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgspec
import pytest

from acp_runtime import ConnectionClosedError, ProtocolError

from .refusal import refused
from .sides import Agent, pair, raw_agent, raw_client, typed

pytest_plugins = ("tests.runtime.aio",)
requirement = pytest.mark.requirement


@pytest.fixture(params=["acp_v1", "acp_default"])
def pkg(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(request.param)


class Failing(Agent):
    """An agent whose handlers fail in the ways a request can fail."""

    async def ext_method(self, method: str, params: Any) -> Any:
        if method == "_crash":
            raise RuntimeError("a bug in the handler")
        if method == "_refuse":
            raise self.pkg.InvalidParamsError("bad", {"field": "x"})
        if method == "_slow":
            await asyncio.Event().wait()  # until cancelled
        if method == "_none":
            return None
        if method == "_bad_code":
            raise self.pkg.RpcError("odd", code=params["code"])
        if method == "_bad_data":
            raise self.pkg.RpcError("odd", object(), code=-32000)
        return await super().ext_method(method, params)

    async def logout(self, params: Any) -> Any:
        self.seen.append(("logout", params))
        return None


async def exchange(pkg: Any) -> tuple[list[Any], list[Any]]:
    """A little of everything between a runtime agent and client: calls both ways, a notification,
    an extension call, error answers. Returns what (agent, client) wrote, as JSON."""
    agent_conn, client_conn, agent_tap, client_tap = await pair(pkg, Failing)
    await client_conn.agent.session_prompt(
        typed(pkg, "session/prompt", {"sessionId": "s1", "prompt": []})
    )
    await client_conn.request("_ping", {"a": [1, 2]})
    await client_conn.notify("_note", {"b": None})
    with pytest.raises(pkg.RpcError):
        await client_conn.request("_refuse", {})
    with pytest.raises(pkg.RpcError):
        await client_conn.request("_unknown", {})
    assert await agent_conn.request("_ping", {}) == {"pong": True}
    await agent_conn.client.session_update(
        typed(
            pkg,
            "session/update",
            {
                "sessionId": "s1",
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": "hi"},
                },
            },
        )
    )
    await client_conn.request("_ping", {})  # the update reached the client before this answer
    return agent_tap.messages(), client_tap.messages()


def requests_in(messages: list[Any]) -> list[Any]:
    return [m for m in messages if "method" in m and "id" in m]


def answers_in(messages: list[Any]) -> list[Any]:
    return [m for m in messages if "method" not in m]


# --- 218: "jsonrpc": "2.0" -----------------------------------------------------------------------


@requirement("ACP-V1-JSONRPC-VERSION-MEMBER")
async def test_every_message_the_library_writes_says_jsonrpc_2_0(pkg: Any) -> None:
    agent_wrote, client_wrote = await exchange(pkg)
    assert len(agent_wrote) >= 8 and len(client_wrote) >= 8
    assert all(m["jsonrpc"] == "2.0" for m in agent_wrote + client_wrote)


@requirement("ACP-V1-JSONRPC-VERSION-MEMBER")
async def test_a_request_that_does_not_say_jsonrpc_2_0_is_refused_as_invalid(pkg: Any) -> None:
    conn, peer = await raw_client(pkg)
    for n, version in enumerate(["1.0", 2.0, None, "2.0 "]):
        message: dict[str, Any] = {"id": n, "method": "_ping", "params": {}}
        if version is not None:
            message["jsonrpc"] = version
        peer.send(message)
        answer = await peer.recv()
        assert answer["id"] == n and answer["error"]["code"] == -32600, answer
    assert conn.handler.seen == []


# --- 219: rpc.* is reserved -----------------------------------------------------------------------


@requirement("ACP-V1-JSONRPC-RPC-PREFIX-RESERVED")
async def test_rpc_method_names_are_refused_before_anything_is_sent(pkg: Any) -> None:
    conn, peer = await raw_agent(pkg)
    await refused(peer, conn.request("rpc.discover", {}), ProtocolError, "reserved")
    await refused(peer, conn.notify("rpc.ping", {}), ProtocolError, "reserved")


@requirement("ACP-V1-JSONRPC-RPC-PREFIX-RESERVED")
async def test_a_received_rpc_method_is_never_routed_to_a_handler(pkg: Any) -> None:
    conn, peer = await raw_client(pkg)
    answer = await peer.call(1, "rpc.discover", {})
    assert answer["error"]["code"] == -32601
    peer.send({"jsonrpc": "2.0", "method": "rpc.note", "params": {}})
    await peer.barrier()
    assert conn.handler.seen == [("_ping", {})]


# --- 220: params may be omitted -------------------------------------------------------------------


@requirement("ACP-V1-JSONRPC-PARAMS-MAY-BE-OMITTED")
async def test_a_call_without_params_is_sent_without_a_params_member(pkg: Any) -> None:
    agent_conn, client_conn, agent_tap, client_tap = await pair(pkg)
    assert await client_conn.request("_ping") == {"pong": True}
    await client_conn.notify("_note")
    await client_conn.request("_ping", {})
    sent = [m for m in client_tap.messages() if m.get("method") in ("_ping", "_note")]
    assert [("params" in m) for m in sent] == [False, False, True]


@requirement("ACP-V1-JSONRPC-PARAMS-MAY-BE-OMITTED")
async def test_a_request_without_params_is_served(pkg: Any) -> None:
    conn, peer = await raw_client(pkg, Failing)
    answer = await peer.call(1, "logout")
    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert conn.handler.seen == [("logout", pkg.LogoutRequest())]


# --- 221-223: ids ---------------------------------------------------------------------------------


@requirement("ACP-V1-JSONRPC-ID-TYPE")
async def test_request_ids_the_library_sends_are_numbers(pkg: Any) -> None:
    agent_wrote, client_wrote = await exchange(pkg)
    ids = [m["id"] for m in requests_in(agent_wrote + client_wrote)]
    assert len(ids) >= 6 and all(type(i) is int for i in ids)


@requirement("ACP-V1-JSONRPC-ID-TYPE")
async def test_string_number_and_null_request_ids_are_accepted(pkg: Any) -> None:
    conn, peer = await raw_client(pkg)
    for request_id in ["a", "", 7, 0, -3, None]:
        answer = await peer.call(request_id, "_ping", {})
        assert answer == {"jsonrpc": "2.0", "id": request_id, "result": {"pong": True}}


@requirement("ACP-V1-JSONRPC-ID-TYPE")
async def test_a_request_id_of_another_type_is_refused_as_invalid(pkg: Any) -> None:
    conn, peer = await raw_client(pkg)
    for request_id in [True, {"n": 1}, [1]]:
        answer = await peer.call(request_id, "_ping", {})
        assert answer["id"] is None and answer["error"]["code"] == -32600, answer
    assert conn.handler.seen == []


@requirement("ACP-V1-JSONRPC-ID-NOT-NULL")
async def test_the_library_never_sends_a_request_with_a_null_id(pkg: Any) -> None:
    agent_wrote, client_wrote = await exchange(pkg)
    ids = [m["id"] for m in requests_in(agent_wrote + client_wrote)]
    assert None not in ids and len(set(ids)) >= 3


@requirement("ACP-V1-JSONRPC-ID-NO-FRACTION")
async def test_request_ids_the_library_sends_have_no_fractional_part(pkg: Any) -> None:
    agent_conn, client_conn, agent_tap, client_tap = await pair(pkg)
    for _ in range(20):
        await client_conn.request("_ping", {})
    raw_ids = [json.loads(line)["id"] for line in client_tap.lines if b'"method"' in line]
    assert raw_ids == list(range(len(raw_ids))) and all(
        type(i) is int for i in raw_ids
    )  # JSON 1.0 reads as float


# --- 224, 231: the answer's id --------------------------------------------------------------------


@requirement("ACP-V1-JSONRPC-RESPONSE-SAME-ID")
async def test_an_answer_carries_the_request_id_unchanged(pkg: Any) -> None:
    conn, peer = await raw_client(pkg)
    for request_id in ["x", "ÄÖ 😀 \n", "7", 2**53 + 1, 10**30, -1, 0]:
        answer = await peer.call(request_id, "_ping", {})
        assert answer["id"] == request_id and type(answer["id"]) is type(request_id)


@requirement("ACP-V1-JSONRPC-RESPONSE-SAME-ID")
async def test_a_request_with_a_fractional_id_is_answered_with_that_id(acp_v1: Any) -> None:
    conn, peer = await raw_client(acp_v1)
    answer = await peer.call(1.5, "_ping", {})
    assert answer == {"jsonrpc": "2.0", "id": 1.5, "result": {"pong": True}}


@requirement("ACP-V1-JSONRPC-RESPONSE-ID-ECHO")
async def test_an_error_answer_carries_the_request_id(pkg: Any) -> None:
    conn, peer = await raw_client(pkg)
    for n, (method, params) in enumerate(
        [("_unknown", {}), ("session/new", {"cwd": 5}), ("session/nope", {})]
    ):
        answer = await peer.call(f"id-{n}", method, params)
        assert answer["id"] == f"id-{n}" and "error" in answer


@requirement("ACP-V1-JSONRPC-RESPONSE-ID-ECHO")
async def test_a_parse_error_is_answered_with_a_null_id(pkg: Any) -> None:
    conn, peer = await raw_client(pkg)
    for line in [
        b'{"jsonrpc": "2.0", "id": 5, "method": "_ping", "params": {',
        b'{"id": 6 "method"}',
        b"\xff\xfe{}",
    ]:
        peer.send_bytes(line + b"\n")
        answer = await peer.recv()
        assert answer["id"] is None and answer["error"]["code"] == -32700, answer


@requirement("ACP-V1-JSONRPC-RESPONSE-ID-ECHO")
async def test_an_invalid_request_whose_id_cannot_be_read_is_answered_with_a_null_id(
    pkg: Any,
) -> None:
    conn, peer = await raw_client(pkg)
    for message in [
        "hello",
        42,
        [],
        {"jsonrpc": "2.0", "id": False, "method": "_ping"},
        {"jsonrpc": "2.0"},
    ]:
        peer.send(message)
        answer = await peer.recv()
        assert answer["id"] is None and answer["error"]["code"] == -32600, (message, answer)


# --- 225: notifications are never answered --------------------------------------------------------


@requirement("ACP-V1-JSONRPC-NO-REPLY-TO-NOTIFICATION")
async def test_no_notification_is_ever_answered(pkg: Any) -> None:
    class Raising(Agent):
        async def ext_notification(self, method: str, params: Any) -> None:
            raise pkg.InvalidParamsError("a notification handler failing")

    conn, peer = await raw_client(pkg, Raising)
    for message in [
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s1"}},  # known
        {
            "jsonrpc": "2.0",
            "method": "session/cancel",
            "params": {"sessionId": 5},
        },  # invalid params
        {"jsonrpc": "2.0", "method": "session/cancel"},  # params missing
        {"jsonrpc": "2.0", "method": "nobody/knows", "params": {}},  # unknown method
        {"jsonrpc": "2.0", "method": "_ext/note", "params": {}},  # handler raises
        {"jsonrpc": "2.0", "method": "_ext/note", "params": 7},  # unstructured params
        {"jsonrpc": "1.0", "method": "_ext/note", "params": {}},  # wrong version
        {
            "jsonrpc": "2.0",
            "method": "initialize",
            "params": {},
        },  # a request method, as notification
    ]:
        peer.send(message)
    await peer.barrier()


@requirement("ACP-V1-JSONRPC-NO-REPLY-TO-NOTIFICATION")
async def test_a_batch_of_notifications_is_not_answered(pkg: Any) -> None:
    conn, peer = await raw_client(pkg)
    note = {"jsonrpc": "2.0", "method": "_ext/note", "params": {}}
    peer.send([note, note])
    await peer.barrier()


# --- 226-227: params ------------------------------------------------------------------------------


@requirement("ACP-V1-JSONRPC-PARAMS-STRUCTURED")
async def test_params_the_library_sends_are_objects(pkg: Any) -> None:
    agent_wrote, client_wrote = await exchange(pkg)
    sent = [m["params"] for m in agent_wrote + client_wrote if "method" in m]
    assert len(sent) >= 8 and all(isinstance(p, dict) for p in sent)


@requirement("ACP-V1-JSONRPC-PARAMS-STRUCTURED")
async def test_unstructured_params_are_refused_before_anything_is_sent(pkg: Any) -> None:
    conn, peer = await raw_agent(pkg)
    for params in [5, "text", True, 1.5]:
        await refused(peer, conn.request("_ext/call", params), ProtocolError, "object or an array")
        await refused(peer, conn.notify("_ext/note", params), ProtocolError, "object or an array")
    await conn.notify("_ext/note", [1, 2])  # by position: allowed
    assert (await peer.recv())["params"] == [1, 2]


@requirement("ACP-V1-JSONRPC-PARAMS-STRUCTURED")
async def test_a_request_with_unstructured_params_is_refused(pkg: Any) -> None:
    conn, peer = await raw_client(pkg, Failing)
    for n, (method, params) in enumerate(
        [("_ping", 5), ("_ping", "x"), ("logout", 5), ("session/new", "x")]
    ):
        answer = await peer.call(n, method, params)
        assert answer["error"]["code"] in (-32600, -32602), answer
    assert conn.handler.seen == []
    assert (await peer.call(9, "_ping", [1]))["result"] == {"pong": True}  # by position: taken


@requirement("ACP-V1-JSONRPC-PARAM-NAMES-EXACT")
async def test_params_are_sent_under_their_exact_wire_names(pkg: Any) -> None:
    agent_conn, client_conn, agent_tap, client_tap = await pair(pkg, agent=Agent)
    params = typed(pkg, "session/new", {"cwd": "/w", "mcpServers": [], "_meta": {"k": 1}})
    await client_conn.agent.session_new(params)
    sent = [m for m in client_tap.messages() if m.get("method") == "session/new"][-1]
    assert sorted(sent["params"]) == ["_meta", "cwd", "mcpServers"]
    assert [m for m in agent_tap.messages() if m.get("id") == sent["id"]][0]["result"] == {
        "sessionId": "s2"
    }


@requirement("ACP-V1-JSONRPC-PARAM-NAMES-EXACT")
async def test_params_named_in_another_case_are_refused_as_invalid(pkg: Any) -> None:
    conn, peer = await raw_client(pkg)
    for params in [
        {"CWD": "/w", "mcpServers": []},
        {"cwd": "/w", "mcpservers": []},
        {"Cwd": "/w", "McpServers": []},
    ]:
        answer = await peer.call(1, "session/new", params)
        assert answer["error"]["code"] == -32602, answer
    assert conn.handler.seen == []


@requirement("ACP-V1-JSONRPC-PARAM-NAMES-EXACT")
async def test_an_optional_param_named_in_another_case_is_not_taken_for_it(pkg: Any) -> None:
    conn, peer = await raw_client(pkg)
    answer = await peer.call(
        1, "session/new", {"cwd": "/w", "mcpServers": [], "_Meta": {"k": 1}, "META": 2}
    )
    assert "result" in answer
    ((method, params),) = conn.handler.seen
    assert params.meta is msgspec.UNSET  # absent, not taken from `_Meta` or `META`


# --- 228-235: answers -----------------------------------------------------------------------------


@requirement("ACP-V1-JSONRPC-RESPONSE-REQUIRED")
async def test_every_request_is_answered_whatever_becomes_of_it(pkg: Any) -> None:
    conn, peer = await raw_client(pkg, Failing)
    requests = {
        "served": ("_ping", {}),
        "returns None": ("_none", {}),
        "handler bug": ("_crash", {}),
        "handler error": ("_refuse", {}),
        "error not encodable": ("_bad_data", {}),
        "unknown extension": ("_nobody", {}),
        "unknown method": ("nobody/knows", {}),
        "known method, no handler": (
            "session/load",
            {"sessionId": "s", "cwd": "/w", "mcpServers": []},
        ),
        "invalid params": ("session/new", {"cwd": 1}),
        "cancelled": ("_slow", {}),
    }
    for request_id, (method, params) in requests.items():
        peer.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    peer.send(
        {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "cancelled"}}
    )
    answers = [await peer.recv() for _ in requests]
    assert sorted(a["id"] for a in answers) == sorted(requests)
    assert all(("result" in a) != ("error" in a) for a in answers)
    await peer.barrier()


@requirement("ACP-V1-JSONRPC-RESPONSE-REQUIRED")
async def test_requests_received_before_the_peer_closes_are_still_answered(pkg: Any) -> None:
    class AnswersAfterTheEnd(Agent):
        """Returns only once the connection has seen the end of input: its own call to the peer,
        which can never be answered, then fails."""

        async def ext_method(self, method: str, params: Any) -> Any:
            with pytest.raises(ConnectionClosedError):
                await self.conn.request("_never_answered", {})
            return {"done": method}

    conn, peer = await raw_client(pkg, AnswersAfterTheEnd)
    peer.send({"jsonrpc": "2.0", "id": 1, "method": "_a", "params": {}})
    peer.send({"jsonrpc": "2.0", "id": 2, "method": "_b", "params": {}})
    peer.close()
    answers = []
    while (line := await peer.lines.readline()) is not None:  # all the connection wrote, to its end
        message = json.loads(line)
        if "method" not in message:
            answers.append(message)
    assert sorted((a["id"], a["result"]["done"]) for a in answers) == [(1, "_a"), (2, "_b")]
    await conn.wait_closed()


@requirement("ACP-V1-JSONRPC-RESULT-ON-SUCCESS")
async def test_a_success_answer_has_a_result_and_no_error(pkg: Any) -> None:
    conn, peer = await raw_client(pkg, Failing)
    for n, method in enumerate(["_ping", "_none", "logout"]):
        answer = await peer.call(n, method, {})
        assert "result" in answer and "error" not in answer, answer
    assert answer["result"] == {}


@requirement("ACP-V1-JSONRPC-RESULT-ON-SUCCESS")
async def test_an_error_answer_has_no_result(pkg: Any) -> None:
    conn, peer = await raw_client(pkg, Failing)
    for n, method in enumerate(["_crash", "_refuse", "_nobody"]):
        answer = await peer.call(n, method, {})
        assert "error" in answer and "result" not in answer, answer


@requirement("ACP-V1-JSONRPC-ERROR-MEMBER-ON-ERROR")
async def test_an_error_answer_carries_an_error_object_and_a_success_answer_none(pkg: Any) -> None:
    agent_wrote, client_wrote = await exchange(pkg)
    answers = answers_in(agent_wrote + client_wrote)
    errors = [a for a in answers if "error" in a]
    assert len(errors) == 2 and len(answers) > len(errors)
    assert all(
        isinstance(a["error"], dict) and {"code", "message"} <= set(a["error"]) for a in errors
    )
    assert all("error" not in a for a in answers if "result" in a)


@requirement("ACP-V1-JSONRPC-RESULT-XOR-ERROR")
async def test_every_answer_the_library_writes_has_exactly_one_of_result_and_error(
    pkg: Any,
) -> None:
    agent_wrote, client_wrote = await exchange(pkg)
    answers = answers_in(agent_wrote + client_wrote)
    assert len(answers) >= 8 and all(("result" in a) != ("error" in a) for a in answers)


@requirement("ACP-V1-JSONRPC-RESULT-XOR-ERROR")
async def test_an_answer_with_both_result_and_error_fails_its_call(pkg: Any) -> None:
    conn, peer = await raw_agent(pkg)
    call = asyncio.ensure_future(conn.request("_ext/call", {}))
    request = await peer.recv()
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {"ok": True},
            "error": {"code": 1, "message": "m"},
        }
    )
    with pytest.raises(pkg.RpcError) as failed:
        await call
    assert failed.value.code == -32600


@requirement("ACP-V1-JSONRPC-ERROR-CODE-INTEGER")
async def test_error_codes_the_library_writes_are_integers(pkg: Any) -> None:
    conn, peer = await raw_client(pkg, Failing)
    lines = [
        b"{",
        b'"text"',
        b'{"jsonrpc": "2.0", "id": 1, "method": "nobody/knows"}',
        b'{"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {}}',
        b'{"jsonrpc": "2.0", "id": 3, "method": "_crash", "params": {}}',
        b'{"jsonrpc": "2.0", "id": 4, "method": "_refuse", "params": {}}',
    ]
    for line in lines:
        peer.send_bytes(line + b"\n")
        error = (await peer.recv())["error"]
        assert type(error["code"]) is int, error


@requirement("ACP-V1-JSONRPC-ERROR-CODE-INTEGER")
async def test_an_error_raised_with_a_code_that_is_not_an_integer_is_answered_internal_error(
    pkg: Any,
) -> None:
    conn, peer = await raw_client(pkg, Failing)
    for n, code in enumerate([1.5, "-32000", True]):
        answer = await peer.call(n, "_bad_code", {"code": code})
        assert answer["error"] == {"code": -32603, "message": "Internal error"}, answer


@requirement("ACP-V1-JSONRPC-ERROR-CODE-INTEGER")
async def test_an_error_answer_whose_code_is_not_an_integer_fails_its_call_as_invalid(
    pkg: Any,
) -> None:
    conn, peer = await raw_agent(pkg)
    for code in ["-32000", 1.5]:
        call = asyncio.ensure_future(conn.request("_ext/call", {}))
        request = await peer.recv()
        peer.send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": code, "message": "m"}})
        with pytest.raises(pkg.RpcError) as failed:
            await call
        assert failed.value.code == -32600


@requirement("ACP-V1-JSONRPC-ERROR-MESSAGE-CONCISE")
async def test_error_messages_the_library_writes_are_one_short_sentence(pkg: Any) -> None:
    conn, peer = await raw_client(pkg, Failing, initialize=False, max_line_bytes=4096)
    lines = [
        (
            b'{"jsonrpc": "2.0", "id": 0, "method": "session/new", "params": {"cwd": "/w",'
            b' "mcpServers": []}}'
        ),
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}',
        b'{"jsonrpc": "2.0", "id": 2, "method": "_ping", "para',
        b"[1, 2]",
        b'{"jsonrpc": "2.0", "id": 3, "method": "nobody/knows"}',
        (
            b'{"jsonrpc": "2.0", "id": 4, "method": "session/prompt", "params": {"sessionId": "s",'
            b' "prompt": [{"text": 5}]}}'
        ),
        b'{"jsonrpc": "2.0", "id": 5, "method": "_crash", "params": {}}',
        b'{"jsonrpc": "2.0", "id": 6, "method": "_ping", "params": {"pad": "'
        + b"x" * 5000
        + b'"}}',
        b'{"jsonrpc": "2.0", "id": 7, "method": "_slow", "params": {}}',
        b'{"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 7}}',
    ]
    for line in lines:
        peer.send_bytes(line + b"\n")
    answers = [await peer.recv() for _ in range(9)]
    messages = [a["error"]["message"] for a in answers if "error" in a]
    assert len(messages) == 8
    for message in messages:
        assert "\n" not in message and len(message) <= 120 and message.count(". ") == 0, message


@requirement("ACP-V1-JSONRPC-ERROR-RESPONSE-CONTAINS-ERROR")
async def test_an_error_answer_holds_code_message_and_data(pkg: Any) -> None:
    agent_conn, client_conn, agent_tap, client_tap = await pair(pkg, Failing)
    with pytest.raises(pkg.InvalidParamsError) as failed:
        await client_conn.request("_refuse", {})
    assert (failed.value.code, failed.value.message, failed.value.data) == (
        -32602,
        "bad",
        {"field": "x"},
    )
    answer = [m for m in agent_tap.messages() if "error" in m][-1]
    assert answer["error"] == {"code": -32602, "message": "bad", "data": {"field": "x"}}
