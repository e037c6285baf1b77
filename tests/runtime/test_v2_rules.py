"""The ACP v2 rules (docs-v2/migration.mdx): each a guard whose refusal names its rule, each off
with `enforce_protocol=False`. Agents and clients here serve both versions; the rules hold on
their v2 connections only."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import acp_schema as v1
import acp_schema_v2 as v2
from acp_runtime import AgentSideConnection, ProtocolError, SchemaMismatchError, memory_pipe
from acp_runtime.versions import AgentRoute, AgentVersions, ClientRoute, ClientVersions
from tests.conformance.refusal import refused

from .bounded import within
from .helpers import RawPeer
from .v2peers import V2_INITIALIZE, AgentV1, AgentV2, connected, raw_v2_client

SESSION = {"sessionId": "s1"}
CHUNK = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
IDLE_END = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
IDLE_CANCELLED = {**IDLE_END, "stopReason": "cancelled"}


def update(body: dict[str, Any]) -> dict[str, Any]:
    return {**SESSION, "update": body}


async def notes(peer: RawPeer, count: int) -> list[Any]:
    return [(await peer.recv())["params"]["update"] for _ in range(count)]


# --- message-id -----------------------------------------------------------------------------------


async def test_a_message_chunk_without_a_message_id_is_refused() -> None:
    conn, peer = await raw_v2_client()
    with pytest.raises(ProtocolError, match="ACP v2 rule message-id"):
        await conn.notify("session/update", update(CHUNK))
    await conn.notify("session/update", update({**CHUNK, "messageId": "m1"}))
    assert (await notes(peer, 1))[0]["messageId"] == "m1"
    peer.close()


async def test_message_id_rule_is_off_without_enforcement() -> None:
    conn, peer = await raw_v2_client(enforce_protocol=False)
    await conn.notify("session/update", update(CHUNK))
    assert await notes(peer, 1) == [CHUNK]
    peer.close()


class ClientV1(v1.ClientHandler):
    def __init__(self) -> None:
        self.updates: list[v1.SessionNotification] = []
        self.arrived = asyncio.Event()

    async def session_update(self, params: v1.SessionNotification) -> None:
        self.updates.append(params)
        self.arrived.set()


async def test_a_v1_connection_of_the_same_agent_sends_chunks_without_message_ids() -> None:
    handler = ClientV1()
    agent, client = await connected(client=ClientVersions(ClientRoute(1, v1, handler)))
    await client.agent.initialize(v1.InitializeRequest(protocol_version=1))
    await agent.notify("session/update", update(CHUNK))  # v1: messageId is optional
    await within(handler.arrived.wait(), "the v1 client never received the chunk")
    (note,) = handler.updates
    assert note.session_id == "s1"
    assert note.update == v1.SessionUpdateAgentMessageChunk(content=v1.TextContent(text="x"))
    await client.close()


# --- the prompt turn ------------------------------------------------------------------------------


class TurnAgent(AgentV2):
    """Answers each prompt `{messageId: "u1"}`; what it sends before answering is `self.before`."""

    before: list[dict[str, Any]] = []

    async def session_prompt(self, params: v2.PromptRequest) -> v2.PromptResponse:
        for body in self.before:
            await self.conn.notify("session/update", update(body))
        return v2.PromptResponse(message_id="u1")


def turn_agent(*before: dict[str, Any]) -> AgentVersions:
    agent = type("Before", (TurnAgent,), {"before": list(before)})
    return AgentVersions(AgentRoute(1, v1, AgentV1), AgentRoute(2, v2, agent))


PROMPT = {**SESSION, "prompt": [{"type": "text", "text": "hi"}]}


async def prompted(
    *before: dict[str, Any], **options: Any
) -> tuple[AgentSideConnection[Any], RawPeer, Any]:
    conn, peer = await raw_v2_client(turn_agent(*before), **options)
    assert "result" in await peer.call(1, "session/new", {"cwd": "/w"})
    return conn, peer, await peer.call(2, "session/prompt", PROMPT)


async def test_a_turn_ended_before_the_prompt_is_answered_is_refused() -> None:
    conn, peer, answer = await prompted(IDLE_END)
    assert answer["error"]["code"] == -32603
    assert "ACP v2 rule prompt-acknowledges" in answer["error"]["data"]["message"]
    peer.close()


async def test_prompt_acknowledges_rule_is_off_without_enforcement() -> None:
    conn, peer = await raw_v2_client(turn_agent(IDLE_END), enforce_protocol=False)
    await peer.call(1, "session/new", {"cwd": "/w"})
    peer.send({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": PROMPT})
    assert (await peer.recv())["params"]["update"] == IDLE_END
    assert (await peer.recv())["result"] == {"messageId": "u1"}
    peer.close()


async def test_the_user_message_carries_the_id_the_prompt_answer_acknowledged() -> None:
    conn, peer, answer = await prompted()
    assert answer["result"] == {"messageId": "u1"}
    user = {"sessionUpdate": "user_message", "content": [{"type": "text", "text": "hi"}]}
    with pytest.raises(ProtocolError, match="ACP v2 rule user-message"):
        await conn.notify("session/update", update({**user, "messageId": "other"}))
    await conn.notify("session/update", update({**user, "messageId": "u1"}))
    await conn.notify("session/update", update(IDLE_END))
    assert [u["sessionUpdate"] for u in await notes(peer, 2)] == ["user_message", "state_update"]
    peer.close()


async def test_user_message_rule_is_off_without_enforcement() -> None:
    conn, peer = await raw_v2_client(turn_agent(), enforce_protocol=False)
    await peer.call(1, "session/new", {"cwd": "/w"})
    await peer.call(2, "session/prompt", PROMPT)
    body = {"sessionUpdate": "user_message", "messageId": "other"}
    await conn.notify("session/update", update(body))
    assert await notes(peer, 1) == [body]
    peer.close()


async def test_after_session_cancel_the_turn_ends_idle_cancelled() -> None:
    conn, peer, answer = await prompted()
    peer.send({"jsonrpc": "2.0", "method": "session/cancel", "params": SESSION})
    await peer.barrier()  # the cancel has been read
    with pytest.raises(ProtocolError, match="ACP v2 rule cancel-confirmed"):
        await conn.notify("session/update", update(IDLE_END))
    await conn.notify("session/update", update(IDLE_CANCELLED))
    assert await notes(peer, 1) == [IDLE_CANCELLED]
    await conn.notify("session/update", update(IDLE_END))  # that turn is over: later ones free
    peer.close()


async def test_cancel_confirmed_rule_is_off_without_enforcement() -> None:
    conn, peer = await raw_v2_client(turn_agent(), enforce_protocol=False)
    await peer.call(1, "session/new", {"cwd": "/w"})
    await peer.call(2, "session/prompt", PROMPT)
    peer.send({"jsonrpc": "2.0", "method": "session/cancel", "params": SESSION})
    await peer.barrier()
    await conn.notify("session/update", update(IDLE_END))
    assert await notes(peer, 1) == [IDLE_END]
    peer.close()


# --- initialize: info, object markers, promises ---------------------------------------------------


def answering(**result: Any) -> AgentVersions:
    class Answering(AgentV2):
        async def initialize(self, params: v2.InitializeRequest) -> Any:
            return {"protocolVersion": 2, **result}

    return AgentVersions(AgentRoute(2, v2, Answering))


INFO = {"info": {"name": "a", "version": "1"}}
CASES = [
    ("info", {}),
    ("object-markers", {**INFO, "capabilities": {"session": {"prompt": {"image": True}}}}),
    ("session-baseline", {**INFO, "capabilities": {"session": {}}}),
    ("auth-methods", {**INFO, "authMethods": [{"methodId": "m", "type": "agent", "name": "M"}]}),
]


@pytest.mark.parametrize(("rule", "result"), CASES, ids=[c[0] for c in CASES])
async def test_an_initialize_answer_breaking_a_v2_rule_is_refused(rule: str, result: Any) -> None:
    conn, peer = await raw_v2_client(answering(**result), initialize=False)
    answer = await peer.call(0, "initialize", V2_INITIALIZE)
    assert answer["error"]["code"] == -32603
    assert f"ACP v2 rule {rule}" in answer["error"]["data"]["message"]
    peer.close()


@pytest.mark.parametrize(("rule", "result"), CASES[2:], ids=[c[0] for c in CASES[2:]])
async def test_initialize_answer_rules_are_off_without_enforcement(rule: str, result: Any) -> None:
    conn, peer = await raw_v2_client(answering(**result), initialize=False, enforce_protocol=False)
    answer = await peer.call(0, "initialize", V2_INITIALIZE)
    assert answer["result"]["protocolVersion"] == 2
    peer.close()


async def test_an_agent_serving_the_baseline_may_advertise_capabilities_session() -> None:
    class Baseline(AgentV2):
        async def session_list(self, params: Any) -> Any:
            return {"sessions": []}

        async def session_resume(self, params: Any) -> Any:
            return {}

        async def session_close(self, params: Any) -> Any:
            return {}

        async def session_prompt(self, params: Any) -> Any:
            return {"messageId": "u"}

    agent = AgentVersions(AgentRoute(2, v2, lambda c: Baseline(c, capabilities={"session": {}})))
    conn, peer = await raw_v2_client(agent, initialize=False)
    answer = await peer.call(0, "initialize", V2_INITIALIZE)
    assert answer["result"]["capabilities"] == {"session": {}}
    peer.close()


@pytest.mark.parametrize(
    ("rule", "params"),
    [
        ("info", {"protocolVersion": 2}),
        ("object-markers", {**V2_INITIALIZE, "capabilities": {"auth": {"_x": True}}}),
    ],
)
async def test_a_client_refuses_to_send_an_initialize_breaking_a_v2_rule(
    rule: str, params: Any
) -> None:
    agent, client = await connected()
    with pytest.raises(ProtocolError, match=f"ACP v2 rule {rule}"):
        await client.request("initialize", params)
    await client.close()


# --- auth -----------------------------------------------------------------------------------------


async def test_a_client_never_calls_auth_login_or_logout_without_auth_methods() -> None:
    agent, client = await connected()
    await client.agent.initialize(
        v2.InitializeRequest(protocol_version=2, info=v2.Implementation(name="c", version="1"))
    )
    for method in ("auth/login", "auth/logout"):
        with pytest.raises(ProtocolError, match="ACP v2 rule auth-methods"):
            await client.request(method, {"methodId": "m"} if method == "auth/login" else {})
    await client.close()


async def test_auth_rule_is_off_without_enforcement() -> None:
    agent, client = await connected(enforce_protocol=False)
    await client.agent.initialize(
        v2.InitializeRequest(protocol_version=2, info=v2.Implementation(name="c", version="1"))
    )
    with pytest.raises(v2.MethodNotFoundError):  # sent: the agent does not serve it
        await client.request("auth/logout", {})
    await client.close()


# --- removed surfaces -----------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["fs/read_text_file", "terminal/create", "session/set_mode"])
async def test_an_agent_never_calls_a_v1_surface_on_a_v2_connection(method: str) -> None:
    conn, peer = await raw_v2_client()
    await refused(
        peer,
        conn.request(method, {"sessionId": "s1", "path": "/a"}),
        ProtocolError,
        "ACP v2 rule removed-surface",
    )
    peer.close()


async def test_a_client_never_calls_session_load_on_a_v2_connection() -> None:
    agent, client = await connected()
    await client.agent.initialize(
        v2.InitializeRequest(protocol_version=2, info=v2.Implementation(name="c", version="1"))
    )
    with pytest.raises(ProtocolError, match="ACP v2 rule removed-surface"):
        await client.request("session/load", {"sessionId": "s1", "cwd": "/w"})
    await client.close()


async def test_a_v1_method_received_on_a_v2_connection_is_method_not_found() -> None:
    conn, peer = await raw_v2_client()
    answer = await peer.call(5, "session/load", {"sessionId": "s1", "cwd": "/w", "mcpServers": []})
    assert answer["error"]["code"] == -32601
    peer.close()


async def test_removed_surface_rule_is_off_without_enforcement() -> None:
    conn, peer = await raw_v2_client(enforce_protocol=False)
    call = asyncio.ensure_future(conn.request("fs/read_text_file", {"path": "/a"}))
    assert (await peer.recv())["method"] == "fs/read_text_file"
    call.cancel()
    peer.close()


async def test_v1_capabilities_are_never_offered_on_a_v2_connection() -> None:
    (client_in, client_out), (peer_in, peer_out) = memory_pipe()
    conn = ClientVersions(ClientRoute(2, v2, v2.ClientHandler())).connect(client_in, client_out)
    peer = RawPeer(peer_in, peer_out)
    v1_surface = {"fs": {"readTextFile": {}}, "terminal": {}}
    # v2 declares neither: refused, naming the first, rather than sent without them (issue 28)
    with pytest.raises(SchemaMismatchError, match=r"\$\.params\.capabilities\.fs"):
        await conn.request(
            "initialize", {**V2_INITIALIZE, "capabilities": {"auth": {}, **v1_surface}}
        )
    with pytest.raises(asyncio.TimeoutError):
        await peer.recv(timeout=0.2)  # nothing was sent
    await conn.close()
