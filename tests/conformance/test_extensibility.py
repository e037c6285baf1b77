"""Extensibility: `_meta`, custom fields, extension methods (requirements 163-169, 184, 217, 240).

The runtime routes methods starting with `_` to the handler's `ext_method` / `ext_notification`
with the name and untyped params intact; it never reads nor writes `_meta`.
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest

from acp_runtime import ProtocolError

from .refusal import refused
from .sides import Agent, Client, agent_with, pair, raw_agent, raw_client, typed

pytest_plugins = ("tests.runtime.aio",)
requirement = pytest.mark.requirement

TRACE = {
    "traceparent": "00-80e1afed08e019fc1110464cfa66635c-7a085853722dc6d2-01",
    "tracestate": "vendor=opaque,other=1",
    "baggage": "userId=alice,isProduction=false",
}
ODD_META = {
    "zed.dev/debugMode": True,
    "nested": {"deep": [1, 2.5, None, {"x": "é中😀"}], "empty": {}},
    "big": 2**63 + 1,
    "negative": -0.25,
    "null": None,
    "sessionId": "not-this-one",
    "protocolVersion": 99,
    "stopReason": "refusal",
}


@pytest.fixture(params=["acp_v1", "acp_default"])
def pkg(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(request.param)


def sent(tap: Any, method: str) -> list[Any]:
    return [m for m in tap.messages() if m.get("method") == method]


# --- _meta ----------------------------------------------------------------------------------------


@requirement("ACP-V1-EXT-META-TRACE-KEYS-RESERVED")
async def test_trace_context_keys_in_meta_pass_through_untouched(pkg: Any) -> None:
    """The application owes: using traceparent / tracestate / baggage for W3C trace context only."""
    agent_conn, client_conn, agent_tap, client_tap = await pair(pkg)
    prompt = typed(pkg, "session/prompt", {"sessionId": "s1", "prompt": [], "_meta": TRACE})
    await client_conn.agent.session_prompt(prompt)
    assert sent(client_tap, "session/prompt")[0]["params"]["_meta"] == TRACE
    assert agent_conn.handler.seen[-1][1].meta == TRACE


@requirement("ACP-V1-EXT-META-TRACE-KEYS-RESERVED")
async def test_the_library_writes_no_meta_of_its_own(pkg: Any) -> None:
    """Everything the runtime composes itself (the initialize answer's version, cancellations,
    cancelled stop reasons, error answers) carries no `_meta`: no trace key is ever used otherwise.
    """

    prompting = asyncio.Event()

    class Slow(Agent):
        async def session_prompt(self, params: Any) -> Any:
            prompting.set()
            await asyncio.Event().wait()  # until cancelled

        async def ext_method(self, method: str, params: Any) -> Any:
            if method == "_slow":
                await asyncio.Event().wait()  # until cancelled
            return await super().ext_method(method, params)

    agent_conn, client_conn, agent_tap, client_tap = await pair(pkg, Slow)
    turn = asyncio.ensure_future(
        client_conn.agent.session_prompt(
            typed(pkg, "session/prompt", {"sessionId": "s1", "prompt": []})
        )
    )
    await prompting.wait()
    await client_conn.notify("session/cancel", typed(pkg, "session/cancel", {"sessionId": "s1"}))
    assert (await turn).stop_reason.value == "cancelled"
    call = await client_conn.send_request("_slow", {})
    await call.cancel()
    with pytest.raises(pkg.RpcError):
        await call
    with pytest.raises(pkg.RpcError):
        await client_conn.request("_nobody", {})
    assert b"_meta" not in b"".join(agent_tap.lines + client_tap.lines)


@requirement("ACP-V1-EXT-META-NO-ASSUMPTIONS")
async def test_meta_values_of_any_json_pass_through_untouched(pkg: Any) -> None:
    agent_conn, client_conn, agent_tap, client_tap = await pair(pkg)
    block = {"type": "text", "text": "hi", "_meta": ODD_META}
    prompt = typed(pkg, "session/prompt", {"sessionId": "s1", "prompt": [block], "_meta": ODD_META})
    await client_conn.agent.session_prompt(prompt)
    wire_params = sent(client_tap, "session/prompt")[0]["params"]
    assert wire_params["_meta"] == ODD_META and wire_params["prompt"][0]["_meta"] == ODD_META
    received = agent_conn.handler.seen[-1][1]
    assert received.meta == ODD_META and received.prompt[0].meta == ODD_META
    assert msgspec.json.decode(pkg.encode(received)) == {
        "sessionId": "s1",
        "prompt": [block],
        "_meta": ODD_META,
    }


@requirement("ACP-V1-EXT-META-NO-ASSUMPTIONS")
async def test_meta_never_changes_what_the_runtime_does(pkg: Any) -> None:
    """`_meta` holding protocol-looking keys (sessionId, protocolVersion, stopReason) is not read by
    any rule: version negotiation, session tracking and cancellation use the real members only."""
    agent_conn, client_conn, agent_tap, client_tap = await pair(pkg, session=False)
    assert client_conn.protocol_version == 1
    session = await client_conn.agent.session_new(
        typed(pkg, "session/new", {"cwd": "/w", "mcpServers": [], "_meta": ODD_META})
    )
    assert session.session_id == "s1" and list(client_conn.sessions) == ["s1"]
    answer = await client_conn.agent.session_prompt(
        typed(pkg, "session/prompt", {"sessionId": "s1", "prompt": [], "_meta": ODD_META})
    )
    assert answer.stop_reason.value == "end_turn"


@requirement(
    "ACP-V1-EXT-META-FOR-CUSTOM-CAPABILITIES",
    carried=(
        "`_meta` in capabilities is carried both ways; advertising extensions there is the"
        " application's"
    ),
)
async def test_meta_in_capability_objects_reaches_the_peer_untouched(pkg: Any) -> None:
    """The application still owes: advertising its extensions there and reading the peer's."""
    agent_meta = {"zed.dev": {"workspace": True, "fileNotifications": True}}
    client_meta = {"example.com/ext": {"methods": ["_example.com/ping"]}}
    agent_conn, client_conn, agent_tap, client_tap = await pair(
        pkg,
        agent_with({"loadSession": True, "_meta": agent_meta}),
        client_capabilities={"_meta": client_meta},
    )
    assert client_conn.peer_capabilities.meta == agent_meta
    assert agent_conn.peer_capabilities.meta == client_meta
    assert agent_tap.messages()[0]["result"]["agentCapabilities"]["_meta"] == agent_meta


# --- no custom fields at the root of a protocol type ----------------------------------------------


@requirement("ACP-V1-EXT-NO-ROOT-CUSTOM-FIELDS")
def test_a_typed_message_cannot_hold_a_custom_field(pkg: Any) -> None:
    with pytest.raises(TypeError, match="custom"):
        pkg.NewSessionRequest(cwd="/w", mcp_servers=[], custom=1)


@requirement("ACP-V1-EXT-NO-ROOT-CUSTOM-FIELDS")
async def test_custom_root_fields_in_untyped_params_are_refused_before_sending(pkg: Any) -> None:
    conn, peer = await raw_agent(pkg)
    await refused(
        peer,
        conn.request("session/new", {"cwd": "/w", "mcpServers": [], "custom": 1}),
        ProtocolError,
        "'?custom'? not declared",
    )
    await refused(
        peer,
        conn.notify("session/cancel", {"sessionId": "s1", "reason": "user"}),
        ProtocolError,
        "not declared",
    )
    await conn.notify(
        "session/cancel", {"sessionId": "s1", "_meta": {"reason": "user"}}
    )  # where it belongs
    assert (await peer.recv())["params"] == {"sessionId": "s1", "_meta": {"reason": "user"}}


@requirement("ACP-V1-EXT-NO-ROOT-CUSTOM-FIELDS")
async def test_a_handler_result_with_a_custom_root_field_is_not_sent(pkg: Any) -> None:
    class Custom(Agent):
        async def session_new(self, params: Any) -> Any:
            return {"sessionId": "s1", "custom": True}

    conn, peer = await raw_client(pkg, Custom)
    answer = await peer.call(1, "session/new", {"cwd": "/w", "mcpServers": []})
    assert (
        answer["error"]["code"] == -32603 and "custom" in answer["error"]["data"]["message"]
    ), answer


@requirement("ACP-V1-EXT-NO-ROOT-CUSTOM-FIELDS")
async def test_custom_root_fields_received_are_not_passed_on(pkg: Any) -> None:
    conn, peer = await raw_client(pkg)
    answer = await peer.call(1, "session/new", {"cwd": "/w", "mcpServers": [], "custom": {"x": 1}})
    assert "result" in answer
    params = conn.handler.seen[-1][1]
    assert msgspec.json.decode(pkg.encode(params)) == {"cwd": "/w", "mcpServers": []}


# --- extension methods ----------------------------------------------------------------------------


@requirement("ACP-V1-EXT-CUSTOM-REQUESTS-MAY")
async def test_custom_requests_may_be_called_and_served_both_ways(pkg: Any) -> None:
    class Workspace(Agent):
        async def ext_method(self, method: str, params: Any) -> Any:
            return {
                "buffers": [{"id": 0, "path": "/home/user/project/src/main.rs"}],
                "asked": [method, params],
            }

    class Editor(Client):
        async def ext_method(self, method: str, params: Any) -> Any:
            return {"opened": params["path"], "method": method}

    agent_conn, client_conn, agent_tap, client_tap = await pair(pkg, Workspace, Editor())
    answer = await client_conn.request("_zed.dev/workspace/buffers", {"language": "rust"})
    assert answer["asked"] == ["_zed.dev/workspace/buffers", {"language": "rust"}]
    answer = await agent_conn.request("_zed.dev/editor/open", {"path": "/a.rs"})
    assert answer == {"opened": "/a.rs", "method": "_zed.dev/editor/open"}


@requirement("ACP-V1-EXT-RESPOND-TO-CUSTOM-REQUEST")
async def test_a_custom_request_is_answered_with_its_id(pkg: Any) -> None:
    conn, peer = await raw_client(pkg)
    for request_id in ["abc-1", 1, 99]:
        answer = await peer.call(request_id, "_ping", {"language": "rust"})
        assert answer == {"jsonrpc": "2.0", "id": request_id, "result": {"pong": True}}


@requirement("ACP-V1-EXT-IGNORE-UNKNOWN-NOTIFICATIONS")
async def test_unrecognized_notifications_are_ignored(pkg: Any) -> None:
    class NoExtensions:
        async def ext_method(self, method: str, params: Any) -> Any:
            return {"pong": True}

    class RaisingOnNotes(Agent):
        async def ext_notification(self, method: str, params: Any) -> None:
            raise pkg.MethodNotFoundError(f"Method not found: {method}")

    for handler in (NoExtensions(), RaisingOnNotes):
        conn, peer = await raw_client(pkg, handler)
        peer.send({"jsonrpc": "2.0", "method": "_zed.dev/file_opened", "params": {"path": "/a"}})
        peer.send({"jsonrpc": "2.0", "method": "workspace/didChange", "params": {}})
        peer.send({"jsonrpc": "2.0", "method": "_zed.dev/no_params"})
        await peer.barrier()
        assert not conn.closed


@requirement("ACP-V1-EXT-UNKNOWN-METHOD-NOT-FOUND")
async def test_an_unrecognized_custom_request_is_answered_method_not_found(pkg: Any) -> None:
    class NoExtensions:
        pass

    for handler in (NoExtensions(), Agent):
        conn, peer = await raw_client(pkg, handler)
        answer = await peer.call(1, "_zed.dev/unknown", {})
        assert answer["id"] == 1 and answer["error"]["code"] == -32601, answer
        assert answer["error"]["message"].startswith("Method not found")


@requirement("ACP-V1-SCHEMA-EXTENSION-METHOD-NAMES")
async def test_only_underscore_methods_outside_the_schema_reach_the_extension_handlers(
    pkg: Any,
) -> None:
    conn, peer = await raw_client(pkg)
    answer = await peer.call(1, "zed.dev/workspace/buffers", {})
    assert answer["error"]["code"] == -32601
    peer.send({"jsonrpc": "2.0", "method": "zed.dev/file_opened", "params": {}})
    peer.send({"jsonrpc": "2.0", "method": "_zed.dev/file_opened", "params": {}})
    await peer.barrier()
    assert conn.handler.seen == [("_zed.dev/file_opened", {}), ("_ping", {})]


@requirement("ACP-V1-SCHEMA-EXTENSION-METHOD-NAMES")
async def test_extension_params_and_results_may_be_any_json(pkg: Any) -> None:
    class Echo(Agent):
        async def ext_method(self, method: str, params: Any) -> Any:
            return params

    agent_conn, client_conn, agent_tap, client_tap = await pair(pkg, Echo)
    for params in [{"a": [1, {"b": None}], "é": "中😀", "n": 2**60}, [1, "two", [3]], {}, []]:
        assert await client_conn.request("_echo", params) == params
    await client_conn.notify("_note", {"free": ["form", None]})
    await client_conn.request("_echo", {})
    assert ("_note", {"free": ["form", None]}) in agent_conn.handler.seen
